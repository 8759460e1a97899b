package codex

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Limits enforced by [Config.Validate].
const (
	// MinFaultSessions is the fewest sessions that hold every fault
	// scenario: sessions 0 to MinFaultSessions-1 (see the package doc).
	MinFaultSessions = 5
	// MaxSessions bounds the corpus size.
	MaxSessions = 2000
)

// DefaultModels are the models used when none are configured: the models
// real rollouts show.
var DefaultModels = []string{"gpt-5.3-codex", "gpt-5-codex", "gpt-5.1-codex-max", "gpt-5"}

// Config controls what [Generate] produces. The same Config always yields
// the same bytes.
type Config struct {
	Seed     int64     // seeds every random choice
	Sessions int       // number of sessions; at least MinFaultSessions when Faults
	Start    time.Time // time of the first line (kept to the millisecond, UTC)
	Models   []string  // model identifiers; session i starts with Models[i%len]
	Faults   bool      // include the fault sessions (see the package doc)
}

// DefaultConfig returns 9 sessions (the five fault sessions and four
// clean ones), the default models, seed 1 and a start two hours before
// now, truncated to the second.
func DefaultConfig() Config {
	return Config{Seed: 1, Sessions: MinFaultSessions + 4,
		Start:  time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second),
		Models: append([]string(nil), DefaultModels...), Faults: true}
}

// FixtureConfig is a fixed configuration for tests that need the same
// corpus every time.
func FixtureConfig() Config {
	return Config{Seed: 1, Sessions: MinFaultSessions + 3, Start: time.Date(2026, 2, 23, 11, 0, 0, 0, time.UTC),
		Models: append([]string(nil), DefaultModels...), Faults: true}
}

// Validate reports the first invalid field as a *sample.ConfigError.
func (c Config) Validate() error {
	minSessions := 1
	if c.Faults {
		minSessions = MinFaultSessions
	}
	return sample.ValidateShape("Sessions", c.Sessions, minSessions, MaxSessions, c.Start, c.Models)
}
