package realdata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDirFindsTheSharedJournals(t *testing.T) {
	dir := Dir(t, "go-session")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.NotEmpty(t, entries)
}

func TestEnvOverrides(t *testing.T) {
	d := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(d, "x"), 0o755))
	t.Setenv(Env, d)
	assert.Equal(t, filepath.Join(d, "x"), Dir(t, "x"))
}
