package promproc

import (
	"fmt"
	"strings"
)

// ConfigError reports an invalid Config field. It is permanent.
type ConfigError struct {
	Field  string // Config field, e.g. "ScrapeInterval" or "Targets[0].Addr"
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("promproc: invalid config %s: %s", e.Field, e.Reason)
}

// Retryable reports false: the same config fails the same way.
func (e *ConfigError) Retryable() bool { return false }

// BinaryNotFoundError reports that the Prometheus executable is missing or
// not executable. It is permanent; `make deps` installs Debian's package.
type BinaryNotFoundError struct {
	Path string
	Err  error
}

func (e *BinaryNotFoundError) Error() string {
	return fmt.Sprintf("promproc: prometheus binary %q not usable (apt-get install prometheus, or `make deps`; or set %s): %v", e.Path, EnvBinary, e.Err)
}

func (e *BinaryNotFoundError) Unwrap() error { return e.Err }

// Retryable reports false.
func (e *BinaryNotFoundError) Retryable() bool { return false }

// StartPhase says where Start failed.
type StartPhase string

// Start failure phases.
const (
	PhaseSetup   StartPhase = "setup"   // data dir, config file, port, log file
	PhaseSpawn   StartPhase = "spawn"   // exec of the binary failed
	PhaseExited  StartPhase = "exited"  // Prometheus exited before /-/ready answered 200
	PhaseTimeout StartPhase = "timeout" // StartTimeout elapsed before /-/ready answered 200
	PhaseContext StartPhase = "context" // the caller's context ended first
)

// StartError reports that Prometheus did not become ready. LogTail holds
// the end of its log (Dir/prometheus.log) when there is one.
type StartError struct {
	Phase   StartPhase
	Dir     string
	Err     error
	LogTail string
}

func (e *StartError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "promproc: start prometheus (%s, dir %s): %v", e.Phase, e.Dir, e.Err)
	if e.LogTail != "" {
		b.WriteString("\n--- tail of prometheus.log ---\n")
		b.WriteString(e.LogTail)
	}
	return b.String()
}

func (e *StartError) Unwrap() error { return e.Err }

// Retryable reports whether starting again may succeed: a port taken by
// another process meanwhile or a slow machine may; a bad config may not.
func (e *StartError) Retryable() bool {
	switch e.Phase {
	case PhaseTimeout:
		return true
	case PhaseExited:
		return strings.Contains(e.LogTail, "address already in use")
	default:
		return false
	}
}

// StopError reports a failure to stop Prometheus or to remove its temp dir.
type StopError struct {
	Op  string // "signal", "kill" or "remove dir"
	Err error
}

func (e *StopError) Error() string {
	return fmt.Sprintf("promproc: stop prometheus: %s: %v", e.Op, e.Err)
}

func (e *StopError) Unwrap() error { return e.Err }

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
