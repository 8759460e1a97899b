package pricing

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultTablePricesTheSampleModels(t *testing.T) {
	tab := Default()
	for model, want := range map[string]Price{
		"claude-sonnet-4-5-20250929": {Model: "claude-sonnet-4-5", InputPerMillion: 3, OutputPerMillion: 15,
			CacheReadPerMillion: 0.3, HasCacheRead: true, CacheWritePerMillion: 3.75, HasCacheWrite: true,
			CacheWrite1hPerMillion: 6, HasCacheWrite1h: true},
		"claude-sonnet-4-20250514": {Model: "claude-sonnet-4", InputPerMillion: 3, OutputPerMillion: 15,
			CacheReadPerMillion: 0.3, HasCacheRead: true, CacheWritePerMillion: 3.75, HasCacheWrite: true,
			CacheWrite1hPerMillion: 6, HasCacheWrite1h: true},
		"gpt-4.1-2025-04-14": {Model: "gpt-4.1", InputPerMillion: 2, OutputPerMillion: 8,
			CacheReadPerMillion: 0.5, HasCacheRead: true},
		"gpt-4.1-mini-2025-04-14": {Model: "gpt-4.1-mini", InputPerMillion: 0.4, OutputPerMillion: 1.6,
			CacheReadPerMillion: 0.1, HasCacheRead: true},
		"gemini-2.5-pro": {Model: "gemini-2.5-pro", InputPerMillion: 1.25, OutputPerMillion: 10,
			CacheReadPerMillion: 0.125, HasCacheRead: true},
		// Codex CLI's models, as its rollouts name them.
		"gpt-5-codex":   {Model: "gpt-5", InputPerMillion: 1.25, OutputPerMillion: 10, CacheReadPerMillion: 0.125, HasCacheRead: true},
		"gpt-5.3-codex": {Model: "gpt-5.2", InputPerMillion: 1.75, OutputPerMillion: 14, CacheReadPerMillion: 0.175, HasCacheRead: true},
		"gpt-5.5":       {Model: "gpt-5.5", InputPerMillion: 5, OutputPerMillion: 30, CacheReadPerMillion: 0.5, HasCacheRead: true},
	} {
		got, ok := tab.Lookup("", model)
		require.True(t, ok, model)
		assert.Equal(t, want, got, model)
	}
	for _, model := range []string{"llama-3-70b", "gpt-4", "claude-sonnet-4-5x", "gpt-5.1-codex-mini", ""} {
		_, ok := tab.Lookup("", model)
		assert.False(t, ok, "%q must not be guessed", model)
	}
}

