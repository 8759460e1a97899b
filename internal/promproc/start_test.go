package promproc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/childproc"
)

// childproc tests the process machinery; these check what promproc asks of
// it: the binary's hint, its arguments and its configuration file.

func TestMissingPrometheusSaysHowToInstallIt(t *testing.T) {
	for _, bin := range []string{filepath.Join(t.TempDir(), "prometheus"), t.TempDir()} {
		_, err := Start(context.Background(), Config{Binary: bin})
		var bnf *BinaryNotFoundError
		require.ErrorAs(t, err, &bnf, bin)
		assert.Equal(t, "prometheus", bnf.Name)
		for _, want := range []string{"apt-get install prometheus", "make deps", EnvBinary} {
			assert.Contains(t, err.Error(), want)
		}
	}
}

// TestStartArguments runs a script that logs its arguments and exits.
func TestStartArguments(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "fakeprometheus")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\nfor a; do echo \"arg $a\"; done\nexit 2\n"), 0o755))
	dir := t.TempDir()
	_, err := Start(context.Background(), Config{Binary: fake, Dir: dir, Targets: []Target{{Job: "j", Addr: "127.0.0.1:9"}}})
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, childproc.PhaseExited, se.Phase)
	assert.False(t, se.Retryable())
	args := strings.Split(strings.TrimSpace(se.LogTail), "\n")
	require.Len(t, args, 4, se.LogTail)
	assert.Equal(t, "arg --config.file="+filepath.Join(dir, "prometheus.yml"), args[0])
	assert.Equal(t, "arg --storage.tsdb.path="+filepath.Join(dir, "data"), args[1])
	assert.True(t, strings.HasPrefix(args[2], "arg --web.listen-address=127.0.0.1:"), args[2])
	assert.Equal(t, "arg --log.level=info", args[3])
	conf, err := os.ReadFile(filepath.Join(dir, "prometheus.yml"))
	require.NoError(t, err)
	assert.Contains(t, string(conf), `"127.0.0.1:9"`)
}
