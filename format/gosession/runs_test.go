package gosession

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
)

// goatMeta is metadata.json as Goat's store writes it (json.MarshalIndent
// of agent.SessionMetadata): id, the run's start as created_at, and the
// run's own counts and cost once it ended (exit "" : as Create wrote it).
func goatMeta(id string, created, updated time.Time, turns int, cost float64, exit string) string {
	exitField := ""
	if exit != "" {
		exitField = fmt.Sprintf(",\n  \"exit_reason\": %q", exit)
	}
	return fmt.Sprintf(`{
  "id": %q,
  "cwd": "/home/dev/app",
  "model": "claude-sonnet-4-5-20250929",
  "created_at": %q,
  "updated_at": %q,
  "message_count": %d,
  "turn_count": %d,
  "total_cost_usd": %v%s
}`, id, created.Format(time.RFC3339Nano), updated.Format(time.RFC3339Nano), 2*turns, turns, cost, exitField)
}

var runStart = time.Date(2026, 2, 9, 9, 0, 0, 0, time.UTC) // before sideDir's message

// TestGoatMetadataIsPerRun: metadata.json in Goat's shape holds the latest
// run's own figures; each run's summary ships once, keyed by the run's
// start, with the run's own cost (not a growth); a rewrite of the same run
// ships nothing new; a run as Create wrote it (no exit_reason) none.
func TestGoatMetadataIsPerRun(t *testing.T) {
	f := New()
	dir, messages := sideDir(t, goatMeta("s-1", runStart, runStart, 0, 0, ""))
	recs, next := f.SideRecords(messages, always, format.Marks{})
	assert.Empty(t, recs, "a run as Create wrote it: nothing ended")
	assert.Empty(t, next)

	end1 := runStart.Add(2 * time.Hour)
	writeMeta(t, dir, goatMeta("s-1", runStart, end1, 5, 0.06486, "end_turn"))
	m, ok := ReadMetadata(dir, 0)
	require.True(t, ok)
	assert.True(t, m.PerRun)
	assert.Equal(t, int64(10), m.MessageCount)
	recs, next = f.SideRecords(messages, always, format.Marks{})
	require.Len(t, recs, 1)
	r := recs[0]
	assert.InDelta(t, 0.06486, r.CostUSD, 1e-12, "the run's own cost")
	assert.InDelta(t, 0.06486, r.ReportedCostUSD, 1e-12)
	assert.Empty(t, r.Annotations)
	assert.True(t, r.Time.Equal(end1), "stamped with the run's end")
	assert.JSONEq(t, `{"session_id":"s-1","exit_reason":"end_turn","turn_count":5,"message_count":10,"total_cost_usd":0.06486,"cost_usd":0.06486,
		"model":"claude-sonnet-4-5-20250929","cwd":"/home/dev/app","created_at":"2026-02-09T09:00:00Z","updated_at":"2026-02-09T11:00:00Z"}`, string(r.Line))
	assert.Equal(t, format.Marks{"run:2026-02-09T09:00:00Z": "1"}, next, "no cumulative cost kept")
	marks := merge(format.Marks{}, next)

	// The same run rewritten (another UpdateMetadata): not a new run.
	writeMeta(t, dir, goatMeta("s-1", runStart, end1.Add(time.Minute), 5, 0.06486, "end_turn"))
	recs, next = f.SideRecords(messages, always, marks)
	assert.Empty(t, recs)
	assert.Empty(t, next)

	// Resumed: the next run's Create rewrites the file, then its end.
	start2 := end1.Add(10 * time.Minute)
	writeMeta(t, dir, goatMeta("s-1", start2, start2, 0, 0, ""))
	recs, _ = f.SideRecords(messages, always, marks)
	assert.Empty(t, recs)
	writeMeta(t, dir, goatMeta("s-1", start2, start2.Add(time.Minute), 1, 0.01269, "end_turn"))
	recs, next = f.SideRecords(messages, always, marks)
	require.Len(t, recs, 1)
	assert.InDelta(t, 0.01269, recs[0].CostUSD, 1e-12, "the second run's cost, whatever the first's")
	assert.Equal(t, format.Marks{"run:2026-02-09T11:10:00Z": "1"}, next)
}

// TestGoatRunShippedUnderItsUpdatedAt: a run whose summary shipped keyed
// by its updated_at (as summaries of every shape once were) is not
// shipped again.
func TestGoatRunShippedUnderItsUpdatedAt(t *testing.T) {
	f := New()
	_, messages := sideDir(t, goatMeta("s-1", runStart, runStart.Add(2*time.Hour), 1, 0.5, "end_turn"))
	recs, _ := f.SideRecords(messages, always, format.Marks{"summary:2026-02-09T11:00:00Z": "1"})
	assert.Empty(t, recs)
}

