package lokiproc

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/childproc"
)

// Running, retrying and stopping the process is tested in childproc; these
// tests check what lokiproc tells it.

func TestMissingBinaryTellsToMakeLoki(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "loki")
	_, err := Start(context.Background(), Config{Binary: bin})
	var bnf *BinaryNotFoundError
	require.ErrorAs(t, err, &bnf)
	assert.Equal(t, bin, bnf.Path)
	assert.Equal(t, "loki", bnf.Name)
	assert.Contains(t, err.Error(), "make loki")
	assert.Contains(t, bnf.Hint, EnvBinary)
}

// TestStartRunsLokiWithItsConfig uses a script that prints its arguments
// and the configuration file, then exits before /ready.
func TestStartRunsLokiWithItsConfig(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "fakeloki")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho \"args=$*\"\ncat \"${1#-config.file=}\"\nexit 3\n"), 0o755))
	dir := t.TempDir()
	_, err := Start(context.Background(), Config{Binary: fake, Dir: dir, Limits: map[string]any{"max_line_size": "3KB"}})
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, childproc.PhaseExited, se.Phase)
	assert.Contains(t, se.LogTail, "args=-config.file="+filepath.Join(dir, "loki.yaml"))
	assert.Contains(t, se.LogTail, `"max_line_size": "3KB"`)
	assert.Contains(t, err.Error(), "start loki (exited")
	assert.FileExists(t, filepath.Join(dir, "loki.log"))
}

func TestStartRejectsBadLimits(t *testing.T) {
	_, err := Start(context.Background(), Config{Binary: "/nonexistent/loki", Limits: map[string]any{"f": func() {}}})
	var ce *ConfigError
	require.ErrorAs(t, err, &ce, "checked before the binary")
	assert.Equal(t, "Limits[f]", ce.Field)
	assert.Contains(t, err.Error(), "invalid loki config")
}
