package promproc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeBinary writes an executable shell script standing in for Prometheus.
func fakeBinary(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fakeprometheus")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	return p
}

func TestStartBinaryNotFound(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "prometheus")
	require.NoError(t, os.WriteFile(notExec, []byte("x"), 0o644))
	for _, bin := range []string{filepath.Join(t.TempDir(), "missing"), notExec, t.TempDir()} {
		_, err := Start(context.Background(), Config{Binary: bin})
		var bnf *BinaryNotFoundError
		require.ErrorAs(t, err, &bnf, bin)
		assert.Equal(t, bin, bnf.Path)
		assert.Contains(t, err.Error(), "apt-get install prometheus")
		assert.False(t, bnf.Retryable())
	}
}

func TestStartFailures(t *testing.T) {
	cases := []struct {
		name      string
		script    string
		timeout   time.Duration
		wantPhase StartPhase
		wantLog   string
		wantRetry bool
	}{
		{"exits at once", `echo "err=\"bad config\" args=$*"; exit 3`, 0, PhaseExited, `args=--config.file=`, false},
		{"port taken", `echo "listen tcp 127.0.0.1:9: bind: address already in use"; exit 1`, 0, PhaseExited, "address already in use", true},
		{"never ready", `echo starting; exec sleep 60`, 400 * time.Millisecond, PhaseTimeout, "starting", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			began := time.Now()
			_, err := Start(context.Background(), Config{Binary: fakeBinary(t, tc.script), StartTimeout: tc.timeout, Dir: dir})
			assert.Less(t, time.Since(began), 10*time.Second, "a sleeping fake is killed, not waited for")
			var se *StartError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.wantPhase, se.Phase)
			assert.Contains(t, se.LogTail, tc.wantLog)
			assert.Equal(t, tc.wantRetry, se.Retryable())
			_, statErr := os.Stat(dir)
			assert.NoError(t, statErr, "a given Dir is kept")
		})
	}
}

func TestStartRemovesItsTempDirOnFailure(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, err := Start(context.Background(), Config{Binary: fakeBinary(t, "exit 2")})
	require.Error(t, err)
	left, _ := filepath.Glob(filepath.Join(tmp, "promproc-*"))
	assert.Empty(t, left)
}
