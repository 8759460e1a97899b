package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/output"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTenantPerTeam ships one chunk holding the journals of two teams,
// each under its own root, and of a directory no rule places, through
// the plugin into a multi-tenant Loki (auth_enabled: true). A query as
// one team returns its journal's lines and none of the other's; the
// unplaced journal's lines are in the dead letters with reason
// no_tenant, in no tenant. With Tenant_Fallback set they go to that
// tenant instead.
func TestTenantPerTeam(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{AuthEnabled: true})
	root := t.TempDir()
	journal := func(dir string) string {
		return filepath.Join(root, dir, "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", "session_20261121T100000Z_agent-worker-1.jsonl")
	}
	paths := map[string]string{"team-a": journal("team-a"), "team-b": journal("team-b"), "other": journal("other")}
	var evs []chunk.Event
	want := map[string][]string{}
	for i, team := range []string{"team-a", "team-b", "other"} {
		e := journalEvents(t, paths[team], int64(i+1), 15, false)
		want[team] = lineTexts(e)
		evs = append(evs, e...)
	}
	data := writeChunk(t, chunk.FormatV2, evs...)
	roots := fmt.Sprintf("team-a=%s,team-b=%s", filepath.Join(root, "team-a"), filepath.Join(root, "team-b"))

	t.Run("no fallback", func(t *testing.T) {
		props := append(propsFor(t, loki.URL), "Tenant_Roots", roots)
		dl := props[5]
		flushOnce(t, props, data)
		for _, team := range []string{"team-a", "team-b"} {
			got := tenantLines(t, loki.URL, team, len(want[team]))
			assert.ElementsMatch(t, want[team], got, "tenant %s holds its own journal's lines, and only those", team)
		}
		assert.Empty(t, tenantLines(t, loki.URL, "other", 0), "no tenant is made up for an unplaced journal")
		assert.ElementsMatch(t, want["other"], deadLettered(t, dl, "Tenant_Fallback is not set"))
	})
	t.Run("fallback", func(t *testing.T) {
		props := append(propsFor(t, loki.URL), "Tenant_Roots", roots, "Tenant_Fallback", "shared")
		dl := props[5]
		flushOnce(t, props, data)
		assert.ElementsMatch(t, want["other"], tenantLines(t, loki.URL, "shared", len(want["other"])))
		assert.Empty(t, deadLettered(t, dl, "Tenant_Fallback"))
	})
}

// flushOnce runs the plugin with props on one chunk, which must be OK.
func flushOnce(t *testing.T, props []string, data string) {
	t.Helper()
	_, err := runHost(t, instanceScript("a", props...)+lines(
		fmt.Sprintf("init a expect %d", output.OK),
		fmt.Sprintf("flush a %s journals expect %d", data, output.OK),
		fmt.Sprintf("exit a expect %d", output.OK),
		"unregister",
	))
	require.NoError(t, err)
}

// tenantLines returns the lines a query as tenant finds, once at least
// want are there (want 0: whatever is there after a short wait).
func tenantLines(t *testing.T, url, tenant string, want int) []string {
	t.Helper()
	q := &lokiquery.Client{URL: url, TenantID: tenant}
	wait := 30 * time.Second
	if want == 0 {
		wait = 2 * time.Second
	}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions"}`, time.Now().Add(-time.Hour), time.Now().Add(time.Minute), max(want, 1), wait)
	if err != nil && want > 0 {
		t.Fatalf("reading back tenant %s: %v", tenant, err)
	}
	var out []string
	for _, e := range got {
		out = append(out, e.Line)
	}
	return out
}

// deadLettered returns the lines of the dead-letter file at path whose
// reason holds why.
func deadLettered(t *testing.T, path, why string) []string {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct{ Line, Reason string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		if strings.Contains(e.Reason, why) {
			out = append(out, e.Line)
		}
	}
	require.NoError(t, sc.Err())
	return out
}
