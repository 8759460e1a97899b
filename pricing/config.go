package pricing

import (
	"errors"
	"fmt"
	"time"
)

// Config says where the price table comes from.
type Config struct {
	// Path is the YAML price table; "" means the built-in table.
	Path string
	// ReloadInterval is how often the file is checked for changes.
	ReloadInterval time.Duration
}

// DefaultConfig returns the built-in table, checked every 10 s.
func DefaultConfig() Config {
	return Config{ReloadInterval: 10 * time.Second}
}

// Validate checks the interval.
func (c Config) Validate() error {
	if c.ReloadInterval < 100*time.Millisecond {
		return fmt.Errorf("pricing: reload interval %s is below 100ms", c.ReloadInterval)
	}
	return nil
}

// TableError is a price table that cannot be used, with the reason. It is
// permanent: the same bytes always fail.
type TableError struct {
	Source string // file path or "built-in"
	Err    error
}

func (e *TableError) Error() string { return fmt.Sprintf("pricing: %s: %v", e.Source, e.Err) }
func (e *TableError) Unwrap() error { return e.Err }

// Permanent is always true: only a changed file can fix it.
func (e *TableError) Permanent() bool { return true }

var errNoModels = errors.New("no models")
