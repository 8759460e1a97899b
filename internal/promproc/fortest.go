package promproc

import (
	"context"
	"testing"

	"github.com/journalship/journalship/internal/childproc"
)

// EnvCI is the environment variable that, when "true", turns a missing
// Prometheus binary from a skipped test into a failed one.
const EnvCI = childproc.EnvCI

// ForTest starts Prometheus for t and stops it in t.Cleanup (printing the
// tail of its log when t failed). If the binary is missing it calls
// t.Fatalf when env CI is "true" (a test that needs Prometheus fails in CI
// instead of skipping); otherwise t.Skipf, telling how to install it. Any
// other start failure is t.Fatalf with the tail of the log.
func ForTest(t testing.TB, cfg Config) *Prometheus {
	t.Helper()
	return childproc.ForTest(t, func(ctx context.Context) (*Prometheus, error) { return Start(ctx, cfg) })
}
