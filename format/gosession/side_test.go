package gosession

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
)

// sideDir makes a session directory with a messages.jsonl and the given
// metadata.json content ("" for none).
func sideDir(t *testing.T, meta string) (dir, messages string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "s-1")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	messages = filepath.Join(dir, MessagesFile)
	require.NoError(t, os.WriteFile(messages, []byte(`{"uuid":"u1","timestamp":"2026-02-09T10:00:00Z","role":"user","content":"hi"}`+"\n"), 0o644))
	if meta != "" {
		writeMeta(t, dir, meta)
	}
	return dir, messages
}

func writeMeta(t *testing.T, dir, meta string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, MetadataFile), []byte(meta), 0o644))
}

func writeManifest(t *testing.T, dir, id, text string) {
	t.Helper()
	p := filepath.Join(dir, CheckpointsDir, id, ManifestFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

// merge applies next to marks, as the ledger does once the records are in
// Loki.
func merge(marks, next format.Marks) format.Marks {
	out := format.Marks{}
	for k, v := range marks {
		out[k] = v
	}
	for k, v := range next {
		out[k] = v
	}
	return out
}

// always and never stand for the finalizer's reading of the whole
// session (format.SideRecords' over).
func always() bool { return true }
func never() bool  { return false }

// TestSummaryWaitsForOver: a summary is due only when over() says the run
// ended, and over() is asked only when one may be due.
func TestSummaryWaitsForOver(t *testing.T) {
	f := New()
	_, messages := sideDir(t, `{"session_id":"s-1","updated_at":"2026-02-09T10:05:00Z","total_cost_usd":0.5,"exit_reason":"end_turn"}`)
	recs, next := f.SideRecords(messages, never, format.Marks{})
	assert.Empty(t, recs, "exit_reason written, but the lines say the run goes on (resumed)")
	assert.Empty(t, next)
	asked := 0
	count := func() bool { asked++; return true }
	_, next = f.SideRecords(messages, count, format.Marks{})
	assert.Equal(t, 1, asked)
	_, _ = f.SideRecords(messages, count, next)
	assert.Equal(t, 1, asked, "the run's summary is marked: the whole file is not read again")
	_, running := sideDir(t, `{"session_id":"s-1","exit_reason":""}`)
	_, _ = f.SideRecords(running, count, format.Marks{})
	assert.Equal(t, 1, asked, "no exit_reason: no summary can be due")
}

func TestCheckpointsShipOnce(t *testing.T) {
	f := New()
	dir, messages := sideDir(t, `{"session_id":"s-1","model":"m"}`)
	writeManifest(t, dir, "cp-001", `{"checkpoint_id":"cp-001","created_at":"2026-02-09T10:00:05Z","files":[{"path":"a.go","hash":"x"}]}`)
	writeManifest(t, dir, "u-7", `{"user_message_uuid":"u-7","created_at":"2026-02-09T10:01:00Z","files":[{"path":"a","exists":true,"hash":"x","size":1},{"path":"b","exists":false}]}`)
	writeManifest(t, dir, "cp-002", `{"checkpoint_id":"cp-002","files":[`) // half-written

	recs, next := f.SideRecords(messages, never, format.Marks{})
	require.Len(t, recs, 2, "the half-written manifest waits")
	assert.Equal(t, TypeCheckpoint, recs[0].EventType)
	assert.Equal(t, format.RoleCheckpoint, recs[0].Role)
	assert.Equal(t, time.Date(2026, 2, 9, 10, 0, 5, 0, time.UTC), recs[0].Time.UTC())
	assert.JSONEq(t, `{"checkpoint_id":"cp-001","created_at":"2026-02-09T10:00:05Z","checkpoint_files":1,"manifest":"`+
		filepath.Join(dir, "checkpoints/cp-001/manifest.json")+`"}`, string(recs[0].Line))
	var second checkpointEntry
	require.NoError(t, json.Unmarshal(recs[1].Line, &second))
	assert.Equal(t, checkpointEntry{ID: "u-7", CreatedAt: "2026-02-09T10:01:00Z", Files: 2, Manifest: filepath.Join(dir, "checkpoints/u-7/manifest.json")}, second)
	assert.False(t, recs[0].HasCost)
	assert.Equal(t, format.Marks{"checkpoint:cp-001@2026-02-09T10:00:05Z": "1", "checkpoint:u-7@2026-02-09T10:01:00Z": "1"}, next,
		"keyed by directory and time")

	marks := merge(format.Marks{}, next)
	recs, next = f.SideRecords(messages, never, marks)
	assert.Empty(t, recs, "shipped once")
	assert.Empty(t, next)

	writeManifest(t, dir, "cp-002", `{"checkpoint_id":"cp-002","files":[]}`) // complete now, no created_at
	recs, next = f.SideRecords(messages, never, marks)
	require.Len(t, recs, 1)
	fi, err := os.Stat(filepath.Join(dir, "checkpoints/cp-002/manifest.json"))
	require.NoError(t, err)
	assert.Equal(t, fi.ModTime(), recs[0].Time, "without created_at: the manifest's modification time")
	assert.Equal(t, format.Marks{"checkpoint:cp-002": "1"}, next)

	recs, _ = f.SideRecords(filepath.Join(dir, TranscriptFile), always, format.Marks{})
	assert.Empty(t, recs, "only the main journal carries its session's records")
}

func TestSummaryShipsTheCostGrowth(t *testing.T) {
	f := New()
	dir, messages := sideDir(t, `{"session_id":"s-1","model":"claude-sonnet-4-5","agent_name":"fixer","cwd":"/w",
		"created_at":"2026-02-09T10:00:00Z","updated_at":"2026-02-09T10:05:00Z","turn_count":3,"total_cost_usd":0.5,"exit_reason":"end_turn"}`)

	recs, next := f.SideRecords(messages, never, format.Marks{})
	assert.Empty(t, recs, "no summary before the session is over")
	assert.Empty(t, next)

	recs, next = f.SideRecords(messages, always, format.Marks{})
	require.Len(t, recs, 1)
	r := recs[0]
	assert.Equal(t, TypeMetadata, r.EventType)
	assert.Equal(t, format.RoleSessionEnd, r.Role)
	assert.Equal(t, "end_turn", r.EndReason)
	assert.Equal(t, "claude-sonnet-4-5", r.Model)
	assert.Equal(t, time.Date(2026, 2, 9, 10, 5, 0, 0, time.UTC), r.Time.UTC(), "stamped with updated_at")
	assert.True(t, r.HasCost)
	assert.InDelta(t, 0.5, r.CostUSD, 1e-12)
	assert.True(t, r.HasReported)
	assert.InDelta(t, 0.5, r.ReportedCostUSD, 1e-12)
	assert.Empty(t, r.Annotations)
	assert.JSONEq(t, `{"session_id":"s-1","exit_reason":"end_turn","turn_count":3,"total_cost_usd":0.5,"cost_usd":0.5,
		"model":"claude-sonnet-4-5","agent_name":"fixer","cwd":"/w","created_at":"2026-02-09T10:00:00Z","updated_at":"2026-02-09T10:05:00Z"}`, string(r.Line))
	assert.Equal(t, format.Marks{"cost": "0.5", "summary:2026-02-09T10:05:00Z": "1"}, next)
	marks := merge(format.Marks{}, next)

	recs, next = f.SideRecords(messages, always, marks)
	assert.Empty(t, recs, "the same run's summary ships once")
	assert.Empty(t, next)

	// Resumed: a second run ends; total_cost_usd is cumulative.
	writeMeta(t, dir, `{"session_id":"s-1","model":"claude-sonnet-4-5","created_at":"2026-02-09T10:00:00Z",
		"updated_at":"2026-02-10T08:00:00Z","turn_count":5,"total_cost_usd":0.8,"exit_reason":"max_turns"}`)
	recs, next = f.SideRecords(messages, always, marks)
	require.Len(t, recs, 1)
	assert.InDelta(t, 0.3, recs[0].CostUSD, 1e-12, "only the second run's cost counts")
	assert.InDelta(t, 0.8, recs[0].ReportedCostUSD, 1e-12)
	assert.Equal(t, "max_turns", recs[0].EndReason)
	assert.Equal(t, format.Marks{"cost": "0.8", "summary:2026-02-10T08:00:00Z": "1"}, next)
	marks = merge(marks, next)

	// The directory replaced by a new session of the same id: its total
	// starts over, and counts whole.
	writeMeta(t, dir, `{"session_id":"s-1","updated_at":"2026-02-11T08:00:00Z","total_cost_usd":0.1,"exit_reason":"end_turn"}`)
	recs, _ = f.SideRecords(messages, always, marks)
	require.Len(t, recs, 1)
	assert.InDelta(t, 0.1, recs[0].CostUSD, 1e-12)
	assert.Equal(t, "unknown", orUnknown(recs[0].Model))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func TestForkCostBaseline(t *testing.T) {
	f := New()
	fork := `{"session_id":"s-1","parent_session_id":"s-0","model":"m","created_at":"2026-02-09T10:00:00Z",
		"updated_at":"2026-02-09T10:00:00Z","turn_count":4,"total_cost_usd":0.4,"exit_reason":"end_turn"}`
	ended := `{"session_id":"s-1","parent_session_id":"s-0","model":"m","created_at":"2026-02-09T10:00:00Z",
		"updated_at":"2026-02-09T10:09:00Z","turn_count":6,"total_cost_usd":0.7,"exit_reason":"end_turn"}`

	t.Run("seen before its first run ended", func(t *testing.T) {
		dir, messages := sideDir(t, fork)
		recs, next := f.SideRecords(messages, never, format.Marks{})
		assert.Empty(t, recs)
		assert.Equal(t, format.Marks{"cost": "0.4"}, next, "the source's cost is the fork's baseline")
		writeMeta(t, dir, ended)
		recs, _ = f.SideRecords(messages, always, next)
		require.Len(t, recs, 1)
		assert.InDelta(t, 0.3, recs[0].CostUSD, 1e-12)
		assert.Empty(t, recs[0].Annotations)
	})
	t.Run("first seen ended", func(t *testing.T) {
		_, messages := sideDir(t, ended)
		recs, _ := f.SideRecords(messages, always, format.Marks{})
		require.Len(t, recs, 1)
		assert.InDelta(t, 0.7, recs[0].CostUSD, 1e-12)
		assert.Equal(t, []string{NoteCostIncludesParent}, recs[0].Annotations)
		assert.Contains(t, string(recs[0].Line), `"parent_session_id":"s-0"`)
	})
}

func TestSummaryEdges(t *testing.T) {
	f := New()
	_, messages := sideDir(t, `{"session_id":"other","exit_reason":"interrupted","updated_at":"2026-02-09T10:05:00Z"}`)
	recs, next := f.SideRecords(messages, always, format.Marks{})
	require.Len(t, recs, 1)
	assert.Equal(t, []string{NoteMetadataIDMismatch}, recs[0].Annotations)
	assert.Contains(t, string(recs[0].Line), `"session_id":"s-1","metadata_session_id":"other"`)
	assert.False(t, recs[0].HasCost, "no total_cost_usd: no cost, not a zero one")
	assert.Contains(t, string(recs[0].Line), `"total_cost_usd":null`)
	assert.NotContains(t, next, "cost")

	dir, messages := sideDir(t, `{"session_id":"s-1","exit_reason":"end_turn"`) // half-written
	recs, next = f.SideRecords(messages, always, format.Marks{})
	assert.Empty(t, recs, "metadata caught half rewritten: no summary this pass")
	assert.Empty(t, next, "nothing marked: the next pass tries again")
	assert.False(t, f.EndWritten(messages))
	writeMeta(t, dir, `{"session_id":"s-1","exit_reason":"end_turn"}`)
	assert.True(t, f.EndWritten(messages))
	assert.True(t, f.EndWritten(filepath.Join(dir, TranscriptFile)))
	writeMeta(t, dir, `{"session_id":"s-1","exit_reason":""}`)
	assert.False(t, f.EndWritten(messages))
	assert.False(t, f.EndWritten(filepath.Join(dir, MetadataFile)))
}
