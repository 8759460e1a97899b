package promproc

import (
	"fmt"

	"github.com/journalship/journalship/internal/childproc"
)

// The errors of Start and Stop are childproc's; they name "prometheus".
type (
	// ConfigError reports an invalid Config field. It is permanent.
	ConfigError = childproc.ConfigError
	// BinaryNotFoundError reports that the Prometheus executable is missing
	// or not executable. It is permanent; `make deps` installs Debian's
	// package.
	BinaryNotFoundError = childproc.BinaryNotFoundError
	// StartError reports that Prometheus did not become ready, with the tail
	// of Dir/prometheus.log; see StartError.Retryable.
	StartError = childproc.StartError
	// StartPhase says where Start failed (childproc.PhaseSetup and so on).
	StartPhase = childproc.StartPhase
	// StopError reports a failure to stop Prometheus or to remove its temp
	// dir.
	StopError = childproc.StopError
)

// QueryError reports a failed query: a transport error, a non-200 answer
// or Prometheus's own error (a bad expression).
type QueryError struct {
	Query  string
	Status int    // HTTP status, 0 when the request did not complete
	Body   string // Prometheus's error text or the raw answer, bounded
	Err    error
}

func (e *QueryError) Error() string {
	switch {
	case e.Err != nil:
		return fmt.Sprintf("promproc: query %q: %v", e.Query, e.Err)
	default:
		return fmt.Sprintf("promproc: query %q: HTTP %d: %s", e.Query, e.Status, e.Body)
	}
}

func (e *QueryError) Unwrap() error { return e.Err }
