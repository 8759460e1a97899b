package codelia

import (
	"fmt"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func req(seq int) string {
	return fmt.Sprintf(`{"type":"llm.request",%s,"seq":%d,"model":{"name":"model-%d"},"input":{"messages":[]}}`, common, seq, seq)
}

func resp(seq int) string {
	return fmt.Sprintf(`{"type":"llm.response",%s,"seq":%d,"output":{"messages":[],"usage":null}}`, common, seq)
}

func event(seq int) string {
	return fmt.Sprintf(`{"type":"agent.event",%s,"seq":%d,"event":{"type":"text"}}`, common, seq)
}

func TestContinuity(t *testing.T) {
	h := valid["header"]
	for _, c := range []struct {
		name  string
		lines []string
		notes [][]string // per line after the header
		open  []string
	}{
		{"in order", []string{req(1), resp(1), req(2), resp(2)}, [][]string{nil, nil, nil, nil}, nil},
		{"first seq is free", []string{req(5), resp(5)}, [][]string{nil, nil}, nil},
		{"gap of one", []string{req(1), req(3)}, [][]string{nil, {"request_seq_gap(2)"}},
			[]string{"llm.request seq 1 was never answered", "llm.request seq 3 was never answered"}},
		{"gap", []string{req(2), resp(2), req(5), resp(5)}, [][]string{nil, nil, {"request_seq_gap(3-4)"}, nil}, nil},
		{"repeat", []string{req(7), req(7), resp(7)}, [][]string{nil, {"request_seq_repeat(after 7)"}, nil}, nil},
		{"regression", []string{req(7), resp(7), req(3), resp(3)}, [][]string{nil, nil, {"request_seq_regression(after 7)"}, nil}, nil},
		{"response without request", []string{resp(1), req(2), resp(2), resp(2)},
			[][]string{{"response_without_request"}, nil, nil, {"response_without_request"}}, nil},
		{"answered out of order", []string{req(1), req(2), resp(2), resp(1)}, [][]string{nil, nil, nil, nil}, nil},
		{"unanswered at end", []string{req(1), resp(1), req(2), req(3)}, [][]string{nil, nil, nil, nil},
			[]string{"llm.request seq 2 was never answered", "llm.request seq 3 was never answered"}},
		{"agent events increase", []string{event(0), event(1), event(5)}, [][]string{nil, nil, nil}, nil},
		{"agent event repeat", []string{event(0), event(0)}, [][]string{nil, {"event_seq_repeat(after 0)"}}, nil},
		{"agent event regression", []string{event(4), event(2), event(3)},
			[][]string{nil, {"event_seq_regression(after 4)"}, nil}, nil},
		{"sequences are separate", []string{event(0), req(0), event(1), resp(0)}, [][]string{nil, nil, nil, nil}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, st := run(t, runPath, append([]string{h}, c.lines...)...)
			for i, ev := range evs[1:] {
				assert.Equal(t, c.notes[i], formattest.Notes(&ev), "line %d", i+2)
				assert.Equal(t, integrity.Valid, ev.Outcome)
			}
			assert.Equal(t, c.open, st.Open())
		})
	}
}

func TestResponseModelComesFromItsRequest(t *testing.T) {
	evs, _ := run(t, runPath, valid["header"], req(1), req(2), resp(2), resp(1), resp(9))
	assert.Equal(t, "model-2", string(evs[3].Model))
	assert.Equal(t, "model-1", string(evs[4].Model))
	assert.Equal(t, "gpt-4.1-mini", string(evs[5].Model), "else the header's model")
	evs, _ = run(t, runPath, valid["header"], `{"type":"llm.request",`+common+`,"seq":1,"input":{"messages":[]}}`, resp(1))
	assert.Equal(t, "gpt-4.1-mini", string(evs[1].Model), "a request without a model: the header's")
	assert.Equal(t, "gpt-4.1-mini", string(evs[2].Model))
	evs, _ = run(t, runPath, valid["header"], `{"type":"llm.request",`+common+`,"seq":1,"input":{"messages":[],"model":"input-model"}}`, resp(1))
	assert.Equal(t, "input-model", string(evs[1].Model), "input.model when model.name is absent")
	assert.Equal(t, "input-model", string(evs[2].Model))
	for _, ev := range evs[1:] {
		assert.True(t, ev.HasPair)
		assert.Equal(t, int64(1), ev.Pair)
	}
}

