package promproc

import (
	"context"
	"errors"
	"os"
	"testing"
)

// EnvCI is the environment variable that, when "true", turns a missing
// Prometheus binary from a skipped test into a failed one.
const EnvCI = "CI"

// ForTest starts Prometheus for t and stops it in t.Cleanup (printing the
// tail of its log when t failed). If the binary is missing it calls
// t.Fatalf when env CI is "true" (a test that needs Prometheus fails in CI
// instead of skipping); otherwise t.Skipf, telling how to install it. Any
// other start failure is t.Fatalf with the tail of the log.
func ForTest(t testing.TB, cfg Config) *Prometheus {
	t.Helper()
	p, err := Start(context.Background(), cfg) // cfg.StartTimeout bounds it
	var missing *BinaryNotFoundError
	switch {
	case errors.As(err, &missing) && os.Getenv(EnvCI) == "true":
		t.Fatalf("promproc: CI=true and Prometheus is missing: %v", err)
	case errors.As(err, &missing):
		t.Skipf("promproc: Prometheus binary %s not found; run `make deps` (Debian's prometheus package) first", missing.Path)
	case err != nil:
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("promproc: tail of %s:\n%s", p.LogPath, p.LogTail(logTailBytes))
		}
		if err := p.Stop(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return p
}
