package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/pricing"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manyModelsJournal is a cortex journal whose responses name n distinct
// model ids besides the price table's gpt-4.1 and claude-sonnet-4-5; it
// returns the prompt and completion tokens of all its responses.
func manyModelsJournal(n int) (data []byte, prompt, completion float64) {
	const ids = `"job_id":"` + goldenJob + `","session_id":"01956a3b-8000-7000-8000-000000000001"`
	start := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	ts := func(seq int) string {
		return start.Add(time.Duration(seq) * time.Second).Format("2006-01-02T15:04:05.000Z")
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"SESSION_START","timestamp":%q,%s,"seq":0,"buffer_schema_version":1,"agent_id":"01956a3b-9000-7000-8000-000000000002","pod_name":"agent-worker-1"}`+"\n", ts(0), ids)
	for i := range n + 2 {
		model := fmt.Sprintf("tenant-finetune-%d", i)
		switch i {
		case n:
			model = "gpt-4.1"
		case n + 1:
			model = "claude-sonnet-4-5"
		}
		in, out := 100+i, 10+i%7
		prompt, completion = prompt+float64(in), completion+float64(out)
		fmt.Fprintf(&b, `{"type":"LLM_REQUEST","timestamp":%q,%s,"seq":%d,"model":%q,"step_index":%d,"prompt_hash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","message_count":2}`+"\n",
			ts(2*i+1), ids, 2*i+1, model, i)
		fmt.Fprintf(&b, `{"type":"LLM_RESPONSE","timestamp":%q,%s,"seq":%d,"step_index":%d,"prompt_tokens":%d,"completion_tokens":%d,"finish_reason":"end_turn","tool_use_count":0}`+"\n",
			ts(2*i+2), ids, 2*i+2, i, in, out)
	}
	return []byte(b.String()), prompt, completion
}

// tokenSeries returns the token series' models and sum by direction.
func tokenSeries(t *testing.T, m *metrics.Set) (models map[string][]string, sums map[string]float64) {
	t.Helper()
	fams, err := m.Registry.Gather()
	require.NoError(t, err)
	models, sums = map[string][]string{}, map[string]float64{}
	for _, f := range fams {
		if f.GetName() != "journalship_llm_tokens_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			l := labelMap(s.GetLabel())
			models[l["direction"]] = append(models[l["direction"]], l["model"])
			sums[l["direction"]] += s.GetCounter().GetValue()
		}
	}
	return models, sums
}

func labelMap(ls []*dto.LabelPair) map[string]string {
	out := map[string]string{}
	for _, l := range ls {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func TestModelLabelValuesAreBounded(t *testing.T) {
	const distinct = 500
	data, prompt, completion := manyModelsJournal(distinct)
	root := t.TempDir()
	path := filepath.Join(root, goldenJob, "session_20261121T100000Z_agent-worker-1.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	e := newEnvPriced(t, nil, pricing.Default())

	recs := tailRecords(path, data, testNow)
	for len(recs) > 0 { // several flushes: the limit holds across them
		n := min(len(recs), 211)
		_, err := e.pipe.Ship(context.Background(), recs[:n], "t")
		require.NoError(t, err)
		recs = recs[n:]
	}
	require.Equal(t, float64(2*distinct+5), testutil.ToFloat64(e.metrics.LinesIn.WithLabelValues("valid")), "every line valid: all tokens counted")

	models, sums := tokenSeries(t, e.metrics)
	tableModels := len(pricing.Default().ModelsFor(""))
	for _, dir := range []string{"prompt", "completion"} {
		assert.LessOrEqual(t, len(models[dir]), tableModels+metrics.DefaultMaxModelValues+1, dir)
		assert.Equal(t, metrics.DefaultMaxModelValues+2+1, len(models[dir]), "%s: the first others, the two table models, other", dir)
		for _, m := range []string{"gpt-4.1", "claude-sonnet-4-5", metrics.Other} {
			assert.True(t, slices.Contains(models[dir], m), "%s: %s kept (table models past the limit)", dir, m)
		}
	}
	assert.Equal(t, prompt, sums["prompt"], "no token lost by folding")
	assert.Equal(t, completion, sums["completion"])
	assert.Equal(t, float64(distinct-metrics.DefaultMaxModelValues), testutil.ToFloat64(e.metrics.LabelValuesFolded.WithLabelValues("model")),
		"each folded model once: each is in one flush")
	assert.InDelta(t, 0.0, testutil.ToFloat64(e.metrics.CostUSD.WithLabelValues(metrics.Other, "default")), 0, "folded models are unpriced")
}

func TestSyntheticCostModelsAreBounded(t *testing.T) {
	_, path, _ := journalAt(t)
	e := newEnvPriced(t, nil, pricing.Default())
	const distinct = 150
	entries := make([]Synthetic, distinct)
	for i := range entries {
		entries[i] = Synthetic{Path: path, Kind: "LLM_RESPONSE", Time: testNow, Line: []byte(`{}`),
			Cost: 0.5, CostModel: fmt.Sprintf("runtime-model-%d", i)}
	}
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), entries))

	total, series := 0.0, 0
	fams, err := e.metrics.Registry.Gather()
	require.NoError(t, err)
	for _, f := range fams {
		if f.GetName() == "journalship_llm_cost_usd_total" {
			for _, s := range f.GetMetric() {
				if v := s.GetCounter().GetValue(); v > 0 {
					total += v
					series++
				}
			}
		}
	}
	assert.Equal(t, metrics.DefaultMaxModelValues+1, series, "the first others and other")
	assert.InDelta(t, 0.5*distinct, total, 1e-9, "no dollar lost by folding")
	assert.InDelta(t, 0.5*(distinct-metrics.DefaultMaxModelValues), testutil.ToFloat64(e.metrics.CostUSD.WithLabelValues(metrics.Other, "default")), 1e-9)
}
