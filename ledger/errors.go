package ledger

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Kind classifies an *Error. Each Kind is itself an error, so callers can
// test with errors.Is(err, ledger.ErrBusy).
type Kind string

// Error returns the kind's description.
func (k Kind) Error() string { return string(k) }

// Retryable reports whether an operation that failed with this kind may
// succeed if repeated unchanged later.
func (k Kind) Retryable() bool {
	return k == ErrBusy || k == ErrIO || k == ErrCanceled
}

// The kinds of failure. ErrBusy, ErrIO and ErrCanceled are retryable; the
// others are permanent.
const (
	// ErrInvalid is a bad argument: empty path, Start < 0, End < Start,
	// negative Lines, a seq below -1, a bad Config.
	ErrInvalid Kind = "invalid argument"
	// ErrNotCovered is MarkFinished refusing because the shipped ranges do
	// not cover the file. It is permanent for that call; it may succeed once
	// more of the file has been recorded.
	ErrNotCovered Kind = "not covered"
	// ErrBusy is a database locked by another connection for longer than
	// BusyTimeout (SQLITE_BUSY, SQLITE_LOCKED, SQLITE_PROTOCOL).
	ErrBusy Kind = "database busy"
	// ErrIO is an I/O failure, a full disk or an out-of-memory condition.
	ErrIO Kind = "i/o error"
	// ErrCanceled is a context that ended before the operation completed;
	// nothing was committed.
	ErrCanceled Kind = "canceled"
	// ErrCorrupt is a database that is damaged or not an SQLite file.
	ErrCorrupt Kind = "database corrupt"
	// ErrUnusable is a database that cannot be opened or written
	// (permissions, read-only file system, no WAL support, another
	// application's database, a newer schema).
	ErrUnusable Kind = "database unusable"
	// ErrNotExist is a ReadOnly Open of a ledger file that does not exist.
	ErrNotExist Kind = "database does not exist"
	// ErrClosed is a call on a Ledger after its Close.
	ErrClosed Kind = "ledger closed"
	// ErrInternal is any other SQLite failure; it indicates a bug.
	ErrInternal Kind = "internal error"
)

// Error is the error every Ledger method returns. Its message is
// "ledger: <Op> <Path>: <Kind>: <cause>".
type Error struct {
	Op   string // the operation: open, record, file, files, covering, finish, forget, config
	Path string // the journal file concerned, or the database for open and config
	Kind Kind   // the classification
	Err  error  // the underlying cause, may be nil
}

// Error formats the operation, path, kind and cause.
func (e *Error) Error() string {
	msg := "ledger: " + e.Op
	if e.Path != "" {
		msg += " " + e.Path
	}
	msg += ": " + string(e.Kind)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the Kind and the cause, so errors.Is and errors.As see both.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Retryable reports whether the operation may succeed if repeated later.
func (e *Error) Retryable() bool { return e.Kind.Retryable() }

// IsRetryable reports whether err is, or wraps, an *Error that is retryable.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable()
}

// invalid builds an ErrInvalid error.
func invalid(op, path string, cause error) *Error {
	return &Error{Op: op, Path: path, Kind: ErrInvalid, Err: cause}
}

// wrap classifies err (nil stays nil; an *Error is returned unchanged).
func wrap(op, path string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Op: op, Path: path, Kind: classify(err), Err: err}
}

// kindOf is the Kind of an *Error, or the classification of another error.
func kindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return classify(err)
}

// classify maps a cause to a Kind.
func classify(err error) Kind {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ErrCanceled
	}
	if errors.Is(err, sql.ErrConnDone) {
		return ErrClosed
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return sqliteKind(se.Code())
	}
	if errors.Is(err, fs.ErrPermission) {
		return ErrUnusable
	}
	return ErrInternal
}

// sqliteKind maps an (extended) SQLite result code to a Kind.
func sqliteKind(code int) Kind {
	switch code & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_PROTOCOL:
		return ErrBusy
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_NOMEM:
		return ErrIO
	case sqlite3.SQLITE_INTERRUPT:
		return ErrCanceled
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return ErrCorrupt
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
		return ErrUnusable
	}
	return ErrInternal
}
