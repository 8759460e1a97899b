package orbitmesh

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Limits enforced by [Config.Validate].
const (
	// MinFaultSessions is the fewest sessions that hold every fault
	// scenario (sessions 0 to 8, see the package documentation).
	MinFaultSessions = 9
	// MaxSessions bounds the corpus size.
	MaxSessions = 10000
)

// DefaultModels are the models used when none are configured; the first
// is the one of the OrbitMesh plan's example snapshot.
var DefaultModels = []string{
	"gpt-5.3-codex",
	"claude-sonnet-4-5-20250929",
	"gemini-2.5-pro",
}

// Config controls what [Generate] produces. The same Config always yields
// the same bytes.
type Config struct {
	Seed     int64     // seeds every random choice
	Sessions int       // number of sessions; at least MinFaultSessions when Faults
	Start    time.Time // time of the first record (kept to the millisecond, UTC)
	Models   []string  // model identifiers; session i uses Models[i%len]
	Faults   bool      // include the fault scenarios (see the package doc)
}

// DefaultConfig returns 10 sessions with faults, the default models, seed 1
// and a start two hours before now, truncated to the second.
func DefaultConfig() Config {
	return Config{
		Seed:     1,
		Sessions: 10,
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
		Sessions: 12,
		Start:    time.Date(2026, 2, 23, 14, 30, 22, 0, time.UTC),
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
