package lokiproc

import (
	"fmt"
	"strings"
)

// ConfigError reports an invalid Config field. It is permanent.
type ConfigError struct {
	Field  string // Config field, e.g. "StartTimeout" or "Limits[max_line_size]"
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("lokiproc: invalid config %s: %s", e.Field, e.Reason)
}

// Retryable reports false: the same config fails the same way.
func (e *ConfigError) Retryable() bool { return false }

// BinaryNotFoundError reports that the Loki executable is missing or not
// executable. It is permanent; `make loki` builds the default binary.
type BinaryNotFoundError struct {
	Path string
	Err  error
}

func (e *BinaryNotFoundError) Error() string {
	return fmt.Sprintf("lokiproc: loki binary %q not usable (run `make loki` first, or set %s): %v", e.Path, EnvBinary, e.Err)
}

func (e *BinaryNotFoundError) Unwrap() error { return e.Err }

// Retryable reports false.
func (e *BinaryNotFoundError) Retryable() bool { return false }

// StartPhase says where Start failed.
type StartPhase string

// Start failure phases.
const (
	PhaseSetup   StartPhase = "setup"   // data dir, config file, ports, log file
	PhaseSpawn   StartPhase = "spawn"   // exec of the binary failed
	PhaseExited  StartPhase = "exited"  // Loki exited before /ready answered 200
	PhaseTimeout StartPhase = "timeout" // StartTimeout elapsed before /ready answered 200
	PhaseContext StartPhase = "context" // the caller's context ended first
)

// StartError reports that Loki did not become ready. LogTail holds the end
// of Loki's log (Dir/loki.log) when there is one.
type StartError struct {
	Phase   StartPhase
	Dir     string
	Err     error
	LogTail string
}

func (e *StartError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lokiproc: start loki (%s, dir %s): %v", e.Phase, e.Dir, e.Err)
	if e.LogTail != "" {
		b.WriteString("\n--- tail of loki.log ---\n")
		b.WriteString(e.LogTail)
	}
	return b.String()
}

func (e *StartError) Unwrap() error { return e.Err }

// Retryable reports whether starting again may succeed: a port lost to
// another process or a slow machine may; a bad config or a spawn failure
// will not.
func (e *StartError) Retryable() bool {
	switch e.Phase {
	case PhaseTimeout:
		return true
	case PhaseExited:
		return portClash(e.LogTail)
	default:
		return false
	}
}

// StopError reports a failure to stop Loki or to remove its temp dir.
type StopError struct {
	Op  string // "signal", "kill" or "remove dir"
	Err error
}

func (e *StopError) Error() string { return fmt.Sprintf("lokiproc: stop loki: %s: %v", e.Op, e.Err) }

func (e *StopError) Unwrap() error { return e.Err }

// Retryable reports false.
func (e *StopError) Retryable() bool { return false }

// portClash reports whether a Loki log says a listen port was taken.
func portClash(log string) bool {
	return strings.Contains(log, "address already in use")
}
