// Package ccusagetest is what the generators' comparisons with the
// community cost tool ccusage share (internal/sample/claudecode and
// internal/sample/codex): the pinned binary (tools/ccusage, installed by
// make ccusage and make test), and a report of tokens and cost per session
// and model compared with ccusage's, with the rules that explain each
// documented difference applied to it. Only _test.go files import it.
package ccusagetest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Binary returns the pinned ccusage's path; the test skips without it,
// except under CI (CI=true), where it fails.
func Binary(t testing.TB) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "tools", "ccusage", "node_modules", ".bin", "ccusage")
	if _, err := os.Stat(bin); err != nil {
		msg := fmt.Sprintf("ccusage is not installed (%v); run: make ccusage", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// repoRoot is the directory of go.mod above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = up
	}
}
