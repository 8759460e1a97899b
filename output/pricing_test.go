package output

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// llmChunk is a tail chunk of one session's first step (SESSION_START to
// LLM_RESPONSE: claude-sonnet-4-5, 1200 prompt and 300 completion tokens),
// the file written under a job directory.
func llmChunk(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/llm_step.jsonl")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", "session_20261121T100000Z_agent-worker-1.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	var evs []chunk.Event
	off := 0
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if l != "" {
			evs = append(evs, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, int64(off), []byte(strings.TrimSuffix(l, "\n"))))
		}
		off += len(l)
	}
	return chunk.AppendChunk(nil, chunk.FormatV2, evs...)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

func pricedInstance(t *testing.T, extra map[string]string) (*Instance, *pushCounter) {
	t.Helper()
	dir := t.TempDir()
	pc := &pushCounter{}
	srv := httptest.NewServer(pc)
	t.Cleanup(srv.Close)
	settings := map[string]string{"Loki_URL": srv.URL, "Ledger_Path": filepath.Join(dir, "ledger.db"),
		"Dead_Letter_Path": filepath.Join(dir, "dl.jsonl"), "Metrics_Address": "off", "Node_Name": "n", "Log_Level": "error"}
	for k, v := range extra {
		settings[k] = v
	}
	inst, err := NewInstance(getter(settings))
	require.NoError(t, err)
	t.Cleanup(func() { inst.Close() })
	return inst, pc
}

func responseMeta(t *testing.T, pc *pushCounter) map[string]string {
	t.Helper()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for i, l := range pc.lines {
		if strings.Contains(l, `"type":"LLM_RESPONSE"`) {
			return pc.meta[i]
		}
	}
	t.Fatal("no LLM_RESPONSE was pushed")
	return nil
}

func TestBuiltInPricesByDefault(t *testing.T) {
	inst, pc := pricedInstance(t, nil)
	require.Equal(t, OK, inst.Flush(llmChunk(t), "t"))
	md := responseMeta(t, pc)
	assert.Equal(t, "0.0081", md["cost_usd"], "1200 × $3/M + 300 × $15/M")
	assert.Equal(t, "claude-sonnet-4-5", md["cost_model"])
}

func TestPriceFileNoneTurnsCostOff(t *testing.T) {
	inst, pc := pricedInstance(t, map[string]string{"Price_File": "none"})
	require.Equal(t, OK, inst.Flush(llmChunk(t), "t"))
	md := responseMeta(t, pc)
	assert.NotContains(t, md, "cost_usd")
	assert.NotContains(t, md["annotations"], "price_unknown")
}

func TestTenantPriceFileAndMetricsEndpoint(t *testing.T) {
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	require.NoError(t, os.WriteFile(prices, []byte(`models:
  sonnet: {match: ["claude-sonnet-*"], input_usd_per_million: 3, output_usd_per_million: 15}
tenants:
  acme:
    models:
      sonnet-acme: {match: ["claude-sonnet-4-5"], input_usd_per_million: 1, output_usd_per_million: 2}
`), 0o644))
	addr := freeAddr(t)
	inst, pc := pricedInstance(t, map[string]string{"Price_File": prices, "Tenant_ID": "acme", "Metrics_Address": addr})
	require.Equal(t, OK, inst.Flush(llmChunk(t), "t"))
	md := responseMeta(t, pc)
	assert.Equal(t, "0.0018", md["cost_usd"], "1200 × $1/M + 300 × $2/M")
	assert.Equal(t, "sonnet-acme", md["cost_model"])

	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`journalship_llm_cost_usd_total{model="sonnet-acme",tenant="acme"} 0.0018`,
		`journalship_llm_tokens_total{direction="prompt",model="claude-sonnet-4-5",tenant="acme"} 1200`,
		`journalship_loki_entries_stored_total 4`, // one request per stream: one per event type
		`journalship_retries_total{cause="rate_limited"} 0`,
		`journalship_llm_cost_usd_total{model="sonnet",tenant="acme"} 0`, // preset: every entry the tenant can use
		`journalship_lines_dead_lettered_total{reason="undecodable_chunk"} 0`,
	} {
		assert.Contains(t, string(body), want)
	}
}

func TestABadPriceFileFailsTheStartNamingIt(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "prices.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("models:\n  m: {input_usd_per_million: 1}\n"), 0o644))
	for _, path := range []string{bad, filepath.Join(t.TempDir(), "missing.yaml")} {
		_, err := NewInstance(getter(map[string]string{"Price_File": path, "Ledger_Path": "none",
			"Dead_Letter_Path": filepath.Join(t.TempDir(), "dl.jsonl"), "Metrics_Address": "off"}))
		require.Error(t, err)
		assert.Contains(t, err.Error(), path)
	}
}
