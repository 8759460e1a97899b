package audit

import (
	"fmt"

	"github.com/journalship/journalship/format/registry"
)

// Defaults, from the seed.
const (
	// DefaultCorruptionThreshold is the seed's CORRUPTION_RATIO_THRESHOLD.
	DefaultCorruptionThreshold = 0.1
	// DefaultFileSizeAlert is the seed's per-file alert (10 MB, read as MiB).
	DefaultFileSizeAlert = 10 << 20
	// DefaultJobDirSizeAlert is the seed's per-job-directory alert (50 MiB).
	DefaultJobDirSizeAlert = 50 << 20
	// DefaultMaxLineBytes bounds the memory one line may take.
	DefaultMaxLineBytes = 16 << 20
	// DefaultMaxDetails bounds each detail list of a report.
	DefaultMaxDetails = 20
)

// Limits enforced by Config.Validate.
const (
	minMaxLineBytes = 1 << 10
	maxMaxLineBytes = 1 << 30
)

// Config tunes an audit.
type Config struct {
	// CorruptionThreshold: a file whose corrupt lines are more than this
	// fraction of its non-empty lines is not used for recovery (and is
	// Corrupt). Default 0.1, the seed's.
	CorruptionThreshold float64
	// FileSizeAlert: a file larger than this gets SizeAlert. Default 10 MiB.
	FileSizeAlert int64
	// JobDirSizeAlert: a job directory whose audited files sum to more than
	// this gets SizeAlert. Default 50 MiB.
	JobDirSizeAlert int64
	// MaxLineBytes: a longer line is reported as a problem and counted as
	// an invalid line; it is never held in memory whole. Default 16 MiB.
	MaxLineBytes int
	// MaxDetails bounds each list of details in a report (corrupt lines,
	// schema-invalid lines, seq gaps, problems); the counts stay exact.
	// Default 20.
	MaxDetails int
	// Formats says how each file's format is found and judged (the
	// plugin's Format, Format_Roots and Known_Schema_Versions).
	Formats registry.Config
	// Redact, when set, replaces the secrets of a line before its preview
	// is taken (the finalizer ships the report): a preview cut inside a
	// secret would leave its start, too short for its rule.
	Redact func(line []byte) []byte
}

// DefaultConfig returns the seed's thresholds.
func DefaultConfig() Config {
	return Config{
		CorruptionThreshold: DefaultCorruptionThreshold,
		FileSizeAlert:       DefaultFileSizeAlert,
		JobDirSizeAlert:     DefaultJobDirSizeAlert,
		MaxLineBytes:        DefaultMaxLineBytes,
		MaxDetails:          DefaultMaxDetails,
		Formats:             registry.DefaultConfig(),
	}
}

// Validate reports the first setting that cannot work, as an *Error of
// kind ErrInvalid.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return &Error{Op: "config", Kind: ErrInvalid, Err: fmt.Errorf(format, args...)}
	}
	switch {
	case !(c.CorruptionThreshold >= 0 && c.CorruptionThreshold <= 1):
		return bad("CorruptionThreshold %v is outside [0, 1]", c.CorruptionThreshold)
	case c.FileSizeAlert <= 0:
		return bad("FileSizeAlert %d is not positive", c.FileSizeAlert)
	case c.JobDirSizeAlert <= 0:
		return bad("JobDirSizeAlert %d is not positive", c.JobDirSizeAlert)
	case c.MaxLineBytes < minMaxLineBytes || c.MaxLineBytes > maxMaxLineBytes:
		return bad("MaxLineBytes %d is outside [%d, %d]", c.MaxLineBytes, minMaxLineBytes, maxMaxLineBytes)
	case c.MaxDetails < 0:
		return bad("MaxDetails %d is negative", c.MaxDetails)
	}
	if err := c.Formats.Validate(); err != nil {
		return &Error{Op: "config", Kind: ErrInvalid, Err: err}
	}
	return nil
}
