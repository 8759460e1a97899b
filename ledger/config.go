package ledger

import (
	"fmt"
	"strings"
	"time"
)

// DefaultPath is where the ledger lives unless configured otherwise.
const DefaultPath = "/var/lib/journalship/ledger.db"

// DefaultBusyTimeout is how long a write waits for another process's write
// lock before it fails with a retryable [ErrBusy].
const DefaultBusyTimeout = 10 * time.Second

// Config says where the ledger is and how long to wait for locks.
type Config struct {
	// Path is the SQLite file, e.g. /var/lib/journalship/ledger.db. Its
	// directory is created (mode 0750) if missing. Relative paths are
	// resolved against the working directory at [Open].
	Path string
	// BusyTimeout is how long a statement waits for a lock held by another
	// process before failing with [ErrBusy]. Zero means
	// [DefaultBusyTimeout]; it is rounded up to whole milliseconds.
	BusyTimeout time.Duration
	// ReadOnly opens an existing ledger for reading only: nothing is
	// created (no directory, file or schema) and every write fails with
	// [ErrUnusable]. A ledger that does not exist is an [ErrNotExist].
	// For dry runs and reports, which must write nothing.
	ReadOnly bool
}

// DefaultConfig returns a Config with DefaultPath and DefaultBusyTimeout.
func DefaultConfig() Config {
	return Config{Path: DefaultPath, BusyTimeout: DefaultBusyTimeout}
}

// Validate reports the first problem of c as an *Error of kind ErrInvalid.
func (c Config) Validate() error {
	switch {
	case c.Path == "":
		return invalid("config", "", fmt.Errorf("Path is empty"))
	case strings.IndexByte(c.Path, 0) >= 0:
		return invalid("config", c.Path, fmt.Errorf("Path contains a NUL byte"))
	case c.BusyTimeout < 0:
		return invalid("config", c.Path, fmt.Errorf("BusyTimeout %v is negative", c.BusyTimeout))
	}
	return nil
}

// withDefaults fills the zero fields of c.
func (c Config) withDefaults() Config {
	if c.BusyTimeout == 0 {
		c.BusyTimeout = DefaultBusyTimeout
	}
	return c
}

// busyMillis is BusyTimeout in whole milliseconds, at least 1.
func (c Config) busyMillis() int64 {
	ms := (c.BusyTimeout + time.Millisecond - 1) / time.Millisecond
	return max(int64(ms), 1)
}
