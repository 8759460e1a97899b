package maketest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w*)\(`)

// TestEveryFuzzTargetRuns: `make fuzz` runs the targets FUZZ_TARGETS names;
// a fuzz function the list forgets would never run in CI.
func TestEveryFuzzTargetRuns(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	listed := regexp.MustCompile(`([a-z][a-z0-9/]*):(Fuzz\w*):`).FindAllStringSubmatch(string(mk), -1)
	var names []string
	for _, m := range listed {
		names = append(names, m[1]+":"+m[2])
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
	for _, f := range found {
		assert.True(t, slices.Contains(names, f), "%s is not in the Makefile's FUZZ_TARGETS", f)
	}
}
