package cortex

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
	assert.Equal(t, 6, cfg.Jobs)
	assert.True(t, cfg.Faults)
	assert.Equal(t, DefaultModels, cfg.Models)
	assert.Equal(t, cfg.Start, cfg.Start.Truncate(time.Second))
	assert.WithinDuration(t, time.Now().Add(-2*time.Hour), cfg.Start, time.Minute)
	cfg.Models[0] = "changed"
	assert.Equal(t, "claude-sonnet-4-5-20250929", DefaultModels[0], "DefaultConfig copies the models")
	require.NoError(t, FixtureConfig().Validate())
}

func TestConfigValidate(t *testing.T) {
	valid := FixtureConfig()
	tests := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"zero jobs", func(c *Config) { c.Jobs = 0 }, "Jobs"},
		{"too few jobs for faults", func(c *Config) { c.Jobs = MinFaultJobs - 1 }, "Jobs"},
		{"too many jobs", func(c *Config) { c.Jobs = MaxJobs + 1 }, "Jobs"},
		{"zero start", func(c *Config) { c.Start = time.Time{} }, "Start"},
		{"start before 1970", func(c *Config) { c.Start = time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC) }, "Start"},
		{"no models", func(c *Config) { c.Models = nil }, "Models"},
		{"empty model", func(c *Config) { c.Models = []string{"a", ""} }, "Models[1]"},
		{"duplicate model", func(c *Config) { c.Models = []string{"a", "a"} }, "Models[1]"},
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
		})
	}
}

func TestConfigValidateEdges(t *testing.T) {
	cfg := FixtureConfig()
	cfg.Faults, cfg.Jobs = false, 1
	assert.NoError(t, cfg.Validate(), "one clean job is fine")
	cfg.Faults, cfg.Jobs = true, MinFaultJobs
	assert.NoError(t, cfg.Validate())
}
