package claudecode

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Limits enforced by [Config.Validate].
const (
	// MinFaultSessions is the fewest sessions that hold every fault
	// scenario: sessions 0 to MinFaultSessions-1 (see the package doc).
	MinFaultSessions = 8
	// MaxSessions bounds the corpus size.
	MaxSessions = 2000
)

// DefaultModels are the models used when none are configured: Claude
// models of journalship's built-in price table (pricing/default_prices.yaml).
var DefaultModels = []string{
	"claude-sonnet-4-5-20250929",
	"claude-opus-4-6",
	"claude-haiku-4-5-20251001",
	"claude-sonnet-4-6",
}

// Config controls what [Generate] produces. The same Config always yields
// the same bytes.
type Config struct {
	Seed     int64     // seeds every random choice
	Sessions int       // number of sessions (main transcripts); at least MinFaultSessions when Faults
	Start    time.Time // time of the first line (kept to the millisecond, UTC)
	Models   []string  // model identifiers; session i starts with Models[i%len]
	Faults   bool      // include the fault sessions (see the package doc)
}

// DefaultConfig returns 12 sessions (the eight fault sessions and four
// clean ones), the default models, seed 1 and a start two hours before
// now, truncated to the second.
func DefaultConfig() Config {
	return Config{
		Seed:     1,
		Sessions: MinFaultSessions + 5,
		Start:    time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second),
		Models:   append([]string(nil), DefaultModels...),
		Faults:   true,
	}
}

// FixtureConfig is the configuration of the golden corpus kept under
// testdata/: Generate(FixtureConfig()) reproduces it byte for byte.
func FixtureConfig() Config {
	return Config{
		Seed:     1,
		Sessions: MinFaultSessions + 1,
		Start:    time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC),
		Models:   append([]string(nil), DefaultModels...),
		Faults:   true,
	}
}

// Validate reports the first invalid field as a *sample.ConfigError.
func (c Config) Validate() error {
	minSessions := 1
	if c.Faults {
		minSessions = MinFaultSessions
	}
	return sample.ValidateShape("Sessions", c.Sessions, minSessions, MaxSessions, c.Start, c.Models)
}