// TestSubagentCostCountsOnce: a subagent's session (named by a tool
// message of a sibling session) ships its summary with no cost of its
// own: its total_cost_usd is its parent run's shared tracker.
func TestSubagentCostCountsOnce(t *testing.T) {
	f := New()
	base := t.TempDir()
	sub, parent := "0abf2b7b-8d69-4da7-a4c8-26810e7f9855", "aeed4273-5dec-43f9-a8f1-548160eefd91"
	subDir := filepath.Join(base, sub)
	require.NoError(t, os.MkdirAll(subDir, 0o755))
	subMessages := filepath.Join(subDir, MessagesFile)
	require.NoError(t, os.WriteFile(subMessages, []byte(`{"uuid":"u1","timestamp":"2026-02-09T10:00:00Z","message":{"role":"user","content":"Find callers"}}`+"\n"), 0o644))
	writeMeta(t, subDir, goatMeta(sub, runStart, runStart.Add(2*time.Hour), 1, 0.054195, "end_turn"))

	recs, _ := f.SideRecords(subMessages, always, format.Marks{})
	require.Len(t, recs, 1)
	assert.InDelta(t, 0.054195, recs[0].CostUSD, 1e-12, "no session names it: a session of its own")

	parentDir := filepath.Join(base, parent)
	require.NoError(t, os.MkdirAll(parentDir, 0o755))
	// The mark straddles the first two reads (a chunk and the needle).
	prefix := `{"uuid":"t","timestamp":"2026-02-09T11:00:01Z","message":{"role":"tool","content":"`
	firstRead := scanChunk + len("Agent ID: "+sub)
	filler := strings.Repeat("x", firstRead-5-len(prefix)-len(`\n\n`))
	tool := fmt.Sprintf(`%s%s\n\nagentId: %s\n---\nCost: $0.0542","tool_call_id":"call_agent1"}}`, prefix, filler, sub)
	require.Equal(t, firstRead-5, strings.Index(tool, "agentId: "))
	require.NoError(t, os.WriteFile(filepath.Join(parentDir, MessagesFile), []byte(tool+"\n"), 0o644))
	recs, _ = f.SideRecords(subMessages, always, format.Marks{})
	require.Len(t, recs, 1)
	r := recs[0]
	assert.Zero(t, r.CostUSD, "counted in its parent's run")
	assert.True(t, r.HasCost)
	assert.InDelta(t, 0.054195, r.ReportedCostUSD, 1e-12)
	assert.Equal(t, []string{NoteCostInParent}, r.Annotations)
	var e summaryEntry
	require.NoError(t, json.Unmarshal(r.Line, &e))
	assert.Equal(t, parent, e.SubagentOf)

	assert.Equal(t, parent, ParentOf(subDir, time.Time{}, 1<<20))
	assert.Empty(t, ParentOf(subDir, time.Time{}, 100), "past the bound: not read")
	assert.Empty(t, ParentOf(subDir, time.Now().Add(time.Hour), 1<<20), "journals older than the run are not read")
	assert.Empty(t, ParentOf(parentDir, time.Time{}, 1<<20), "the parent is no subagent")
	assert.Empty(t, ParentOf(filepath.Join(base, "absent"), time.Time{}, 1<<20))
}

// TestGoatCheckpointRewritten: Goat writes every run's checkpoint to
// checkpoints/session-end, rewriting its manifest: each version ships once.
func TestGoatCheckpointRewritten(t *testing.T) {
	f := New()
	dir, messages := sideDir(t, "")
	manifest := `{"user_message_uuid":"session-end","created_at":%q,"files":[{"path":"/home/dev/app/calc.go","exists":true,"hash":"52bd","size":54}]}`
	writeManifest(t, dir, "session-end", fmt.Sprintf(manifest, "2026-11-26T11:48:20.155102578Z"))
	recs, next := f.SideRecords(messages, never, format.Marks{})
	require.Len(t, recs, 1)
	assert.Contains(t, string(recs[0].Line), `"checkpoint_id":"session-end"`)
	marks := merge(format.Marks{}, next)
	recs, _ = f.SideRecords(messages, never, marks)
	assert.Empty(t, recs, "the same checkpoint: once")
	writeManifest(t, dir, "session-end", fmt.Sprintf(manifest, "2026-11-26T11:48:20.33Z"))
	recs, next = f.SideRecords(messages, never, marks)
	require.Len(t, recs, 1, "the next run's checkpoint, same id")
	assert.Equal(t, format.Marks{"checkpoint:session-end@2026-11-26T11:48:20.33Z": "1"}, next)
}
