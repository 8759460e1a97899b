package cortex

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Limits enforced by [Config.Validate].
const (
	// MinFaultJobs is the fewest jobs that hold every fault scenario.
	MinFaultJobs = 4
	// MaxJobs bounds the corpus size.
	MaxJobs = 10000
)

// DefaultModels are the models used when none are configured.
var DefaultModels = []string{
	"claude-sonnet-4-5-20250929",
	"gpt-4.1-2025-04-14",
	"gemini-2.5-pro",
}

// Config controls what [Generate] produces. The same Config always yields
// the same bytes.
type Config struct {
	Seed   int64     // seeds every random choice
	Jobs   int       // number of jobs; at least MinFaultJobs when Faults
	Start  time.Time // timestamp of the first event (kept to the millisecond, UTC)
	Models []string  // model identifiers; job i mostly uses Models[i%len]
	Faults bool      // include the fault scenarios (see the package doc)
}

// DefaultConfig returns 6 jobs with faults, the default models, seed 1 and a
// start two hours before now, truncated to the second.
func DefaultConfig() Config {
	return Config{
		Seed:   1,
		Jobs:   6,
		Start:  time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second),
		Models: append([]string(nil), DefaultModels...),
		Faults: true,
	}
}

// FixtureConfig is the configuration of the golden corpus kept under
// testdata/: Generate(FixtureConfig()) reproduces it byte for byte.
func FixtureConfig() Config {
	return Config{
		Seed:   1,
		Jobs:   5,
		Start:  time.Date(2026, 2, 23, 14, 30, 22, 0, time.UTC),
		Models: append([]string(nil), DefaultModels...),
		Faults: true,
	}
}

// Validate reports the first invalid field as a *sample.ConfigError.
func (c Config) Validate() error {
	minJobs := 1
	if c.Faults {
		minJobs = MinFaultJobs
	}
	return sample.ValidateShape("Jobs", c.Jobs, minJobs, MaxJobs, c.Start, c.Models)
}
