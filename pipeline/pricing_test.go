package pipeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/pricing"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// responses returns the LLM_RESPONSE entries by seq.
func responses(es []capturedEntry) map[string]capturedEntry {
	out := map[string]capturedEntry{}
	for _, e := range es {
		if e.md["seq"] != "" && strings.Contains(e.labels, `event_type="LLM_RESPONSE"`) {
			out[e.md["seq"]] = e
		}
	}
	return out
}

func TestCostIsAttributedToThePriceTableEntry(t *testing.T) {
	_, path, data := journalAt(t)
	e := newEnvPriced(t, nil, pricing.Default())
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	got := responses(e.cap.entries())
	require.Len(t, got, 3)

	// claude-sonnet-4-5: 1200 prompt × $3/M + 300 completion × $15/M.
	assert.Equal(t, "0.0081", got["3"].md["cost_usd"])
	assert.Equal(t, "claude-sonnet-4-5", got["3"].md["cost_model"])
	assert.Equal(t, "claude-sonnet-4-5", got["3"].md["model"])
	// The schema-invalid response's tokens are not trusted, so not priced.
	assert.Empty(t, got["11"].md["cost_usd"])
	// gpt-4.1: 900 × $2/M + 70 × $8/M.
	assert.Equal(t, "0.00236", got["13"].md["cost_usd"])
	assert.Equal(t, "gpt-4.1", got["13"].md["cost_model"])

	cost := e.metrics.CostUSD
	assert.InDelta(t, 0.0081, testutil.ToFloat64(cost.WithLabelValues("claude-sonnet-4-5", "default")), 1e-12)
	assert.InDelta(t, 0.00236, testutil.ToFloat64(cost.WithLabelValues("gpt-4.1", "default")), 1e-12)
	assert.Equal(t, 1200.0, testutil.ToFloat64(e.metrics.Tokens.WithLabelValues("claude-sonnet-4-5", "prompt", "default")))
}

func TestTenantPricesAndUnpricedModels(t *testing.T) {
	tab, err := pricing.Parse([]byte(`
models:
  gpt-4.1: {input_usd_per_million: 2, output_usd_per_million: 8}
tenants:
  acme:
    models:
      gpt-4.1-acme: {match: ["gpt-4.1"], input_usd_per_million: 1, output_usd_per_million: 4}
`))
	require.NoError(t, err)
	_, path, data := journalAt(t)
	e := newEnvPriced(t, func(c *Config) { c.Tenants.Default = "acme" }, tab)
	_, err = e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	got := responses(e.cap.entries())

	assert.Equal(t, "0.00118", got["13"].md["cost_usd"], "900 × $1/M + 70 × $4/M")
	assert.Equal(t, "gpt-4.1-acme", got["13"].md["cost_model"])
	assert.Empty(t, got["3"].md["cost_usd"], "claude-sonnet-4-5 is not in the table: no guess")
	assert.Contains(t, got["3"].md["annotations"], "price_unknown")
	assert.NotContains(t, got["13"].md["annotations"], "price_unknown")

	m := e.metrics
	assert.InDelta(t, 0.00118, testutil.ToFloat64(m.CostUSD.WithLabelValues("gpt-4.1-acme", "acme")), 1e-12)
	assert.Equal(t, 1.0, testutil.ToFloat64(m.Annotations.WithLabelValues("price_unknown")))
	assert.Equal(t, 900.0, testutil.ToFloat64(m.Tokens.WithLabelValues("gpt-4.1", "prompt", "acme")))
}

func TestCountersStartAtZero(t *testing.T) {
	e := newEnv(t, nil)
	for _, name := range []string{"journalship_lines_received_total", "journalship_annotations_total",
		"journalship_lines_dead_lettered_total", "journalship_retries_total", "journalship_bytes_total"} {
		n, err := testutil.GatherAndCount(e.metrics.Registry, name)
		require.NoError(t, err)
		assert.Positive(t, n, "%s has its series before the first line", name)
	}
	assert.Zero(t, testutil.ToFloat64(e.metrics.Retries.WithLabelValues("rate_limited")))
	assert.Zero(t, testutil.ToFloat64(e.metrics.Annotations.WithLabelValues("price_unknown")))
}

