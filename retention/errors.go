package retention

import "fmt"

// ConfigError is an invalid configuration value. It is permanent.
type ConfigError struct {
	Field  string // the Config field (or flag) at fault
	Value  string // the value given
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("retention: %s %q: %s", e.Field, e.Value, e.Reason)
}

// Retryable is false: a configuration does not fix itself.
func (e *ConfigError) Retryable() bool { return false }

// RootError means the root cannot be swept at all (missing, not a
// directory, a symlink). The sweep deletes nothing; it is retried next
// interval.
type RootError struct {
	Root string
	Err  error
}

func (e *RootError) Error() string { return fmt.Sprintf("retention: root %s: %v", e.Root, e.Err) }

// Unwrap returns the cause.
func (e *RootError) Unwrap() error { return e.Err }

// Retryable is true: a volume may be mounted by the next sweep.
func (e *RootError) Retryable() bool { return true }
