// Package realdata finds the journals the agent runtimes' own code wrote,
// kept beside the repository in ../shared/realdata (see its README), for
// tests that check journalship against what the runtimes really write.
// They are read where they are, never copied into the repository.
package realdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names a directory that overrides where the real journals are.
const Env = "JOURNALSHIP_REALDATA"

// Dir returns the directory of the real journals under sub (e.g.
// "go-session"). Where they are absent (a clone used away from its
// workspace) the test is skipped with a message, and fails when CI=true:
// CI always has them.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	root, err := Root()
	if err == nil {
		dir := filepath.Join(root, sub)
		if _, err = os.Stat(dir); err == nil {
			return dir
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("real journals not found (%v): CI runs with ../shared/realdata beside the clone", err)
	}
	t.Skipf("real journals not found (%v): these checks run where ../shared/realdata is beside the clone, or with $%s", err, Env)
	return ""
}

// Root locates the realdata directory: $JOURNALSHIP_REALDATA, else
// ../shared/realdata beside the module root (found by walking up from the
// working directory to go.mod).
func Root() (string, error) {
	if d := os.Getenv(Env); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "realdata"), nil
		}
		if filepath.Dir(dir) == dir {
			return "", os.ErrNotExist
		}
	}
}
