package childproc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTB records what ForTest does to a test; Skipf and Fatalf end the
// goroutine like the real ones do.
type fakeTB struct {
	testing.TB
	verdict  string
	failed   bool
	logs     []string
	cleanups []func()
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Failed() bool      { return f.failed }
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.verdict = "error: " + fmt.Sprintf(format, args...)
}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.verdict = "skip: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.verdict = "fatal: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// runForTest calls ForTest on f in a goroutine of its own.
func runForTest(f *fakeTB, cfg Config) *Process {
	var p *Process
	done := make(chan struct{})
	go func() {
		defer close(done)
		p = ForTest(f, func(ctx context.Context) (*Process, error) { return Start(ctx, cfg) })
	}()
	<-done
	return p
}

func TestForTestVerdicts(t *testing.T) {
	missing := Config{Name: "srv", Binary: filepath.Join(t.TempDir(), "nope"), Hint: "run `make srv` first"}
	cases := []struct {
		name string
		ci   string
		cfg  Config
		want string
	}{
		{"missing binary skips", "", missing, "skip: srv binary " + missing.Binary + " not found; run `make srv` first"},
		{"missing binary skips unless CI is exactly true", "1", missing, "skip: "},
		{"missing binary fails in CI", "true", missing, "fatal: CI=true and the srv binary is missing: srv binary"},
		{"start failure fails", "", fakeConfig(t, "exit"), "fatal: start fake (exited"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvCI, tc.ci)
			f := &fakeTB{}
			assert.Nil(t, runForTest(f, tc.cfg))
			assert.True(t, strings.HasPrefix(f.verdict, tc.want), f.verdict)
			assert.Empty(t, f.cleanups)
		})
	}
}

func TestForTestStopsInCleanup(t *testing.T) {
	for _, failed := range []bool{false, true} {
		f := &fakeTB{failed: failed}
		p := runForTest(f, fakeConfig(t, "serve"))
		require.NotNil(t, p, f.verdict)
		require.Len(t, f.cleanups, 1)
		assert.False(t, p.Exited())
		f.cleanups[0]()
		assert.True(t, p.Exited())
		assert.Empty(t, f.verdict)
		if !failed {
			assert.Empty(t, f.logs)
			continue
		}
		require.Len(t, f.logs, 1, "a failed test gets the log's tail")
		assert.Contains(t, f.logs[0], p.String())
		assert.Contains(t, f.logs[0], "fake: started")
	}
}

// stopFails is a Server whose Stop fails.
type stopFails struct{ *Process }

func (stopFails) Stop() error { return errors.New("stuck") }

func TestForTestReportsStopErrors(t *testing.T) {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ForTest(f, func(context.Context) (stopFails, error) { return stopFails{&Process{Name: "srv"}}, nil })
	}()
	<-done
	require.Len(t, f.cleanups, 1)
	f.cleanups[0]()
	assert.Equal(t, "error: stuck", f.verdict)
}
