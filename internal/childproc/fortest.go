package childproc

import (
	"context"
	"errors"
	"os"
	"testing"
)

// EnvCI is the environment variable that, when "true", turns a missing
// server binary from a skipped test into a failed one.
const EnvCI = "CI"

// Server is what ForTest needs of a started server: *Process, or a type
// that embeds it.
type Server interface {
	Stop() error
	LogTail(n int) string
	String() string
}

// ForTest starts a server with start for t and stops it in t.Cleanup
// (printing the tail of its log when t failed). If the binary is missing
// (a *BinaryNotFoundError) it calls t.Fatalf when env CI is "true" (a test
// that needs the server fails in CI instead of skipping); otherwise t.Skipf
// with the error's Hint. Any other start failure is t.Fatalf with the tail
// of the log. start is called with context.Background(); its configuration's
// StartTimeout bounds it.
func ForTest[S Server](t testing.TB, start func(context.Context) (S, error)) S {
	t.Helper()
	s, err := start(context.Background())
	var missing *BinaryNotFoundError
	switch {
	case errors.As(err, &missing) && os.Getenv(EnvCI) == "true":
		t.Fatalf("%s=true and the %s binary is missing: %v", EnvCI, missing.Name, err)
	case errors.As(err, &missing):
		t.Skipf("%s binary %s not found; %s", missing.Name, missing.Path, missing.Hint)
	case err != nil:
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%v: test failed; tail of the log:\n%s", s, s.LogTail(LogTailBytes))
		}
		if err := s.Stop(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return s
}
