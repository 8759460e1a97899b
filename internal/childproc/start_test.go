package childproc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStartServesAndStopRemovesTempDir(t *testing.T) {
	cfg := fakeConfig(t, "serve")
	cfg.Ports = 2
	p, err := Start(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	require.Len(t, p.Ports, 2)
	assert.NotEqual(t, p.Ports[0], p.Ports[1])
	assert.Equal(t, "http://"+Addr(p.Ports[0]), p.URL)
	assert.Positive(t, p.Ready)
	assert.Equal(t, filepath.Join(p.Dir, "fake.conf"), p.ConfigPath)
	assert.Equal(t, filepath.Join(p.Dir, "fake.log"), p.LogPath)
	assert.Contains(t, p.LogTail(LogTailBytes), "fake: started")
	assert.Contains(t, p.LogTail(LogTailBytes), `fake: config "ports [`, "the rendered config was written before the spawn")
	assert.Equal(t, "fake at "+p.URL+" (log "+p.LogPath+")", p.String())
	assert.False(t, p.Exited())

	require.NoError(t, p.Stop())
	assert.True(t, p.Exited())
	assert.NoDirExists(t, p.Dir, "a temp dir is removed")
	assert.Empty(t, p.LogTail(LogTailBytes))
	assert.NoError(t, p.Stop(), "a second Stop is a no-op")
}

func TestStopKeepsGivenDir(t *testing.T) {
	cfg := fakeConfig(t, "serve")
	cfg.Dir = filepath.Join(t.TempDir(), "made", "for", "it")
	p, err := Start(context.Background(), cfg)
	require.NoError(t, err)
	require.NoError(t, p.Stop())
	assert.Equal(t, cfg.Dir, p.Dir)
	log, err := os.ReadFile(p.LogPath)
	require.NoError(t, err, "a caller's Dir is kept")
	assert.Contains(t, string(log), "fake: stopping", "SIGTERM let the server stop by itself")
}

func TestStopKillsAfterGrace(t *testing.T) {
	cfg := fakeConfig(t, "stubborn")
	cfg.StopGrace = 200 * time.Millisecond
	cfg.Dir = t.TempDir() // kept, so the log can be read after Stop
	p, err := Start(context.Background(), cfg)
	require.NoError(t, err)
	began := time.Now()
	require.NoError(t, p.Stop())
	took := time.Since(began)
	assert.GreaterOrEqual(t, took, cfg.StopGrace, "SIGTERM was ignored")
	assert.Less(t, took, 5*time.Second, "SIGKILL after the grace")
	assert.True(t, p.Exited())
	assert.Contains(t, p.LogTail(LogTailBytes), "fake: started")
	assert.NotContains(t, p.LogTail(LogTailBytes), "fake: stopping")
}

func TestStartBinaryNotFound(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "srv")
	require.NoError(t, os.WriteFile(notExec, []byte("x"), 0o644))
	for _, bin := range []string{filepath.Join(t.TempDir(), "missing"), notExec, t.TempDir()} {
		_, err := Start(context.Background(), Config{Name: "srv", Binary: bin, Hint: "run `make srv` first"})
		var bnf *BinaryNotFoundError
		require.ErrorAs(t, err, &bnf, bin)
		assert.Equal(t, bin, bnf.Path)
		assert.Equal(t, "srv", bnf.Name)
		assert.Contains(t, err.Error(), "make srv")
		assert.False(t, bnf.Retryable())
	}
}

func TestStartFailures(t *testing.T) {
	cases := []struct {
		mode      string
		timeout   time.Duration
		ctxAfter  time.Duration
		wantPhase StartPhase
		wantLog   string
		wantRetry bool
	}{
		{mode: "exit", wantPhase: PhaseExited, wantLog: `fake: msg="bad config"`},
		{mode: "hang", timeout: 400 * time.Millisecond, wantPhase: PhaseTimeout, wantLog: "fake: starting", wantRetry: true},
		{mode: "notready", timeout: 400 * time.Millisecond, wantPhase: PhaseTimeout, wantLog: "fake: started", wantRetry: true},
		{mode: "hang", ctxAfter: 300 * time.Millisecond, wantPhase: PhaseContext, wantLog: "fake: starting"},
	}
	for _, tc := range cases {
		t.Run(tc.mode+"/"+string(tc.wantPhase), func(t *testing.T) {
			ctx := context.Background()
			if tc.ctxAfter > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.ctxAfter)
				defer cancel()
			}
			cfg := fakeConfig(t, tc.mode)
			cfg.StartTimeout = tc.timeout
			began := time.Now()
			_, err := Start(ctx, cfg)
			assert.Less(t, time.Since(began), 10*time.Second, "a hanging server is killed, not waited for")
			var se *StartError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.wantPhase, se.Phase)
			assert.Equal(t, "fake", se.Name)
			assert.Contains(t, se.LogTail, tc.wantLog)
			assert.Contains(t, err.Error(), tc.wantLog)
			assert.Equal(t, tc.wantRetry, se.Retryable())
			assert.NoDirExists(t, se.Dir, "the temp dir of a failed start is removed")
		})
	}
}

func TestStartSetupAndSpawnFailures(t *testing.T) {
	renderFails := fakeConfig(t, "serve")
	renderFails.Render = func(Attempt) ([]byte, []string, error) { return nil, nil, os.ErrInvalid }
	noConfigName := fakeConfig(t, "serve")
	noConfigName.ConfigName = ""
	notABinary := Config{Name: "srv", Binary: script(t, "not a program\n")}
	cases := []struct {
		name string
		cfg  Config
		want StartPhase
	}{
		{"render fails", renderFails, PhaseSetup},
		{"config without a file name", noConfigName, PhaseSetup},
		{"exec fails", notABinary, PhaseSpawn},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Start(context.Background(), tc.cfg)
			var se *StartError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.want, se.Phase, err.Error())
			assert.False(t, se.Retryable())
		})
	}
}

func TestStartRetriesPortClash(t *testing.T) {
	cfg := fakeConfig(t, "clash")
	cfg.Dir = t.TempDir()
	_, err := Start(context.Background(), cfg)
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, PhaseExited, se.Phase)
	assert.True(t, se.Retryable())
	log, err := os.ReadFile(filepath.Join(cfg.Dir, "fake.log"))
	require.NoError(t, err)
	assert.Equal(t, DefaultAttempts, strings.Count(string(log), "address already in use"), "one attempt per try")
	assert.DirExists(t, cfg.Dir, "a caller's Dir is kept")

	cfg = fakeConfig(t, "clash-once")
	p, err := Start(context.Background(), cfg)
	require.NoError(t, err, "the second attempt, on new ports, succeeds")
	assert.Equal(t, 1, strings.Count(p.LogTail(LogTailBytes), "address already in use"))
	require.NoError(t, p.Stop())
}

func TestStartRemovesItsTempDirOnFailure(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, err := Start(context.Background(), fakeConfig(t, "exit"))
	require.Error(t, err)
	left, _ := filepath.Glob(filepath.Join(tmp, "fake-*"))
	assert.Empty(t, left)
}

func TestTailFileStartsAtALine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	require.NoError(t, os.WriteFile(p, []byte("first line\nsecond\nthird\n"), 0o644))
	assert.Equal(t, "third\n", tailFile(p, 8))
	assert.Equal(t, "first line\nsecond\nthird\n", tailFile(p, 100))
	assert.Empty(t, tailFile(filepath.Join(t.TempDir(), "none"), 100))
}
