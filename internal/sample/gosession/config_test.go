package gosession

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/pricing"
)

func TestDefaultConfig(t *testing.T) {
	cfg := DefaultConfig()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, 10, cfg.Sessions)
	assert.True(t, cfg.Faults)
	assert.Equal(t, cfg.Start, cfg.Start.Truncate(time.Second))
	assert.WithinDuration(t, time.Now().Add(-2*time.Hour), cfg.Start, time.Minute)
	cfg.Models[0] = "changed"
	assert.Equal(t, "claude-sonnet-4-5-20250929", DefaultModels[0], "DefaultConfig copies the models")

	fx := FixtureConfig()
	require.NoError(t, fx.Validate())
	assert.Equal(t, time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC), fx.Start)
	assert.Equal(t, MinFaultSessions+1, fx.Sessions, "the fixture has a clean session too")
}

// TestDefaultModelsArePriced: the built-in price table covers every
// default model.
func TestDefaultModelsArePriced(t *testing.T) {
	table := pricing.Default()
	for _, m := range DefaultModels {
		_, ok := table.Lookup("", m)
		assert.True(t, ok, m)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"zero sessions", func(c *Config) { c.Sessions = 0 }, "Sessions"},
		{"too few sessions for faults", func(c *Config) { c.Sessions = MinFaultSessions - 1 }, "Sessions"},
		{"too many sessions", func(c *Config) { c.Sessions = MaxSessions + 1 }, "Sessions"},
		{"zero start", func(c *Config) { c.Start = time.Time{} }, "Start"},
		{"start before 1970", func(c *Config) { c.Start = time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC) }, "Start"},
		{"no models", func(c *Config) { c.Models = nil }, "Models"},
		{"empty model", func(c *Config) { c.Models = []string{"a", ""} }, "Models[1]"},
		{"duplicate model", func(c *Config) { c.Models = []string{"a", "b", "a"} }, "Models[2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := FixtureConfig()
			tt.edit(&cfg)
			c, err := Generate(cfg)
			assert.Nil(t, c)
			var ce *sample.ConfigError
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, tt.field, ce.Field)
			assert.False(t, ce.Retryable())
		})
	}
	one := FixtureConfig()
	one.Sessions, one.Faults = 1, false
	assert.NoError(t, one.Validate(), "without faults one session is enough")
}