func TestFormatUSD(t *testing.T) {
	for usd, want := range map[float64]string{0: "0", 0.0081: "0.0081", 0.1 + 0.2: "0.3", 12.5: "12.5", 1e-12: "0", 3e-11: "0.00000000003"} {
		assert.Equal(t, want, string(formatUSD(nil, usd)), "%v", usd)
	}
}

// TestCacheTokensAtTheirOwnPrices: a Codelia response reporting cache
// reads and writes is charged each part of its prompt once, at its price,
// and the cache tokens are counted apart in the metrics.
func TestCacheTokensAtTheirOwnPrices(t *testing.T) {
	e, resp := shipCodeliaResponse(t, "anthropic", "claude-sonnet-4-5",
		`"input_tokens":1000,"input_cached_tokens":8000,"input_cache_creation_tokens":1000,"output_tokens":200,"total_tokens":1200`)
	// Anthropic's input_tokens are the uncached ones: tokens_in is the
	// whole prompt, the cache reads and writes added back.
	assert.Equal(t, "10000", resp.md["tokens_in"])
	assert.Equal(t, "8000", resp.md["tokens_cache_read"])
	assert.Equal(t, "1000", resp.md["tokens_cache_write"])
	// 1000 uncached × $3/M + 8000 read × $0.30/M + 1000 written × $3.75/M
	// + 200 out × $15/M.
	assert.Equal(t, "0.01215", resp.md["cost_usd"])
	tok := e.metrics.Tokens
	assert.Equal(t, 10000.0, testutil.ToFloat64(tok.WithLabelValues("claude-sonnet-4-5", "prompt", "default")))
	assert.Equal(t, 8000.0, testutil.ToFloat64(tok.WithLabelValues("claude-sonnet-4-5", "cache_read", "default")))
	assert.Equal(t, 1000.0, testutil.ToFloat64(tok.WithLabelValues("claude-sonnet-4-5", "cache_write", "default")))
}

// TestInclusiveInputIsNotAddedTwice: an OpenAI-style usage counts its
// cached tokens inside input_tokens, so tokens_in is input_tokens as
// written and only the uncached rest is charged at the input price.
func TestInclusiveInputIsNotAddedTwice(t *testing.T) {
	_, resp := shipCodeliaResponse(t, "openai", "gpt-4.1",
		`"input_tokens":10000,"input_cached_tokens":8000,"input_cache_creation_tokens":null,"output_tokens":200,"total_tokens":10200`)
	assert.Equal(t, "10000", resp.md["tokens_in"])
	assert.Equal(t, "8000", resp.md["tokens_cache_read"])
	assert.Empty(t, resp.md["tokens_cache_write"])
	pr, ok := pricing.Default().Lookup("", "gpt-4.1")
	require.True(t, ok)
	want := pr.CostUsage(2000, 200, 8000, 0)
	got, err := strconv.ParseFloat(resp.md["cost_usd"], 64)
	require.NoError(t, err)
	assert.InDelta(t, want, got, 1e-9, "2000 uncached at the input price, 8000 at the cached price")
}

// shipCodeliaResponse ships a Codelia run of the provider's model with one
// answered request whose output.usage has the given fields, and returns
// the test environment and the response's entry.
func shipCodeliaResponse(t *testing.T, provider, model, usage string) (*env, capturedEntry) {
	t.Helper()
	path := "/data/codelia/sessions/2026/02/03/8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl"
	run := `"run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a"`
	m := `{"provider":"` + provider + `","name":"` + model + `"}`
	data := []byte(`{"type":"header","schema_version":1,` + run + `,"started_at":"2026-02-03T12:00:00.123Z","model":` + m + `}` + "\n" +
		`{"type":"llm.request",` + run + `,"ts":"2026-02-03T12:00:01.000Z","seq":1,"model":` + m + `,"input":{"messages":[]}}` + "\n" +
		`{"type":"llm.response",` + run + `,"ts":"2026-02-03T12:00:02.000Z","seq":1,"output":{"messages":[],"usage":{"model":"` + model + `",` + usage + `}}}` + "\n")
	e := newEnvPriced(t, nil, pricing.Default())
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	var resp capturedEntry
	for _, en := range e.cap.entries() {
		if strings.Contains(en.labels, `event_type="llm.response"`) {
			resp = en
		}
	}
	require.NotEmpty(t, resp.md, "the response was shipped")
	return e, resp
}

