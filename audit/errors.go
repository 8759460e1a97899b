package audit

import (
	"errors"
	"io/fs"
	"syscall"
)

// Kind classifies an *Error. Each Kind is itself an error, so callers can
// test with errors.Is(err, audit.ErrPermission).
type Kind string

// Error returns the kind's description.
func (k Kind) Error() string { return string(k) }

// Retryable reports whether the operation may succeed if repeated
// unchanged later: only ErrIO is.
func (k Kind) Retryable() bool { return k == ErrIO }

// The kinds of failure.
const (
	// ErrInvalid is a bad Config or argument (permanent).
	ErrInvalid Kind = "invalid argument"
	// ErrNotFound is a path that does not exist (permanent).
	ErrNotFound Kind = "not found"
	// ErrPermission is a path the process may not read (permanent).
	ErrPermission Kind = "permission denied"
	// ErrNotRegular is a path that is not a regular file: a directory given
	// to File, a named pipe, a device, a socket (permanent).
	ErrNotRegular Kind = "not a regular file"
	// ErrIO is a read that failed part way (retryable).
	ErrIO Kind = "i/o error"
)

// Error is the error File, Reader and Tree return. Its message is
// "audit: <Op> <Path>: <Kind>: <cause>".
type Error struct {
	Op   string // config, stat, open, read
	Path string // the file or directory concerned ("" for config)
	Kind Kind
	Err  error // the cause, may be nil
}

// Error formats the operation, path, kind and cause.
func (e *Error) Error() string {
	msg := "audit: " + e.Op
	if e.Path != "" {
		msg += " " + e.Path
	}
	msg += ": " + string(e.Kind)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the Kind and the cause, so errors.Is sees both.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Retryable reports whether the failure may go away (see Kind.Retryable).
func (e *Error) Retryable() bool { return e.Kind.Retryable() }

// classify maps an os error to its Kind.
func classify(err error) Kind {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ErrNotFound
	case errors.Is(err, fs.ErrPermission):
		return ErrPermission
	case errors.Is(err, syscall.EISDIR):
		return ErrNotRegular
	}
	return ErrIO
}

// cause returns the innermost message of an os error ("permission
// denied"), the form used in a report's Problems.
func cause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
