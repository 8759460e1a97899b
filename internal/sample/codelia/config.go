package codelia

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/journalship/journalship/internal/sample"
)

// Limits enforced by [Config.Validate].
const (
	// MinFaultRuns is the fewest runs that hold every fault scenario: runs
	// 0 to MinFaultRuns-1 are the fault runs (see the package doc).
	MinFaultRuns = 6
	// MaxRuns bounds the corpus size.
	MaxRuns = 10000
	// maxModelLen bounds a model identifier's length in bytes.
	maxModelLen = 200
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
	if c.Runs < minRuns || c.Runs > MaxRuns {
		return &sample.ConfigError{Field: "Runs", Reason: fmt.Sprintf("%d is outside [%d, %d]", c.Runs, minRuns, MaxRuns)}
	}
	if c.Start.IsZero() {
		return &sample.ConfigError{Field: "Start", Reason: "is zero"}
	}
	if y := c.Start.UTC().Year(); y < 1970 || y > 9000 {
		return &sample.ConfigError{Field: "Start", Reason: fmt.Sprintf("year %d is outside [1970, 9000]", y)}
	}
	return validateModels(c.Models)
}

func validateModels(models []string) error {
	if len(models) == 0 {
		return &sample.ConfigError{Field: "Models", Reason: "is empty"}
	}
	seen := make(map[string]bool, len(models))
	for i, m := range models {
		field := fmt.Sprintf("Models[%d]", i)
		switch {
		case m == "":
			return &sample.ConfigError{Field: field, Reason: "is empty"}
		case len(m) > maxModelLen:
			return &sample.ConfigError{Field: field, Reason: fmt.Sprintf("is longer than %d bytes", maxModelLen)}
		case !utf8.ValidString(m):
			return &sample.ConfigError{Field: field, Reason: "is not valid UTF-8"}
		case seen[m]:
			return &sample.ConfigError{Field: field, Reason: fmt.Sprintf("duplicates %q", m)}
		}
		seen[m] = true
	}
	return nil
}
