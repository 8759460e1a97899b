package childproc

import (
	"fmt"
	"strings"
)

// ConfigError reports an invalid configuration field. It is permanent.
type ConfigError struct {
	Name   string // server name, e.g. "loki"
	Field  string // configuration field, e.g. "StartTimeout" or "Limits[max_line_size]"
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("invalid %s config %s: %s", e.Name, e.Field, e.Reason)
}

// Retryable reports false: the same config fails the same way.
func (e *ConfigError) Retryable() bool { return false }

// BinaryNotFoundError reports that the server's executable is missing or
// not executable. It is permanent; Hint tells how to get it.
type BinaryNotFoundError struct {
	Name string // server name, e.g. "loki"
	Path string
	Hint string // e.g. "run `make loki` first"
	Err  error
}

func (e *BinaryNotFoundError) Error() string {
	return fmt.Sprintf("%s binary %q not usable (%s): %v", e.Name, e.Path, e.Hint, e.Err)
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
	PhaseExited  StartPhase = "exited"  // the server exited before its ready path answered 200
	PhaseTimeout StartPhase = "timeout" // StartTimeout elapsed before the ready path answered 200
	PhaseContext StartPhase = "context" // the caller's context ended first
)

// StartError reports that the server did not become ready. LogTail holds
// the end of its log (Dir/<Name>.log) when there is one.
type StartError struct {
	Name    string // server name, e.g. "loki"
	Phase   StartPhase
	Dir     string
	Err     error
	LogTail string
}

func (e *StartError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "start %s (%s, dir %s): %v", e.Name, e.Phase, e.Dir, e.Err)
	if e.LogTail != "" {
		fmt.Fprintf(&b, "\n--- tail of %s.log ---\n%s", e.Name, e.LogTail)
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

// portClash reports whether a server log says a listen port was taken.
func portClash(log string) bool {
	return strings.Contains(log, "address already in use")
}

// StopError reports a failure to stop the server or to remove its temp dir.
type StopError struct {
	Name string // server name, e.g. "loki"
	Op   string // "signal", "kill" or "remove dir"
	Err  error
}

func (e *StopError) Error() string { return fmt.Sprintf("stop %s: %s: %v", e.Name, e.Op, e.Err) }

func (e *StopError) Unwrap() error { return e.Err }

// Retryable reports false.
func (e *StopError) Retryable() bool { return false }