// TestHugeTokenCountsSaturate: a hostile line's counts near the int64
// limit, with its cache added back and summed with another line's, never
// wrap to a negative count (a Prometheus counter would panic on it and
// take Fluent Bit down with the plugin).
func TestHugeTokenCountsSaturate(t *testing.T) {
	e, resp := shipCodeliaResponse(t, "anthropic", "claude-sonnet-4-5",
		`"input_tokens":9223372036854775000,"input_cached_tokens":8000,"input_cache_creation_tokens":1000,"output_tokens":9223372036854775000,"total_tokens":1`)
	assert.Equal(t, strconv.FormatInt(math.MaxInt64, 10), resp.md["tokens_in"])
	assert.Positive(t, testutil.ToFloat64(e.metrics.Tokens.WithLabelValues("claude-sonnet-4-5", "prompt", "default")))
}

// TestStatedCostIsComparedNeverSummed: a Claude Code stream-json capture
// states each run's cost in its result line (total_cost_usd): shipped as
// reported_cost_usd, never as cost_usd (the run's responses already carry
// theirs), and compared with what the responses of the run cost at the
// table's prices: here $0.009088 against $0.0123 stated, so the result is
// annotated cost_disagrees with the computed cost. Chunks out of order
// and retried give the same verdict: the run's cost is rebuilt with the
// file's state.
func TestStatedCostIsComparedNeverSummed(t *testing.T) {
	data, err := os.ReadFile("../format/claudecode/testdata/stream-json.jsonl")
	require.NoError(t, err)
	root := t.TempDir()
	path := filepath.Join(root, "captures", "run-1.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	recs := tailRecords(path, data, testNow)
	for name, chunks := range map[string][][]chunk.Record{
		"in order":          {recs},
		"out of order":      {recs[4:], recs[:4]},
		"retried, one line": {recs[:6], recs[6:7], recs[6:7], recs[7:]},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnvPriced(t, func(c *Config) {
				c.Formats.Roots = map[string][]string{"claude-code": {root}}
			}, pricing.Default())
			for _, c := range chunks {
				_, err := e.pipe.Ship(context.Background(), c, "t")
				require.NoError(t, err)
			}
			var computed float64
			var result *capturedEntry
			for _, en := range e.cap.entries() {
				off, _ := strconv.Atoi(en.md["byte_offset"])
				if int64(off) >= recs[6].Offset+1 {
					continue // the second run
				}
				if en.md["role"] == "session_end" {
					result = &en
					continue
				}
				if v := en.md["cost_usd"]; v != "" {
					f, err := strconv.ParseFloat(v, 64)
					require.NoError(t, err)
					computed += f
				}
			}
			require.NotNil(t, result, "the first run's result line")
			assert.InDelta(t, 0.009088, computed, 1e-12, "sonnet 3+2000w+48, haiku 5+100r+20, sonnet 3+2000r+9")
			assert.Empty(t, result.md["cost_usd"], "a stated cost is never summed with the computed one")
			assert.Equal(t, "0.0123", result.md["reported_cost_usd"])
			assert.Contains(t, result.md["annotations"], "cost_disagrees")
			assert.Equal(t, "0.009088", result.md["cost_disagrees"])
			assert.Empty(t, result.md["path_problem"], "a capture under the format's root is no path mismatch")
		})
	}
}