func TestOpenRequestsAreBounded(t *testing.T) {
	f, err := NewWith(Config{KnownSchemaVersions: []int64{1}, MaxOpenRequests: 2})
	require.NoError(t, err)
	st := f.NewState(format.Path{}).(*State)
	j := f.NewJudge()
	var a integrity.Arena
	var ev format.Event
	for i := 1; i <= 5; i++ {
		j.Judge([]byte(req(i)), st, &a, &ev)
	}
	assert.Len(t, st.open, 2)
	assert.Equal(t, []string{"llm.request seq 1 was never answered", "llm.request seq 2 was never answered",
		"3 more llm.requests were never answered"}, st.Open())
	j.Judge([]byte(resp(4)), st, &a, &ev)
	assert.Zero(t, ev.NoteCount, "perhaps an untracked request's: not annotated")
	assert.Len(t, st.Open(), 3)
}

func TestHeaderRules(t *testing.T) {
	h := valid["header"]
	t.Run("missing", func(t *testing.T) {
		evs, _ := run(t, runPath, valid["run.start"], req(1))
		assert.Equal(t, []string{"header_missing"}, formattest.Notes(&evs[0]))
		assert.Nil(t, formattest.Notes(&evs[1]), "only the first line")
	})
	t.Run("missing after a corrupt first line", func(t *testing.T) {
		evs, _ := run(t, runPath, `{"type":"head`, valid["run.start"])
		assert.Equal(t, []string{"header_missing"}, formattest.Notes(&evs[1]))
	})
	t.Run("misplaced", func(t *testing.T) {
		evs, st := run(t, runPath, valid["run.start"], h, req(1))
		assert.Equal(t, []string{"header_misplaced"}, formattest.Notes(&evs[1]))
		assert.Equal(t, sessionID, string(evs[2].SessionID), "a late header still names the session")
		evs, _ = run(t, runPath, valid["run.start"], formattest.Mutate(t, h, "session_id", formattest.Del), req(1))
		assert.Equal(t, sessionID, string(evs[2].SessionID), "a header without one keeps run.start's")
		assert.True(t, st.headerSeen)
	})
	t.Run("repeated", func(t *testing.T) {
		evs, st := run(t, runPath, h, formattest.Mutate(t, h, "schema_version", 7))
		assert.Equal(t, []string{"header_misplaced", "schema_version_unknown(7)"}, formattest.Notes(&evs[1]))
		assert.False(t, st.bestEffort, "the first header decides")
	})
	t.Run("unknown version is best effort", func(t *testing.T) {
		evs, st := run(t, runPath, formattest.Mutate(t, formattest.Mutate(t, h, "schema_version", 2), "started_at", formattest.Del),
			`{"type":"run.end","run_id":"`+runID+`"}`, `{"type":"x.acme.y"}`)
		for _, ev := range evs {
			assert.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
			assert.NotZero(t, ev.Flags&format.BestEffort)
		}
		assert.Equal(t, []string{"schema_version_unknown(2)"}, formattest.Notes(&evs[0]))
		assert.True(t, evs[1].Ends, "what can be read is still used")
		over, terminal := st.Over()
		assert.True(t, over && terminal)
	})
	t.Run("known version is strict", func(t *testing.T) {
		evs, _ := run(t, runPath, h, `{"type":"run.end","run_id":"`+runID+`"}`)
		assert.Equal(t, integrity.SchemaInvalid, evs[1].Outcome)
		assert.Zero(t, evs[1].Flags)
	})
	t.Run("run_id mismatch", func(t *testing.T) {
		other := formattest.Mutate(t, valid["run.end"], "run_id", "00000000-0000-4000-8000-000000000000")
		evs, _ := run(t, runPath, h, other, `{"type":"x.acme.y","run_id":"z"}`, `{"type":"x.acme.y"}`)
		assert.Equal(t, []string{"run_id_mismatch(" + runID + ")"}, formattest.Notes(&evs[1]))
		assert.Equal(t, integrity.Valid, evs[1].Outcome, "an annotation, not a violation")
		assert.Equal(t, []string{"run_id_mismatch(" + runID + ")"}, formattest.Notes(&evs[2]), "extension records too")
		assert.Equal(t, runID, string(evs[3].RunID), "a record without run_id carries the file's")
	})
	t.Run("no header, no path: the first run_id", func(t *testing.T) {
		evs, _ := run(t, "/elsewhere/x.jsonl", req(1), formattest.Mutate(t, resp(1), "run_id", "other"))
		assert.Equal(t, []string{"header_missing"}, formattest.Notes(&evs[0]))
		assert.Equal(t, []string{"run_id_mismatch(" + runID + ")"}, formattest.Notes(&evs[1]))
	})
}

