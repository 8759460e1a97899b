package orbitmesh

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

func TestDefaultConfig(t *testing.T) {
	cfg := DefaultConfig()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, int64(1), cfg.Seed)
	assert.Equal(t, 10, cfg.Sessions)
	assert.True(t, cfg.Faults)
	assert.Equal(t, DefaultModels, cfg.Models)
	assert.Equal(t, cfg.Start, cfg.Start.Truncate(time.Second))
	assert.WithinDuration(t, time.Now().Add(-2*time.Hour), cfg.Start, time.Minute)
	cfg.Models[0] = "changed"
	assert.Equal(t, "gpt-5.3-codex", DefaultModels[0], "DefaultConfig copies the models")

	fix := FixtureConfig()
	require.NoError(t, fix.Validate())
	assert.Equal(t, 2026, fix.Start.Year())
	assert.Equal(t, fix, FixtureConfig(), "the fixture is fixed")
}

func TestConfigValidate(t *testing.T) {
	valid := FixtureConfig()
	tests := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"zero sessions", func(c *Config) { c.Sessions, c.Faults = 0, false }, "Sessions"},
		{"negative sessions", func(c *Config) { c.Sessions = -1 }, "Sessions"},
		{"too few sessions for faults", func(c *Config) { c.Sessions = MinFaultSessions - 1 }, "Sessions"},
		{"too many sessions", func(c *Config) { c.Sessions = MaxSessions + 1 }, "Sessions"},
		{"zero start", func(c *Config) { c.Start = time.Time{} }, "Start"},
		{"start before 1970", func(c *Config) { c.Start = time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC) }, "Start"},
		{"start after 9000", func(c *Config) { c.Start = time.Date(9001, 1, 1, 0, 0, 0, 0, time.UTC) }, "Start"},
		{"no models", func(c *Config) { c.Models = nil }, "Models"},
		{"empty model", func(c *Config) { c.Models = []string{"a", ""} }, "Models[1]"},
		{"duplicate model", func(c *Config) { c.Models = []string{"a", "b", "a"} }, "Models[2]"},
		{"long model", func(c *Config) { c.Models = []string{strings.Repeat("m", sample.MaxModelLen+1)} }, "Models[0]"},
		{"bad utf8 model", func(c *Config) { c.Models = []string{"\xff"} }, "Models[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := valid
			cfg.Models = append([]string(nil), valid.Models...)
			tt.edit(&cfg)
			err := cfg.Validate()
			var ce *sample.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.field, ce.Field)
			assert.False(t, ce.Retryable())
			assert.Contains(t, err.Error(), tt.field)

			c, gerr := Generate(cfg)
			assert.Nil(t, c, "Generate refuses an invalid config")
			assert.Equal(t, err, gerr)
		})
	}
}

func TestConfigValidateEdges(t *testing.T) {
	cfg := FixtureConfig()
	cfg.Faults, cfg.Sessions = false, 1
	assert.NoError(t, cfg.Validate(), "one clean session is fine")
	cfg.Faults, cfg.Sessions = true, MinFaultSessions
	assert.NoError(t, cfg.Validate())
	cfg.Sessions = MaxSessions
	assert.NoError(t, cfg.Validate())
	cfg.Models = []string{strings.Repeat("m", sample.MaxModelLen)}
	assert.NoError(t, cfg.Validate())
}
