package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalship/journalship/loki"
	"github.com/journalship/journalship/pricing"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTenantFollowsTheJournal: one flush holds journals of two teams'
// roots and one no rule places. Each team's entries carry its tenant
// (never as a label Loki sees), are priced with its own table entries
// and counted under its tenant label; the unplaced journal's lines are
// dead-lettered with the reason, counted no_tenant, and cost nothing.
func TestTenantFollowsTheJournal(t *testing.T) {
	tab, err := pricing.Parse([]byte(`
models:
  gpt-4.1: {input_usd_per_million: 2, output_usd_per_million: 8}
tenants:
  team-a:
    models:
      gpt-4.1-a: {match: ["gpt-4.1"], input_usd_per_million: 1, output_usd_per_million: 4}
`))
	require.NoError(t, err)
	data, err := os.ReadFile("testdata/journal.jsonl")
	require.NoError(t, err)
	root := t.TempDir()
	var recs = tailRecords("", nil, testNow)
	paths := map[string]string{}
	for _, team := range []string{"team-a", "team-b", "elsewhere"} {
		p := filepath.Join(root, team, goldenJob, "session_20261121T100000Z_agent-worker-1.jsonl")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
		paths[team] = p
		recs = append(recs, tailRecords(p, data, testNow)...)
	}
	for i := range recs {
		recs[i].Index = i
	}
	e := newEnvPriced(t, func(c *Config) {
		c.Tenants.Roots = map[string][]string{"team-a": {filepath.Join(root, "team-a")}, "team-b": {filepath.Join(root, "team-b")}}
	}, tab)
	_, err = e.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)

	perFile := map[string]int{}
	for _, got := range e.cap.entries() {
		perFile[got.md["file"]]++
		assert.NotContains(t, got.labels, loki.TenantLabel)
		assert.NotEqual(t, paths["elsewhere"], got.md["file"], "an unplaced journal reaches no tenant")
	}
	lines := strings.Count(string(data), "\n")
	assert.Equal(t, map[string]int{paths["team-a"]: lines, paths["team-b"]: lines}, perFile)

	m := e.metrics
	assert.InDelta(t, 0.00118, testutil.ToFloat64(m.CostUSD.WithLabelValues("gpt-4.1-a", "team-a")), 1e-12, "team-a's own price")
	assert.InDelta(t, 0.00236, testutil.ToFloat64(m.CostUSD.WithLabelValues("gpt-4.1", "team-b")), 1e-12, "the table's price")
	assert.Equal(t, 900.0, testutil.ToFloat64(m.Tokens.WithLabelValues("gpt-4.1", "prompt", "team-a")))
	assert.Equal(t, 900.0, testutil.ToFloat64(m.Tokens.WithLabelValues("gpt-4.1", "prompt", "team-b")))
	assert.Equal(t, float64(lines), testutil.ToFloat64(m.LinesDeadLettered.WithLabelValues("no_tenant")))
	dl, err := os.ReadFile(e.dlPath)
	require.NoError(t, err)
	assert.Equal(t, lines, strings.Count(string(dl), "Tenant_Fallback is not set"))
	assert.Equal(t, lines, strings.Count(string(dl), `"file":"`+paths["elsewhere"]+`"`))
}

// TestTenantLabelsSeparateStreams: the same label values of two tenants
// are two streams, each sent with its tenant.
func TestTenantLabelsSeparateStreams(t *testing.T) {
	ls := newLabelSets(DefaultConfig())
	a := ls.get("team-a", "cortex", "LLM_RESPONSE", "valid", "")
	b := ls.get("team-b", "cortex", "LLM_RESPONSE", "valid", "")
	none := ls.get("", "cortex", "LLM_RESPONSE", "valid", "")
	assert.Contains(t, a, loki.Label{Name: loki.TenantLabel, Value: "team-a"})
	assert.Contains(t, b, loki.Label{Name: loki.TenantLabel, Value: "team-b"})
	assert.NotContains(t, none, loki.Label{Name: loki.TenantLabel, Value: ""})
	assert.Len(t, none, len(a)-1)
}

// TestSyntheticEntryOfUnplacedJournalReachesNoTenant: the finalizer's
// entries about a journal no rule places (its torn tail's preview, its
// summary, a go-session run's cost) are that journal's content like its
// lines: they must not be sent without a tenant (to whatever tenant
// Loki or a gateway takes for a request without X-Scope-OrgID, or
// refused 401 and retried for ever) but dead-lettered, reason no_tenant,
// and cost nothing, as its lines do.
func TestSyntheticEntryOfUnplacedJournalReachesNoTenant(t *testing.T) {
	root := t.TempDir()
	e := newEnv(t, func(c *Config) {
		c.Tenants.Roots = map[string][]string{"team-a": {filepath.Join(root, "team-a")}}
	})
	path := filepath.Join(root, "elsewhere", goldenJob, "session_20261121T100000Z_p.jsonl")
	entries := []Synthetic{{Path: path, Kind: "truncated_tail", Time: testNow,
		Line: []byte(`{"journalship":"truncated_tail","preview":"{\"type\":\"TOOL_RESULT\""}`), Annotations: []string{"truncated_tail"},
		Cost: 1.5, CostModel: "claude-sonnet-4-5"}}
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), entries))
	for _, got := range e.cap.entries() {
		assert.NotEqual(t, path, got.md["file"], "an unplaced journal's synthetic entry was sent without a tenant: %s", got.line)
	}
	dl, err := os.ReadFile(e.dlPath)
	require.NoError(t, err)
	assert.Contains(t, string(dl), "Tenant_Fallback is not set", "dead-lettered with the reason")
	assert.Zero(t, testutil.ToFloat64(e.metrics.CostUSD.WithLabelValues("claude-sonnet-4-5", "default")), "no cost counted under no tenant")
}

// TestRecordsWithoutPathFollowTheTenantRules: records without a path
// (tail's Path_Key not set) are placed by no rule: with tenant rules and
// no Tenant_Fallback they are dead-lettered (no_tenant), never sent
// without a tenant (to whatever tenant Loki or a gateway takes for a
// request without X-Scope-OrgID, or refused 401 and retried for ever);
// with a fallback they go to it.
func TestRecordsWithoutPathFollowTheTenantRules(t *testing.T) {
	data, err := os.ReadFile("testdata/journal.jsonl")
	require.NoError(t, err)
	root := t.TempDir()
	recs := tailRecords("", data, testNow)
	lines := len(recs)

	e := newEnv(t, func(c *Config) { c.Tenants.Roots = map[string][]string{"team-a": {filepath.Join(root, "team-a")}} })
	_, err = e.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	assert.Empty(t, e.cap.entries(), "no line without a tenant reaches Loki")
	assert.Equal(t, float64(lines), testutil.ToFloat64(e.metrics.LinesDeadLettered.WithLabelValues("no_tenant")))

	e = newEnv(t, func(c *Config) {
		c.Tenants.Roots = map[string][]string{"team-a": {filepath.Join(root, "team-a")}}
		c.Tenants.Fallback = "ops"
	})
	var got []string
	_, err = e.pipe.Ship(context.Background(), tailRecords("", data, testNow), "t")
	require.NoError(t, err)
	for _, it := range e.cap.entries() {
		got = append(got, it.line)
	}
	assert.Len(t, got, lines, "sent to the fallback")
	for _, l := range e.pipe.labelSet.m {
		assert.Contains(t, l, loki.Label{Name: loki.TenantLabel, Value: "ops"})
	}
}
