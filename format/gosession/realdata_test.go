package gosession

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/internal/realdata"
)

// The sessions of the real store (../shared/realdata/go-session, written
// by Goat's own loop and store): a run with tools and a subagent, resumed
// for a second run; the subagent's own directory; a multi-turn run.
const (
	realMain     = "aeed4273-5dec-43f9-a8f1-548160eefd91"
	realSubagent = "0abf2b7b-8d69-4da7-a4c8-26810e7f9855"
	realTurns    = "b1937e09-1ec4-420e-b2b4-0867c82db2fd"
)

// realLines judges a real journal line by line with a loaded state.
func realLines(t *testing.T, path string) ([][]byte, []format.Event, *State) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasSuffix(data, []byte("\n")), "%s: every line complete", path)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	f := New()
	p, ok := f.Claim(path)
	require.True(t, ok, path)
	st := f.NewState(p).(*State)
	st.Load(path)
	var text []string
	for _, l := range lines {
		text = append(text, string(l))
	}
	return lines, formattest.JudgeLines(f.NewJudge(), st, text...), st
}

// TestRealMessages: every line of every real messages.jsonl (Goat's
// nested MessageEntry) is valid, unannotated, at its own timestamp, with
// the derived state the table gives, tool calls paired with their
// results, and every session over (end_turn) with no call left open.
func TestRealMessages(t *testing.T) {
	root := realdata.Dir(t, "go-session")
	wantStates := map[string][]string{
		realMain: {"thinking", "acting", "thinking", "acting", "thinking", "acting", "thinking", "acting", "thinking",
			"idle", "thinking", "idle"},
		realSubagent: {"thinking", "idle"},
		realTurns:    {"thinking", "idle", "thinking", "idle"},
	}
	var c integrity.Capture
	ts := integrity.MustPaths("timestamp")
	total := 0
	for id, states := range wantStates {
		path := filepath.Join(root, id, MessagesFile)
		lines, evs, st := realLines(t, path)
		require.Len(t, evs, len(states), id)
		for i, ev := range evs {
			where := fmt.Sprintf("%s:%d", id, i+1)
			assert.Equal(t, integrity.Valid, ev.Outcome, "%s %s %v", where, ev.CorruptReason, formattest.Violations(&ev))
			assert.Zero(t, ev.NoteCount, "%s %v", where, formattest.Notes(&ev))
			assert.Equal(t, states[i], ev.State, where)
			require.Empty(t, c.Scan(lines[i], ts))
			want, _ := c.Time(0)
			assert.True(t, ev.HasTime && ev.Time.Equal(want), "%s: the line's own timestamp", where)
			assert.Equal(t, id, string(ev.SessionID))
		}
		total += len(evs)
		assert.Nil(t, st.Open(), id)
		over, _ := st.Over()
		assert.True(t, over, "%s: metadata.json's end_turn is newer than every message", id)
		assert.Equal(t, "end_turn", st.EndReason(), id)
		assert.Equal(t, StateIdle, st.Derived(), id)
	}
	assert.Equal(t, 18, total)

	// Tool pairing on the main session: each result names its call's tool.
	_, evs, _ := realLines(t, filepath.Join(root, realMain, MessagesFile))
	pairs := [][3]string{{TypeAssistant, "call_read1", "Read"}, {TypeTool, "call_read1", "Read"},
		{TypeAssistant, "call_edit1", "Edit"}, {TypeTool, "call_edit1", "Edit"},
		{TypeAssistant, "call_bash1", "Bash"}, {TypeTool, "call_bash1", "Bash"},
		{TypeAssistant, "call_agent1", "Agent"}, {TypeTool, "call_agent1", "Agent"}}
	for i, p := range pairs {
		ev := evs[i+1]
		assert.Equal(t, p, [3]string{ev.EventType, string(ev.ToolCallID), string(ev.ToolName)}, "line %d", i+2)
	}
	assert.Equal(t, "claude-sonnet-4-5-20250929", string(evs[1].Model))
}