func TestPathChecks(t *testing.T) {
	h := valid["header"]
	evs, _ := run(t, runPath, h)
	assert.Nil(t, formattest.Notes(&evs[0]), "file name and date match")
	evs, _ = run(t, "/r/sessions/2026/02/03/another-name.jsonl", h)
	assert.Equal(t, []string{"file_name_mismatch(another-name)"}, formattest.Notes(&evs[0]))
	evs, _ = run(t, "/r/sessions/2026/02/04/"+runID+".jsonl", h)
	assert.Equal(t, []string{"date_mismatch(2026-02-03)"}, formattest.Notes(&evs[0]), "the header's UTC date")
	evs, _ = run(t, "/r/sessions/2026/02/04/"+runID+".jsonl", formattest.Mutate(t, h, "started_at", "2026-02-04T07:00:00+09:00"))
	assert.Equal(t, []string{"date_mismatch(2026-02-03)"}, formattest.Notes(&evs[0]), "read in UTC")
	evs, _ = run(t, "/r/sessions/2026/02/03/"+runID+".jsonl", formattest.Mutate(t, h, "started_at", "2026-02-04T07:00:00+09:00"))
	assert.Nil(t, formattest.Notes(&evs[0]))
	evs, _ = run(t, "/r/sessions/2026/02/30/"+runID+".jsonl", h)
	assert.Nil(t, formattest.Notes(&evs[0]), "no date to compare with")
}

func TestOverAndDerived(t *testing.T) {
	status := func(s string) string { return formattest.Mutate(t, valid["run.status"], "status", s) }
	for _, c := range []struct {
		name           string
		lines          []string
		over           bool
		derived        string
		endsOnLastLine bool
	}{
		{"crashed", []string{req(1)}, false, "", false},
		{"running", []string{status("running")}, false, "running", false},
		{"awaiting ui", []string{status("awaiting_ui")}, false, "awaiting_ui", false},
		{"completed", []string{status("completed")}, true, "completed", true},
		{"error", []string{status("error")}, true, "error", true},
		{"cancelled", []string{status("cancelled")}, true, "cancelled", true},
		{"unknown status", []string{status("paused")}, false, "other", false},
		{"run.end", []string{status("running"), formattest.Mutate(t, valid["run.end"], "outcome", "cancelled")}, true, "cancelled", true},
		{"run.end unknown outcome", []string{formattest.Mutate(t, valid["run.end"], "outcome", "timeout")}, true, "other", true},
		{"schema-invalid run.end", []string{formattest.Mutate(t, valid["run.end"], "outcome", formattest.Del)}, true, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, st := run(t, runPath, append([]string{valid["header"]}, c.lines...)...)
			over, terminal := st.Over()
			assert.Equal(t, c.over, over)
			assert.Equal(t, c.over, terminal)
			assert.Equal(t, c.derived, st.Derived())
			last := evs[len(evs)-1]
			assert.Equal(t, c.endsOnLastLine, last.Ends)
			assert.Equal(t, c.endsOnLastLine, last.Terminal)
			assert.Equal(t, c.derived, last.State)
		})
	}
}

func TestNilState(t *testing.T) {
	j := New().NewJudge()
	var a integrity.Arena
	var ev format.Event
	for _, l := range valid {
		j.Judge([]byte(l), nil, &a, &ev)
		assert.Equal(t, integrity.Valid, ev.Outcome)
	}
	j.Judge([]byte(valid["run.end"]), format.State(nil), &a, &ev)
	assert.True(t, ev.Ends)
}
