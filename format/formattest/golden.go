package formattest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Golden compares got with the golden file path, rewriting the file with
// got first when update is set (the test's -update flag); hint, shown
// when the file cannot be read, says how to create it.
func Golden(t testing.TB, path, got string, update bool, hint string) {
	t.Helper()
	if update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, hint)
	assert.Equal(t, string(want), got)
}

// GoldenJournals renders each journal testdata/*.jsonl with render and
// compares it with the golden file beside it (testdata/<name>.golden),
// rewriting it first when update is set; hint says how. Each journal must
// have its entry in cases (what render needs besides its bytes: the path
// it lies at), and each entry its journal.
func GoldenJournals[C any](t *testing.T, cases map[string]C, update bool, hint string, render func(t *testing.T, c C, data []byte) string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, len(cases), "one case per testdata journal")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			c, ok := cases[filepath.Base(file)]
			require.True(t, ok, "add %s to the golden cases", file)
			Golden(t, strings.TrimSuffix(file, ".jsonl")+".golden", render(t, c, data), update, hint)
		})
	}
}
