package codelia

import (
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultConfig(t *testing.T) {
	cfg := DefaultConfig()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, MinFaultRuns+2, cfg.Runs)
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
	assert.Greater(t, fx.Runs, MinFaultRuns, "the fixture has clean runs too")
}

func TestDefaultModelsCoverCacheStyles(t *testing.T) {
	styles := map[cacheStyle]bool{}
	for _, m := range DefaultModels {
		styles[providerOf(m).style] = true
	}
	assert.True(t, styles[exclusive], "an Anthropic-style model with cache reads and writes")
	assert.True(t, styles[inclusive], "an OpenAI-style model")
}

func TestConfigValidate(t *testing.T) {
	valid := FixtureConfig()
	tests := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"zero runs", func(c *Config) { c.Runs = 0 }, "Runs"},
		{"negative runs", func(c *Config) { c.Runs = -1 }, "Runs"},
		{"too few runs for faults", func(c *Config) { c.Runs = MinFaultRuns - 1 }, "Runs"},
		{"too many runs", func(c *Config) { c.Runs = MaxRuns + 1 }, "Runs"},
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
			assert.NotEmpty(t, ce.Reason)
			assert.False(t, ce.Retryable())
			assert.Contains(t, err.Error(), tt.field)

			c, gerr := Generate(cfg)
			assert.Nil(t, c)
			require.ErrorAs(t, gerr, &ce, "Generate validates")
		})
	}
}

func TestConfigValidateEdges(t *testing.T) {
	cfg := FixtureConfig()
	cfg.Faults, cfg.Runs = false, 1
	assert.NoError(t, cfg.Validate(), "one clean run is fine")
	cfg.Faults, cfg.Runs = true, MinFaultRuns
	assert.NoError(t, cfg.Validate(), "exactly the fault runs")
	cfg.Runs = MaxRuns
	assert.NoError(t, cfg.Validate())
	cfg.Runs, cfg.Models = MinFaultRuns, []string{strings.Repeat("m", sample.MaxModelLen)}
	assert.NoError(t, cfg.Validate(), "a model of the longest length")
	cfg.Start = time.Date(1970, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))
	assert.Error(t, cfg.Validate(), "the start's year is read in UTC")
}
