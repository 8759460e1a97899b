package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/journalship/journalship/internal/realdata"
	"github.com/journalship/journalship/pricing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRealClaudeCodeCaptureCountsWhatTheRunReports: the headless run
// Claude Code 2.1.44 wrote with --include-partial-messages
// (../shared/realdata/claude-code/stream-json), through the pipeline: every
// line valid, the tokens in Loki by model equal the run's own modelUsage
// (the final usage of each response, from its message_delta, and the Haiku
// call only the result reports), and the result's stated cost is compared
// with the cost of those tokens. The run states $0.6073; its tokens cost
// $0.4806 at the table's (list) prices: Haiku's $0.003398 as the run
// states it, Sonnet's $0.4772 where the run states $0.6039, which no
// per-token price reproduces. The line stays annotated cost_disagrees, now
// for that price difference alone.
func TestRealClaudeCodeCaptureCountsWhatTheRunReports(t *testing.T) {
	root := filepath.Join(realdata.Dir(t, "claude-code"), "stream-json")
	path := filepath.Join(root, "orbitmesh-claude-review", "claude_review.jsonl")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	e := newEnvPriced(t, func(c *Config) { c.Formats.Roots = map[string][]string{"claude-code": {root}} }, pricing.Default())
	_, err = e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)

	got := map[string][4]int64{}
	var computed, stated float64
	var end struct{ annotations, computed string }
	entries := e.cap.entries()
	require.Len(t, entries, 1718)
	for _, en := range entries {
		require.Equal(t, "valid", en.md["integrity"], en.md["byte_offset"])
		require.NotContains(t, en.md["annotations"], "parent_missing")
		if m := en.md["model"]; en.md["tokens_in"] != "" || en.md["tokens_out"] != "" {
			v := got[m]
			for i, k := range []string{"tokens_in", "tokens_out", "tokens_cache_read", "tokens_cache_write"} {
				n, _ := strconv.ParseInt(en.md[k], 10, 64)
				v[i] += n
			}
			got[m] = v
		}
		if c := en.md["cost_usd"]; c != "" {
			f, err := strconv.ParseFloat(c, 64)
			require.NoError(t, err)
			computed += f
		}
		if en.md["role"] == "session_end" {
			stated, _ = strconv.ParseFloat(en.md["reported_cost_usd"], 64)
			end.annotations, end.computed = en.md["annotations"], en.md["cost_disagrees"]
			t.Logf("result: reported %s, annotations %q, computed for the run %s", en.md["reported_cost_usd"], en.md["annotations"], en.md["cost_disagrees"])
		}
	}
	var result struct {
		ModelUsage map[string]struct {
			InputTokens, OutputTokens, CacheReadInputTokens, CacheCreationInputTokens int64
			CostUSD                                                                   float64
		}
	}
	require.NoError(t, json.Unmarshal(lastLine(data), &result))
	want := map[string][4]int64{}
	for m, u := range result.ModelUsage {
		want[m] = [4]int64{u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens}
	}
	assert.Equal(t, want, got, "tokens by model: the run's own report")
	// Sonnet 4.5 at the table's prices (1-hour cache writes at 2 x input)
	// plus Haiku 4.5's: the run states more for Sonnet than its tokens
	// cost at list price; what remains is a price difference, no tokens
	// missing.
	assert.InDelta(t, 0.477176+0.003398, computed, 1e-6)
	assert.InDelta(t, 0.60733975, stated, 1e-9)
	assert.Contains(t, end.annotations, "cost_disagrees")
	assert.Equal(t, "0.4805738", end.computed)
}

// lastLine is data's last complete line.
func lastLine(data []byte) []byte {
	data = data[:len(data)-1]
	for i := len(data) - 1; i >= 0; i-- {
		if data[i] == '\n' {
			return data[i+1:]
		}
	}
	return data
}
