package claudecode

import (
	"strings"
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
	assert.Equal(t, MinFaultSessions+5, cfg.Sessions)
	assert.True(t, cfg.Faults)
	assert.Equal(t, int64(1), cfg.Seed)
	assert.Equal(t, DefaultModels, cfg.Models)
	assert.Equal(t, cfg.Start, cfg.Start.Truncate(time.Second))
	assert.WithinDuration(t, time.Now().Add(-2*time.Hour), cfg.Start, time.Minute)
	cfg.Models[0] = "changed"
	assert.Equal(t, "claude-sonnet-4-5-20250929", DefaultModels[0], "DefaultConfig copies the models")

	fx := FixtureConfig()
	require.NoError(t, fx.Validate())
	assert.Equal(t, 2026, fx.Start.Year())
	assert.True(t, fx.Faults)
	assert.Greater(t, fx.Sessions, MinFaultSessions, "the fixture has a clean session too")
}

// TestDefaultModelsArePriced: the built-in price table covers every
// default model, with the 1-hour cache-write price.
func TestDefaultModelsArePriced(t *testing.T) {
	table := pricing.Default()
	for _, m := range DefaultModels {
		p, ok := table.Lookup("", m)
		require.True(t, ok, m)
		assert.True(t, p.HasCacheWrite1h, m)
	}
}

func TestConfigValidate(t *testing.T) {
	valid := FixtureConfig()
	tests := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"zero sessions", func(c *Config) { c.Sessions = 0 }, "Sessions"},
		{"negative sessions", func(c *Config) { c.Sessions = -1 }, "Sessions"},
		{"too few sessions for faults", func(c *Config) { c.Sessions = MinFaultSessions - 1 }, "Sessions"},
		{"too many sessions", func(c *Config) { c.Sessions = MaxSessions + 1 }, "Sessions"},
		{"zero start", func(c *Config) { c.Start = time.Time{} }, "Start"},
		{"start after 9000", func(c *Config) { c.Start = time.Date(9001, 1, 1, 0, 0, 0, 0, time.UTC) }, "Start"},
		{"no models", func(c *Config) { c.Models = nil }, "Models"},
		{"empty model", func(c *Config) { c.Models = []string{"a", ""} }, "Models[1]"},
		{"duplicate model", func(c *Config) { c.Models = []string{"a", "b", "a"} }, "Models[2]"},
		{"long model", func(c *Config) { c.Models = []string{strings.Repeat("m", sample.MaxModelLen+1)} }, "Models[0]"},
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
			c, gerr := Generate(cfg)
			assert.Nil(t, c)
			require.ErrorAs(t, gerr, &ce, "Generate validates")
		})
	}
}

func TestConfigValidateEdges(t *testing.T) {
	cfg := FixtureConfig()
	cfg.Faults, cfg.Sessions = false, 1
	assert.NoError(t, cfg.Validate(), "one clean session is fine")
	cfg.Faults, cfg.Sessions = true, MinFaultSessions
	assert.NoError(t, cfg.Validate(), "exactly the fault sessions")
	cfg.Sessions = MaxSessions
	assert.NoError(t, cfg.Validate())
}
