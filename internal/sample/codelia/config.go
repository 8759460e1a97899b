package codelia

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Limits enforced by [Config.Validate].
const (
	// MinFaultRuns is the fewest runs that hold every fault scenario: runs
	// 0 to MinFaultRuns-1 are the fault runs (see the package doc).
	MinFaultRuns = 6
	// MaxRuns bounds the corpus size.
	MaxRuns = 10000
)

// DefaultModels are the models used when none are configured: an
// Anthropic model (exclusive input tokens, cache reads and writes), an
// OpenAI model (inclusive input tokens, cache reads only) and a Google
// model (inclusive input tokens, implicit cache reads at times).
var DefaultModels = []string{
	"claude-sonnet-4-5-20250929",
	"gpt-4.1-2025-04-14",
	"gemini-2.5-pro",
}

// Config controls what [Generate] produces. The same Config always yields
// the same bytes.
type Config struct {
	Seed   int64     // seeds every random choice
	Runs   int       // number of runs (files); at least MinFaultRuns when Faults
	Start  time.Time // started_at of the first run (kept to the millisecond, UTC)
	Models []string  // model identifiers; run i uses Models[i%len]
	Faults bool      // include the fault runs (see the package doc)
}

// DefaultConfig returns 8 runs (the six fault runs and two clean ones),
// the default models, seed 1 and a start two hours before now, truncated
// to the second.
func DefaultConfig() Config {
	return Config{
		Seed:   1,
		Runs:   MinFaultRuns + 2,
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
		Runs:   MinFaultRuns + 3,
		Start:  time.Date(2026, 2, 23, 14, 30, 22, 0, time.UTC),
		Models: append([]string(nil), DefaultModels...),
		Faults: true,
	}
}

// Validate reports the first invalid field as a *sample.ConfigError.
func (c Config) Validate() error {
	minRuns := 1
	if c.Faults {
		minRuns = MinFaultRuns
	}
	return sample.ValidateShape("Runs", c.Runs, minRuns, MaxRuns, c.Start, c.Models)
}
