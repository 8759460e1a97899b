package retention

import (
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/journalship/journalship/format/registry"
)

// Defaults of docs/formats/cortex-plane.md, section 5 (post-terminal retention, max file age).
const (
	DefaultRoot         = "/data/sessions"
	DefaultPostTerminal = 24 * time.Hour
	DefaultMaxAge       = 7 * 24 * time.Hour
	DefaultInterval     = 10 * time.Minute
	// DefaultQuietPeriod is the finalizer's default StaleAfter.
	DefaultQuietPeriod = 10 * time.Minute
)

// Config tunes the retention agent.
type Config struct {
	// Root is the sessions directory, <Root>/<job_id>/<file>.jsonl. It must
	// be absolute, not "/", and spelled as Fluent Bit's tail reports paths
	// (the ledger is keyed by those paths). Default /data/sessions.
	Root string
	// PostTerminal is how long a terminal job's files are kept after its
	// finished_at. Default 24h.
	PostTerminal time.Duration
	// MaxAge is the safety net: a file whose mtime is older is a candidate
	// whatever its job's state. Default 168h.
	MaxAge time.Duration
	// QuietPeriod: a file modified less than this long ago is never
	// deleted, whatever its job's state, and a job is not over while one
	// of its files is (a runtime may still append to an older session).
	// At least the finalizer's StaleAfter. Default 10m.
	QuietPeriod time.Duration
	// ForceMaxAge deletes files past MaxAge even when the ledger does not
	// account for them (their unshipped bytes are lost; logged as such).
	ForceMaxAge bool
	// DryRun decides without side effects: nothing is finalized, shipped,
	// deleted or forgotten; the report says what would be deleted and why.
	DryRun bool
	// Interval is the time between sweeps of Run. Default 10m.
	Interval time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Log receives log lines (Fluent Bit's format). Default os.Stderr.
	Log io.Writer
	// Formats finds each journal's format (the plugin's Format and
	// Format_Roots): a tree whose journals are each their own group (one
	// file per run) is swept file by file, by each run's own end.
	Formats registry.Config
	// BeforeRelist, when set, runs after a job's files were handled and
	// before its directory is listed again to decide whether it is empty.
	// Tests use it to add a file mid-sweep.
	BeforeRelist func(jobDir string)
}

// DefaultConfig returns the seed's defaults.
func DefaultConfig() Config {
	return Config{Root: DefaultRoot, PostTerminal: DefaultPostTerminal, MaxAge: DefaultMaxAge,
		QuietPeriod: DefaultQuietPeriod, Interval: DefaultInterval, Now: time.Now, Log: os.Stderr,
		Formats: registry.DefaultConfig()}
}

// Validate checks the configuration; the error is a *ConfigError.
func (c Config) Validate() error {
	switch {
	case c.Root == "" || !filepath.IsAbs(c.Root):
		return &ConfigError{"Root", c.Root, "must be an absolute directory"}
	case filepath.Clean(c.Root) == "/":
		return &ConfigError{"Root", c.Root, "must not be /"}
	case c.PostTerminal < 0:
		return &ConfigError{"PostTerminal", c.PostTerminal.String(), "must be >= 0"}
	case c.QuietPeriod < 0:
		return &ConfigError{"QuietPeriod", c.QuietPeriod.String(), "must be >= 0"}
	case c.MaxAge <= 0:
		return &ConfigError{"MaxAge", c.MaxAge.String(), "must be > 0"}
	case c.Interval <= 0:
		return &ConfigError{"Interval", c.Interval.String(), "must be > 0"}
	case c.Now == nil:
		return &ConfigError{"Now", "nil", "a clock is required"}
	case c.Log == nil:
		return &ConfigError{"Log", "nil", "a log writer is required"}
	}
	return nil
}
