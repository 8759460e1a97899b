package formattest

import (
	"os"
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