// TestRealTranscripts: every line of the real transcript.jsonl files is a
// valid SDK message; a result line states its run's cost (shipped, never
// added).
func TestRealTranscripts(t *testing.T) {
	root := realdata.Dir(t, "go-session")
	var results []float64
	for _, id := range []string{realMain, realTurns} {
		_, evs, st := realLines(t, filepath.Join(root, id, TranscriptFile))
		for i, ev := range evs {
			assert.Equal(t, integrity.Valid, ev.Outcome, "%s:%d %v", id, i+1, formattest.Violations(&ev))
			assert.Equal(t, TypeTranscript, ev.EventType)
			if string(ev.TypeName) == "result" {
				require.True(t, ev.HasCost)
				results = append(results, ev.CostUSD)
			}
		}
		over, _ := st.Over()
		assert.True(t, over, id)
	}
	assert.InDeltaSlice(t, []float64{0.06486, 0.01269, 0.00423, 0.008625, 0.008625}, results, 1e-9)
}

// TestRealSniffAndClaim: the real journals are this format's, by path and
// by their first line.
func TestRealSniffAndClaim(t *testing.T) {
	root := realdata.Dir(t, "go-session")
	files, err := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 5)
	f := New()
	for _, file := range files {
		_, ok := f.Claim(file)
		assert.True(t, ok, file)
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		first, _, _ := bytes.Cut(data, []byte("\n"))
		assert.True(t, f.Sniff(first), file)
	}
}

// TestRealRunSummaries: the side records of the real store, as the files
// state them: metadata.json is the latest run's (the main session's
// resumed run: its first run's metadata is gone from disk); the subagent's
// cost is its parent run's shared tracker and adds nothing; the checkpoint
// ships once.
func TestRealRunSummaries(t *testing.T) {
	root := realdata.Dir(t, "go-session")
	f := New()
	type want struct {
		cost, reported float64
		notes          []string
		key            string
		checkpoints    int
	}
	for id, w := range map[string]want{
		realMain:     {0.012690000000000002, 0.012690000000000002, nil, "run:2026-11-26T11:48:20.305475002Z", 1},
		realSubagent: {0, 0.054195, []string{NoteCostInParent}, "run:2026-11-26T11:48:20.123906308Z", 0},
		realTurns:    {0.008624999999999999, 0.008624999999999999, nil, "run:2026-11-26T11:48:20.640157323Z", 0},
	} {
		messages := filepath.Join(root, id, MessagesFile)
		m, ok := ReadMetadata(filepath.Join(root, id), 0)
		require.True(t, ok, id)
		assert.True(t, m.PerRun, id)
		recs, next := f.SideRecords(messages, always, format.Marks{})
		var sums, cps []format.SideRecord
		for _, r := range recs {
			switch r.EventType {
			case TypeMetadata:
				sums = append(sums, r)
			case TypeCheckpoint:
				cps = append(cps, r)
			}
		}
		require.Len(t, sums, 1, id)
		s := sums[0]
		assert.Equal(t, w.cost, s.CostUSD, id)
		assert.Equal(t, w.reported, s.ReportedCostUSD, id)
		assert.Equal(t, w.notes, s.Annotations, id)
		assert.Equal(t, "end_turn", s.EndReason)
		assert.True(t, s.Time.Equal(m.UpdatedAt), id)
		assert.Equal(t, "1", next[w.key], id)
		assert.Len(t, cps, w.checkpoints, id)
		again, _ := f.SideRecords(messages, always, merge(format.Marks{}, next))
		assert.Empty(t, again, "%s: each record once", id)
	}
	cp, err := Checkpoints(filepath.Join(root, realMain))
	require.NoError(t, err)
	require.Len(t, cp, 1)
	assert.Equal(t, "session-end", cp[0].ID)
	assert.Equal(t, time.Date(2026, 11, 26, 11, 48, 20, 155102578, time.UTC), cp[0].Time.UTC())
	assert.Equal(t, realMain, ParentOf(filepath.Join(root, realSubagent), time.Time{}, DefaultMaxParentScan))
}