func TestLookupOrderAndTenants(t *testing.T) {
	data, err := os.ReadFile("testdata/tenants.yaml")
	require.NoError(t, err)
	tab, err := Parse(data)
	require.NoError(t, err)
	cases := []struct{ tenant, model, want string }{
		{"", "claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"", "claude-sonnet-4-5-long-1m", "claude-sonnet-4-5-long"}, // longer literal prefix wins
		{"", "gpt-4.1-2025-04-14", "gpt-4.1-2025-04-14"},
		{"acme", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5-acme"}, // the tenant's entry first
		{"acme", "gpt-4.1-2025-04-14", "gpt-4.1-2025-04-14"},             // then the table's
		{"other", "claude-sonnet-4-5", "claude-sonnet-4-5"},
	}
	for _, c := range cases {
		p, ok := tab.Lookup(c.tenant, c.model)
		require.True(t, ok, "%s/%s", c.tenant, c.model)
		assert.Equal(t, c.want, p.Model, "%s/%s", c.tenant, c.model)
	}
	assert.Equal(t, []string{"claude-sonnet-4-5", "claude-sonnet-4-5-acme", "claude-sonnet-4-5-long", "gpt-4.1-2025-04-14"}, tab.Models())
}

func TestCost(t *testing.T) {
	p := Price{InputPerMillion: 3, OutputPerMillion: 15}
	assert.InDelta(t, 0.0045+0.0075, p.Cost(1500, 500), 1e-15)
	assert.Zero(t, p.Cost(0, 0))
	var nilTable *Table
	_, ok := nilTable.Lookup("", "x")
	assert.False(t, ok)
}

func TestParseRefusesBadTables(t *testing.T) {
	cases := map[string]string{
		"unknown key":       "models:\n  m: {input_usd_per_million: 1, output_usd_per_million: 2, currency: EUR}\n",
		"typo at top":       "model:\n  m: {input_usd_per_million: 1, output_usd_per_million: 2}\n",
		"missing output":    "models:\n  m: {input_usd_per_million: 1}\n",
		"negative":          "models:\n  m: {input_usd_per_million: -1, output_usd_per_million: 2}\n",
		"not a number":      "models:\n  m: {input_usd_per_million: cheap, output_usd_per_million: 2}\n",
		"nan":               "models:\n  m: {input_usd_per_million: .nan, output_usd_per_million: 2}\n",
		"no models":         "tenants: {}\n",
		"empty":             "",
		"bad glob":          "models:\n  m: {match: [\"m[\"], input_usd_per_million: 1, output_usd_per_million: 2}\n",
		"empty pattern":     "models:\n  m: {match: [\"\"], input_usd_per_million: 1, output_usd_per_million: 2}\n",
		"claimed twice":     "models:\n  a: {match: [x], input_usd_per_million: 1, output_usd_per_million: 2}\n  b: {match: [x], input_usd_per_million: 1, output_usd_per_million: 2}\n",
		"bad tenant":        "models:\n  m: {input_usd_per_million: 1, output_usd_per_million: 2}\ntenants:\n  t: {models: {m: {input_usd_per_million: 1}}}\n",
		"not yaml":          "models: [\n",
		"tenant typo field": "models:\n  m: {input_usd_per_million: 1, output_usd_per_million: 2}\ntenants:\n  t: {model: {}}\n",
	}
	for name, doc := range cases {
		_, err := Parse([]byte(doc))
		assert.Error(t, err, name)
	}
}

func TestModelsForATenant(t *testing.T) {
	data, err := os.ReadFile("testdata/tenants.yaml")
	require.NoError(t, err)
	tab, err := Parse(data)
	require.NoError(t, err)
	assert.Equal(t, []string{"claude-sonnet-4-5", "claude-sonnet-4-5-acme", "claude-sonnet-4-5-long", "gpt-4.1-2025-04-14"}, tab.ModelsFor("acme"))
	assert.Equal(t, []string{"claude-sonnet-4-5", "claude-sonnet-4-5-long", "gpt-4.1-2025-04-14"}, tab.ModelsFor("other"))
}

func TestNamesIsFiniteEntriesAndExactIds(t *testing.T) {
	tab, err := Parse([]byte(`
models:
  claude-sonnet-4-5:
    match: ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5-*"]
    input_usd_per_million: 3
    output_usd_per_million: 15
  gpt-4.1: {input_usd_per_million: 2, output_usd_per_million: 8}
tenants:
  acme:
    models:
      gpt-4.1-acme: {match: ["gpt-4.1-mini"], input_usd_per_million: 1, output_usd_per_million: 4}
`))
	require.NoError(t, err)
	for _, m := range []string{"claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "gpt-4.1"} {
		assert.True(t, tab.Names("", m), m)
		assert.True(t, tab.Names("acme", m), m)
	}
	_, priced := tab.Lookup("", "claude-sonnet-4-5-x")
	assert.True(t, priced)
	assert.False(t, tab.Names("", "claude-sonnet-4-5-x"), "priced by a glob only: not named")
	assert.True(t, tab.Names("acme", "gpt-4.1-acme"))
	assert.True(t, tab.Names("acme", "gpt-4.1-mini"))
	assert.False(t, tab.Names("other", "gpt-4.1-acme"), "another tenant's entry")
	assert.False(t, tab.Names("", "unknown-model"))
	assert.False(t, (*Table)(nil).Names("", "gpt-4.1"))
	assert.Zero(t, testing.AllocsPerRun(100, func() { tab.Names("acme", "gpt-4.1-mini") }))
}
