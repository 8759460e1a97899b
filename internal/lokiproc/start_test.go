package lokiproc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeBinary writes an executable shell script standing in for Loki.
func fakeBinary(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fakeloki")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	return p
}

func TestStartBinaryNotFound(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "loki")
	require.NoError(t, os.WriteFile(notExec, []byte("x"), 0o644))
	for _, bin := range []string{filepath.Join(t.TempDir(), "missing"), notExec, t.TempDir()} {
		_, err := Start(context.Background(), Config{Binary: bin})
		var bnf *BinaryNotFoundError
		require.ErrorAs(t, err, &bnf, bin)
		assert.Equal(t, bin, bnf.Path)
		assert.Contains(t, err.Error(), "make loki")
		assert.False(t, bnf.Retryable())
	}
}

func TestStartFailures(t *testing.T) {
	cases := []struct {
		name      string
		script    string
		timeout   time.Duration
		ctxAfter  time.Duration
		wantPhase StartPhase
		wantLog   string
		wantRetry bool
	}{
		{
			name:      "exits at once",
			script:    `echo "level=error msg=\"bad config\" args=$*"; exit 3`,
			wantPhase: PhaseExited,
			wantLog:   `msg="bad config" args=-config.file=`,
		},
		{
			name:      "never ready",
			script:    `echo "starting"; exec sleep 60`,
			timeout:   400 * time.Millisecond,
			wantPhase: PhaseTimeout,
			wantLog:   "starting",
			wantRetry: true,
		},
		{
			name:      "caller gives up",
			script:    `exec sleep 60`,
			ctxAfter:  300 * time.Millisecond,
			wantPhase: PhaseContext,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.ctxAfter > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.ctxAfter)
				defer cancel()
			}
			began := time.Now()
			_, err := Start(ctx, Config{Binary: fakeBinary(t, tc.script), StartTimeout: tc.timeout})
			assert.Less(t, time.Since(began), 10*time.Second, "a sleeping fake is killed, not waited for")
			var se *StartError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.wantPhase, se.Phase)
			assert.Contains(t, se.LogTail, tc.wantLog)
			assert.Contains(t, err.Error(), tc.wantLog)
			assert.Equal(t, tc.wantRetry, se.Retryable())
			assert.NoDirExists(t, se.Dir, "the temp dir of a failed start is removed")
		})
	}
}

func TestStartRetriesPortClash(t *testing.T) {
	dir := t.TempDir()
	script := `echo "level=error msg=\"listen tcp 127.0.0.1:1: bind: address already in use\""; exit 1`
	_, err := Start(context.Background(), Config{Binary: fakeBinary(t, script), Dir: dir})
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, PhaseExited, se.Phase)
	assert.True(t, se.Retryable())
	log, err := os.ReadFile(filepath.Join(dir, "loki.log"))
	require.NoError(t, err)
	assert.Equal(t, startAttempts, strings.Count(string(log), "address already in use"), "one attempt per try")
	assert.DirExists(t, dir, "a caller's Dir is kept")
	assert.FileExists(t, filepath.Join(dir, "loki.yaml"))
}

func TestStartRejectsBadConfig(t *testing.T) {
	_, err := Start(context.Background(), Config{Binary: "/x", StartTimeout: -1})
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "StartTimeout", ce.Field)
}

// fakeTB records ForTest's verdict; Skipf and Fatalf end the goroutine like
// the real ones do.
type fakeTB struct {
	testing.TB
	verdict string
}

func (f *fakeTB) Helper()             {}
func (f *fakeTB) Cleanup(func())      {}
func (f *fakeTB) Logf(string, ...any) {}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.verdict = "skip: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.verdict = "fatal: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func runForTest(cfg Config) string {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ForTest(f, cfg)
	}()
	<-done
	return f.verdict
}

func TestForTestVerdicts(t *testing.T) {
	missing := Config{Binary: filepath.Join(t.TempDir(), "nope")}
	cases := []struct {
		name string
		ci   string
		cfg  Config
		want string
	}{
		{"missing binary skips", "", missing, "skip: lokiproc: Loki binary " + missing.Binary + " not found; run `make loki` first"},
		{"missing binary skips unless CI is exactly true", "1", missing, "skip: "},
		{"missing binary fails in CI", "true", missing, "fatal: lokiproc: CI=true and Loki is missing"},
		{"start failure fails", "", Config{Binary: fakeBinary(t, "exit 2")}, "fatal: lokiproc: start loki (exited"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvCI, tc.ci)
			assert.True(t, strings.HasPrefix(runForTest(tc.cfg), tc.want), runForTest(tc.cfg))
		})
	}
}
