package sample

import (
	"errors"
	"fmt"
)

// ErrUnsafePath is wrapped by a [WriteError] when a file's Rel would escape
// the root directory.
var ErrUnsafePath = errors.New("relative path escapes the root")

// ConfigError reports an invalid field of a generator's Config. It is
// permanent: the same configuration always fails.
type ConfigError struct {
	Field  string // the Config field at fault, e.g. "Jobs"
	Reason string // what is wrong with it
}

// Error implements error.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("sample: invalid config: %s: %s", e.Field, e.Reason)
}

// Retryable reports false: a configuration error does not go away by itself.
func (e *ConfigError) Retryable() bool { return false }

// WriteError reports a failure to write a corpus to disk, naming the path
// and the operation. It is permanent: the generator does not retry.
type WriteError struct {
	Op   string // "mkdir", "write", "chmod", "chtimes" or "path"
	Path string // the path involved
	Err  error  // the underlying error
}

// Error implements error.
func (e *WriteError) Error() string {
	return fmt.Sprintf("sample: %s %s: %v", e.Op, e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *WriteError) Unwrap() error { return e.Err }

// Retryable reports false.
func (e *WriteError) Retryable() bool { return false }
