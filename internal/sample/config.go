package sample

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// Limits enforced by [Config.Validate].
const (
	// MinFaultJobs is the fewest jobs that hold every fault scenario.
	MinFaultJobs = 4
	// MaxJobs bounds the corpus size.
	MaxJobs = 10000
	// MaxModelLen bounds a model identifier's length in bytes (every
	// generator's).
	MaxModelLen = 200
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

// Validate reports the first invalid field as a *ConfigError.
func (c Config) Validate() error {
	minJobs := 1
	if c.Faults {
		minJobs = MinFaultJobs
	}
	return ValidateShape("Jobs", c.Jobs, minJobs, MaxJobs, c.Start, c.Models)
}

// ValidateShape checks what every generator's Config holds: a count
// (named field) within [min, max], a start time in years [1970, 9000] and
// the model list. It reports the first invalid field as a *ConfigError.
func ValidateShape(field string, n, min, max int, start time.Time, models []string) error {
	if n < min || n > max {
		return &ConfigError{Field: field, Reason: fmt.Sprintf("%d is outside [%d, %d]", n, min, max)}
	}
	if start.IsZero() {
		return &ConfigError{Field: "Start", Reason: "is zero"}
	}
	if y := start.UTC().Year(); y < 1970 || y > 9000 {
		return &ConfigError{Field: "Start", Reason: fmt.Sprintf("year %d is outside [1970, 9000]", y)}
	}
	return validateModels(models)
}

func validateModels(models []string) error {
	if len(models) == 0 {
		return &ConfigError{Field: "Models", Reason: "is empty"}
	}
	seen := make(map[string]bool, len(models))
	for i, m := range models {
		switch {
		case m == "":
			return &ConfigError{Field: fmt.Sprintf("Models[%d]", i), Reason: "is empty"}
		case len(m) > MaxModelLen:
			return &ConfigError{Field: fmt.Sprintf("Models[%d]", i), Reason: fmt.Sprintf("is longer than %d bytes", MaxModelLen)}
		case !utf8.ValidString(m):
			return &ConfigError{Field: fmt.Sprintf("Models[%d]", i), Reason: "is not valid UTF-8"}
		case seen[m]:
			return &ConfigError{Field: fmt.Sprintf("Models[%d]", i), Reason: fmt.Sprintf("duplicates %q", m)}
		}
		seen[m] = true
	}
	return nil
}
