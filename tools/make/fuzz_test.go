package maketest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w*)\(`)

// TestEveryFuzzTargetRuns: `make fuzz` runs the targets `make
// fuzz-targets` finds (go test -list), which must be every fuzz function
// of the module; the slower targets it gives a budget of their own
// (FUZZ_SLOW) must exist.
func TestEveryFuzzTargetRuns(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cmd := exec.Command("make", "--no-print-directory", "-s", "fuzz-targets")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "make fuzz-targets")
	names := strings.Fields(string(out))
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	slow := regexp.MustCompile(`(?m)^FUZZ_SLOW :=((?:.*\\\n)*.*)$`).FindStringSubmatch(string(mk))
	require.NotNil(t, slow, "FUZZ_SLOW")
	for _, m := range regexp.MustCompile(`([a-z][a-z0-9/]*:Fuzz\w*):\d+x`).FindAllStringSubmatch(slow[1], -1) {
		assert.True(t, slices.Contains(names, m[1]), "FUZZ_SLOW names %s, which is no fuzz target", m[1])
	}
	var found []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "bin" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			found = append(found, filepath.ToSlash(pkg)+":"+m[1])
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, found)
	assert.Len(t, names, len(found), "make fuzz-targets finds exactly the fuzz functions")
	for _, f := range found {
		assert.True(t, slices.Contains(names, f), "%s is not found by make fuzz-targets", f)
	}
}

// TestFuzzFailsWhenAPackageDoesNotBuild: a package that does not build
// lists no fuzz target (go test -list reports it FAIL, exit status 1);
// make fuzz-targets must fail then, and make fuzz with it, rather than
// leave the package's targets out and pass on the others.
func TestFuzzFailsWhenAPackageDoesNotBuild(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	// A go that lists a broken package a beside a package b with one fuzz
	// target, and whose fuzzing passes.
	fake := filepath.Join(t.TempDir(), "go")
	require.NoError(t, os.WriteFile(fake, []byte(`#!/bin/sh
case "$1 $2" in
"list -m") echo github.com/journalship/journalship ;;
"test -list") printf 'FAIL\tgithub.com/journalship/journalship/a [build failed]\nFuzzB\nok  \tgithub.com/journalship/journalship/b\t0.1s\nFAIL\n'; exit 1 ;;
esac
exit 0
`), 0o755))
	for _, target := range []string{"fuzz-targets", "fuzz"} {
		cmd := exec.Command("make", "--no-print-directory", "-s", target, "GO="+fake)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		assert.Error(t, err, "make %s passed with a package that does not build:\n%s", target, out)
	}
}
