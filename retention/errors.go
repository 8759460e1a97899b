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

// StatusError is a failure to learn a job's status. When Unreachable is
// true the status source as a whole is unusable (a database that cannot be
// reached, a query the database refuses): the sweep then deletes nothing
// more. Otherwise only that job is kept.
type StatusError struct {
	Source      string // "journal" or "postgres"
	Job         string // the job directory
	Unreachable bool
	Err         error
}

func (e *StatusError) Error() string {
	if e.Job == "" {
		return fmt.Sprintf("retention: %s status: %v", e.Source, e.Err)
	}
	return fmt.Sprintf("retention: %s status of %s: %v", e.Source, e.Job, e.Err)
}

// Unwrap returns the cause.
func (e *StatusError) Unwrap() error { return e.Err }

// Retryable is true: a status source that failed may answer next sweep.
func (e *StatusError) Retryable() bool { return true }

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
