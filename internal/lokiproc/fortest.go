package lokiproc

import (
	"context"
	"errors"
	"os"
	"testing"
)

// EnvCI is the environment variable that, when "true", turns a missing Loki
// binary from a skipped test into a failed one.
const EnvCI = "CI"

// ForTest starts Loki for t and stops it in t.Cleanup (printing the tail of
// Loki's log when t failed). If the binary is missing it calls t.Fatalf when
// env CI is "true" (a test that needs Loki fails in CI instead of skipping);
// otherwise t.Skipf, telling to run `make loki` first. Any other start
// failure is t.Fatalf with the tail of Loki's log.
func ForTest(t testing.TB, cfg Config) *Loki {
	t.Helper()
	l, err := Start(context.Background(), cfg) // cfg.StartTimeout bounds it
	var missing *BinaryNotFoundError
	switch {
	case errors.As(err, &missing) && os.Getenv(EnvCI) == "true":
		t.Fatalf("lokiproc: CI=true and Loki is missing: %v", err)
	case errors.As(err, &missing):
		t.Skipf("lokiproc: Loki binary %s not found; run `make loki` first", missing.Path)
	case err != nil:
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("lokiproc: tail of %s:\n%s", l.LogPath, l.LogTail(logTailBytes))
		}
		if err := l.Stop(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return l
}
