package chunk

import (
	"fmt"
	"strconv"
)

// ConfigError reports an invalid Config field. It is permanent.
type ConfigError struct {
	Field  string
	Reason string
}

// Error implements error.
func (e *ConfigError) Error() string {
	return "chunk: config " + e.Field + " " + e.Reason
}

// Permanent reports true: a bad configuration does not fix itself.
func (e *ConfigError) Permanent() bool { return true }

// DecodeError reports a structurally broken chunk: truncated, not an array,
// wrong arity, bad time. Retrying the same bytes cannot help, so it is
// permanent. The events before Index were decoded and delivered.
type DecodeError struct {
	// Index is the ordinal (0-based) of the broken event in the chunk.
	Index int
	// Start is the byte position in the chunk where the broken event begins.
	Start int
	// Reason says what is wrong, e.g. "truncated in record map".
	Reason string
	// Err is the underlying msgp error, if any.
	Err error
}

// Error implements error; it names the event index and byte position.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("chunk: event %d at byte %d: %s", e.Index, e.Start, e.Reason)
}

// Unwrap returns the underlying msgp error, if any.
func (e *DecodeError) Unwrap() error { return e.Err }

// Permanent reports true: the same bytes will always fail the same way.
func (e *DecodeError) Permanent() bool { return true }

func quote(s string) string { return strconv.Quote(s) }
