package pricing

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneModel parses a table of one entry m with the given extra keys.
func oneModel(extra string) ([]byte, string) {
	return []byte("models:\n  m: {input_usd_per_million: 2, output_usd_per_million: 8" + extra + "}\n"), "m"
}

func TestParseCachePrices(t *testing.T) {
	cases := []struct {
		name  string
		extra string
		want  Price
	}{
		{"none", "",
			Price{Model: "m", InputPerMillion: 2, OutputPerMillion: 8}},
		{"both", ", cache_read_usd_per_million: 0.2, cache_write_usd_per_million: 2.5",
			Price{Model: "m", InputPerMillion: 2, OutputPerMillion: 8,
				CacheReadPerMillion: 0.2, HasCacheRead: true, CacheWritePerMillion: 2.5, HasCacheWrite: true}},
		{"read only", ", cache_read_usd_per_million: 0.5",
			Price{Model: "m", InputPerMillion: 2, OutputPerMillion: 8, CacheReadPerMillion: 0.5, HasCacheRead: true}},
		{"write only", ", cache_write_usd_per_million: 2.5",
			Price{Model: "m", InputPerMillion: 2, OutputPerMillion: 8, CacheWritePerMillion: 2.5, HasCacheWrite: true}},
		{"explicit zero is given, not missing", ", cache_read_usd_per_million: 0, cache_write_usd_per_million: 0",
			Price{Model: "m", InputPerMillion: 2, OutputPerMillion: 8, HasCacheRead: true, HasCacheWrite: true}},
		{"null is not given", ", cache_read_usd_per_million: null",
			Price{Model: "m", InputPerMillion: 2, OutputPerMillion: 8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, model := oneModel(c.extra)
			tab, err := Parse(doc)
			require.NoError(t, err)
			got, ok := tab.Lookup("", model)
			require.True(t, ok)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestParseCachePricesOfATenant(t *testing.T) {
	tab, err := Parse([]byte(`
models:
  m: {input_usd_per_million: 3, output_usd_per_million: 15, cache_read_usd_per_million: 0.3, cache_write_usd_per_million: 3.75}
tenants:
  acme:
    models:
      m-acme: {match: [m], input_usd_per_million: 2.7, output_usd_per_million: 13.5, cache_read_usd_per_million: 0.27}
`))
	require.NoError(t, err)
	got, ok := tab.Lookup("acme", "m")
	require.True(t, ok)
	// The tenant's entry gives no cache write price: it does not inherit the
	// table's 3.75 but falls back to its own input price.
	assert.Equal(t, Price{Model: "m-acme", InputPerMillion: 2.7, OutputPerMillion: 13.5,
		CacheReadPerMillion: 0.27, HasCacheRead: true}, got)
	assert.InDelta(t, 2.7, got.CostUsage(0, 0, 0, 1_000_000), 1e-12)
	got, ok = tab.Lookup("other", "m")
	require.True(t, ok)
	assert.Equal(t, Price{Model: "m", InputPerMillion: 3, OutputPerMillion: 15,
		CacheReadPerMillion: 0.3, HasCacheRead: true, CacheWritePerMillion: 3.75, HasCacheWrite: true}, got)
}

func TestParseRefusesBadCachePrices(t *testing.T) {
	cases := []struct {
		name, extra string
		wantErr     []string // substrings of the error
	}{
		{"negative read", ", cache_read_usd_per_million: -0.1",
			[]string{`model "m"`, "cache_read_usd_per_million", "-0.1", "not a non-negative number"}},
		{"negative write", ", cache_write_usd_per_million: -3.75",
			[]string{`model "m"`, "cache_write_usd_per_million", "-3.75", "not a non-negative number"}},
		{"nan read", ", cache_read_usd_per_million: .nan",
			[]string{`model "m"`, "cache_read_usd_per_million", "NaN"}},
		{"nan write", ", cache_write_usd_per_million: .NaN",
			[]string{`model "m"`, "cache_write_usd_per_million", "NaN"}},
		{"inf read", ", cache_read_usd_per_million: .inf",
			[]string{`model "m"`, "cache_read_usd_per_million", "+Inf"}},
		{"-inf write", ", cache_write_usd_per_million: -.inf",
			[]string{`model "m"`, "cache_write_usd_per_million", "-Inf"}},
		{"not a number", ", cache_read_usd_per_million: cheap",
			[]string{"cheap"}},
		{"negative 1h write", ", cache_write_1h_usd_per_million: -6",
			[]string{`model "m"`, "cache_write_1h_usd_per_million", "not a non-negative number"}},
		{"unknown key", ", cache_write_2h_usd_per_million: 6",
			[]string{"cache_write_2h_usd_per_million", "not found"}},
		{"misspelt key", ", cached_input_usd_per_million: 0.5",
			[]string{"cached_input_usd_per_million", "not found"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, _ := oneModel(c.extra)
			_, err := Parse(doc)
			require.Error(t, err)
			for _, w := range c.wantErr {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	// Required prices stay required, and the cache prices don't stand in
	// for them.
	_, err := Parse([]byte("models:\n  m: {output_usd_per_million: 8, cache_read_usd_per_million: 0.2}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `model "m": input_usd_per_million and output_usd_per_million are required`)
	// A tenant's bad cache price names the tenant and the entry.
	_, err = Parse([]byte("models:\n  m: {input_usd_per_million: 1, output_usd_per_million: 2}\n" +
		"tenants:\n  t: {models: {n: {input_usd_per_million: 1, output_usd_per_million: 2, cache_write_usd_per_million: -1}}}\n"))
	require.Error(t, err)
	assert.Equal(t, `tenant "t": model "n": cache_write_usd_per_million -1 is not a non-negative number`, err.Error())
}

func TestCostUsage(t *testing.T) {
	sonnet := Price{InputPerMillion: 3, OutputPerMillion: 15,
		CacheReadPerMillion: 0.3, HasCacheRead: true, CacheWritePerMillion: 3.75, HasCacheWrite: true}
	gpt41 := Price{InputPerMillion: 2, OutputPerMillion: 8, CacheReadPerMillion: 0.5, HasCacheRead: true}
	noCache := Price{InputPerMillion: 1.25, OutputPerMillion: 10}
	writeOnly := Price{InputPerMillion: 1, OutputPerMillion: 5, CacheWritePerMillion: 1.25, HasCacheWrite: true}
	freeReads := Price{InputPerMillion: 1, OutputPerMillion: 5, HasCacheRead: true} // stated 0 is honoured
	cases := []struct {
		name                      string
		p                         Price
		in, out, cacheRd, cacheWr int64
		want                      float64
	}{
		{"zero tokens", sonnet, 0, 0, 0, 0, 0},
		{"zero tokens, no cache prices", noCache, 0, 0, 0, 0, 0},
		{"input and output only", sonnet, 1500, 500, 0, 0, 0.0045 + 0.0075},
		// 1,000 in × 3 + 200 out × 15 + 50,000 read × 0.3 + 4,000 write × 3.75
		{"all four at cache prices", sonnet, 1000, 200, 50_000, 4000, 0.003 + 0.003 + 0.015 + 0.015},
		{"only cache reads", sonnet, 0, 0, 1_000_000, 0, 0.3},
		{"only cache writes", sonnet, 0, 0, 0, 1_000_000, 3.75},
		// OpenAI: reads at the cached-input price, writes at the input price.
		{"read price, write falls back to input", gpt41, 100, 10, 1000, 1000, 0.0002 + 0.00008 + 0.0005 + 0.002},
		// No cache prices: every prompt token at the input price.
		{"no cache prices: reads and writes at input", noCache, 1000, 100, 2000, 3000, (6000*1.25 + 100*10) / 1e6},
		{"write price, read falls back to input", writeOnly, 0, 0, 1_000_000, 1_000_000, 1 + 1.25},
		{"stated zero read price", freeReads, 10, 0, 1_000_000, 0, 10.0 / 1e6},
		{"large counts", sonnet, 0, 0, 1_000_000_000, 0, 300},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.p.CostUsage(c.in, c.out, c.cacheRd, c.cacheWr)
			assert.InDelta(t, c.want, got, 1e-12)
		})
	}
}

func TestCostUsageNeverChargesCacheTokensBelowInputWithoutAPrice(t *testing.T) {
	p := Price{InputPerMillion: 3, OutputPerMillion: 15}
	// Without cache prices, moving prompt tokens into the cache counts
	// does not change the cost.
	assert.InDelta(t, p.CostUsage(10_000, 500, 0, 0), p.CostUsage(1000, 500, 6000, 3000), 1e-15)
	assert.InDelta(t, 0.0375, p.CostUsage(10_000, 500, 0, 0), 1e-15)
}

func TestCostIsCostUsageWithoutCacheTokens(t *testing.T) {
	prices := []Price{
		{InputPerMillion: 3, OutputPerMillion: 15},
		{InputPerMillion: 3, OutputPerMillion: 15, CacheReadPerMillion: 0.3, HasCacheRead: true, CacheWritePerMillion: 3.75, HasCacheWrite: true},
		{InputPerMillion: 0.4, OutputPerMillion: 1.6, CacheReadPerMillion: 0.1, HasCacheRead: true},
		{InputPerMillion: 0.3, OutputPerMillion: 2.5},
		{},
	}
	counts := [][2]int64{{0, 0}, {1, 0}, {0, 1}, {1500, 500}, {123_456, 7_891}, {math.MaxInt32, 3}}
	for _, p := range prices {
		for _, c := range counts {
			assert.Equal(t, p.CostUsage(c[0], c[1], 0, 0), p.Cost(c[0], c[1]), "%+v %v", p, c)
		}
	}
	// And Cost still computes what it did before the cache prices.
	p := prices[1]
	assert.InDelta(t, (1500*3.0+500*15.0)/1e6, p.Cost(1500, 500), 1e-15)
}

// builtInEntries returns every entry of the built-in table by name.
func builtInEntries(t *testing.T) map[string]Price {
	t.Helper()
	tab := Default()
	out := map[string]Price{}
	for _, p := range tab.base.exact {
		out[p.Model] = p
	}
	for _, g := range tab.base.globs {
		out[g.price.Model] = g.price
	}
	require.Equal(t, tab.Models(), sortedKeys(out))
	return out
}

func TestDefaultTableCachePrices(t *testing.T) {
	type cache struct {
		read, write, write1h          float64
		hasRead, hasWrite, hasWrite1h bool
	}
	want := map[string]cache{
		// Anthropic: reads 0.1× input, 5-minute writes 1.25×, 1-hour 2×.
		"claude-opus-4-6":   {0.5, 6.25, 10, true, true, true},
		"claude-sonnet-4-6": {0.3, 3.75, 6, true, true, true},
		"claude-opus-4-5":   {0.5, 6.25, 10, true, true, true},
		"claude-opus-4-1":   {1.5, 18.75, 30, true, true, true},
		"claude-sonnet-4-5": {0.3, 3.75, 6, true, true, true},
		"claude-sonnet-4":   {0.3, 3.75, 6, true, true, true},
		"claude-haiku-4-5":  {0.1, 1.25, 2, true, true, true},
		// OpenAI: cached input; no write surcharge (falls back to input).
		"gpt-5":        {0.125, 0, 0, true, false, false},
		"gpt-5-mini":   {0.025, 0, 0, true, false, false},
		"gpt-5.2":      {0.175, 0, 0, true, false, false},
		"gpt-5.4":      {0.25, 0, 0, true, false, false},
		"gpt-5.5":      {0.5, 0, 0, true, false, false},
		"gpt-4.1":      {0.5, 0, 0, true, false, false},
		"gpt-4.1-mini": {0.1, 0, 0, true, false, false},
		// Gemini: context-caching read price; no write price.
		"gemini-2.5-pro":   {0.125, 0, 0, true, false, false},
		"gemini-2.5-flash": {0.03, 0, 0, true, false, false},
	}
	entries := builtInEntries(t)
	require.Equal(t, sortedKeys(want), sortedKeys(entries), "every built-in entry is pinned here")
	for name, p := range entries {
		w := want[name]
		assert.Equal(t, w, cache{p.CacheReadPerMillion, p.CacheWritePerMillion, p.CacheWrite1hPerMillion,
			p.HasCacheRead, p.HasCacheWrite, p.HasCacheWrite1h}, name)
	}
	// Anthropic's ratios hold exactly.
	for _, name := range []string{"claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-5", "claude-opus-4-1", "claude-sonnet-4-5", "claude-sonnet-4", "claude-haiku-4-5"} {
		p := entries[name]
		assert.InDelta(t, 0.1*p.InputPerMillion, p.CacheReadPerMillion, 1e-12, name)
		assert.InDelta(t, 1.25*p.InputPerMillion, p.CacheWritePerMillion, 1e-12, name)
		assert.InDelta(t, 2*p.InputPerMillion, p.CacheWrite1hPerMillion, 1e-12, name)
	}
	// A dated model id gets its entry's cache prices: 10k cache-read and 2k
	// cache-write tokens of claude-sonnet-4-5-20250929, plus 100 in / 50 out.
	p, ok := Default().Lookup("", "claude-sonnet-4-5-20250929")
	require.True(t, ok)
	assert.InDelta(t, (100*3+50*15+10_000*0.3+2000*3.75)/1e6, p.CostUsage(100, 50, 10_000, 2000), 1e-15)
	// 1-hour writes are part of the cache writes and charged at their own
	// price: 2000 writes of which 500 to the 1-hour cache.
	assert.InDelta(t, (100*3+50*15+10_000*0.3+1500*3.75+500*6)/1e6,
		p.CostTokens(Tokens{Uncached: 100, Output: 50, CacheRead: 10_000, CacheWrite: 2000, CacheWrite1h: 500}), 1e-15)
	// A 1-hour count outside [0, CacheWrite] is clamped, never charged twice
	// nor negative.
	assert.InDelta(t, 2000*6/1e6, p.CostTokens(Tokens{CacheWrite: 2000, CacheWrite1h: 9000}), 1e-15)
	assert.InDelta(t, 2000*3.75/1e6, p.CostTokens(Tokens{CacheWrite: 2000, CacheWrite1h: -5}), 1e-15)
	// gpt-4.1 cache writes are charged at its input price.
	p, ok = Default().Lookup("", "gpt-4.1-2025-04-14")
	require.True(t, ok)
	assert.InDelta(t, (1000*0.5+1000*2)/1e6, p.CostUsage(0, 0, 1000, 1000), 1e-15)
	// An entry without a 1-hour price charges those writes like the
	// others (here: no write price, so the input price).
	assert.InDelta(t, (1000*2)/1e6, p.CostTokens(Tokens{CacheWrite: 1000, CacheWrite1h: 1000}), 1e-15)
}

func TestDefaultTableCachePricesAreSane(t *testing.T) {
	for name, p := range builtInEntries(t) {
		if p.HasCacheRead {
			assert.Less(t, p.CacheReadPerMillion, p.InputPerMillion, "%s: a cache read costs less than input", name)
			assert.Greater(t, p.CacheReadPerMillion, 0.0, "%s: a stated cache read price is not free", name)
		}
		if p.HasCacheWrite {
			assert.GreaterOrEqual(t, p.CacheWritePerMillion, p.InputPerMillion, "%s: a cache write costs at least input", name)
		}
		assert.False(t, math.IsNaN(p.CostUsage(1, 1, 1, 1)), name)
	}
}

func ExamplePrice_CostUsage() {
	p := Price{InputPerMillion: 3, OutputPerMillion: 15,
		CacheReadPerMillion: 0.3, HasCacheRead: true, CacheWritePerMillion: 3.75, HasCacheWrite: true}
	// 2,000 uncached input, 800 output, 100,000 read from and 10,000
	// written to the cache.
	fmt.Printf("$%.4f\n", p.CostUsage(2000, 800, 100_000, 10_000))
	// Output: $0.0855
}
