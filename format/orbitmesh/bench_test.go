package orbitmesh

import (
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// BenchmarkJudge judges a realistic session's mix: mostly messages, a run
// that waits and resumes, token audit records, status records.
func BenchmarkJudge(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"seq":1,"ts":"2026-02-21T10:01:10Z","kind":"message.user","message_id":"msg_u1","content":"run the tests in ./pkg and fix what fails"}`),
		[]byte(`{"seq":2,"ts":"2026-02-21T10:01:11Z","kind":"run.started","run_id":"run_9f5"}`),
		[]byte(`{"seq":3,"ts":"2026-02-21T10:01:12.123Z","kind":"message.assistant","message_id":"msg_a1","content":"I will run go test ./pkg/... first.","tool_calls":[{"id":"call_1","name":"shell","arguments":{"cmd":"go test ./pkg/..."}}]}`),
		[]byte(`{"seq":4,"ts":"2026-02-21T10:01:25Z","kind":"token.minted","token_id":"rt_5f0","run_id":"run_9f5"}`),
		[]byte(`{"seq":5,"ts":"2026-02-21T10:01:25Z","kind":"run.waiting","run_id":"run_9f5","wait_kind":"tool_result","resume_token_id":"rt_5f0"}`),
		[]byte(`{"seq":6,"ts":"2026-02-21T10:01:25Z","kind":"status.derived","status":"waiting"}`),
		[]byte(`{"seq":7,"ts":"2026-02-21T10:02:02Z","kind":"run.resumed","run_id":"run_9f5","resume_token_id":"rt_5f0"}`),
		[]byte(`{"seq":8,"ts":"2026-02-21T10:02:02Z","kind":"token.consumed","token_id":"rt_5f0"}`),
		[]byte(`{"seq":9,"ts":"2026-02-21T10:02:03Z","kind":"message.tool","message_id":"msg_t1","tool_call_id":"call_1","content":"--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2\nFAIL"}`),
		[]byte(`{"seq":10,"ts":"2026-02-21T10:02:09Z","kind":"message.assistant","message_id":"msg_a2","content":"The parser drops the last token; fixing the loop bound."}`),
		[]byte(`{"seq":11,"ts":"2026-02-21T10:02:30Z","kind":"run.completed","run_id":"run_9f5"}`),
		[]byte(`{"seq":12,"ts":"2026-02-21T10:02:30Z","kind":"status.derived","status":"idle"}`),
	}
	var n int64
	for _, l := range lines {
		n += int64(len(l))
	}
	f := testFormat(b, clock)
	j := f.NewJudge()
	st := f.NewState(format.Path{}).(*State)
	// The snapshot applies to every line (last_seq 0): the wait's deadline
	// and token are checked.
	meta := strings.Replace(specSnapshot, `"last_seq": 148`, `"last_seq": 0`, 1)
	st.UseSnapshot(ParseSnapshot([]byte(meta), []byte(`{"rt_5f0":{"state":"active"}}`)))
	a := integrity.NewArena(1 << 20)
	var ev format.Event
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(1 << 20)
		for _, l := range lines {
			j.Judge(l, st, a, &ev)
		}
	}
}

// BenchmarkJudgeCurrent judges the runtime's own records: a Claude
// provider's stream (deltas, events with their usage) and ACP records,
// with side files that make every line's status a lookup.
func BenchmarkJudgeCurrent(b *testing.B) {
	lines := [][]byte{
		[]byte(cur(1, "user", "append", "")),
		[]byte(cur(2, "system", "append_raw", initS)),
		[]byte(cur(3, "metric", "append_raw", startA)),
		[]byte(cur(4, "output", "append_output_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I'll review"}}`)),
		[]byte(cur(5, "system", "append_raw", snapA)),
		[]byte(cur(6, "metric", "append_raw", deltaA)),
		[]byte(cur(7, "system", "append_raw", `{"type":"message_stop"}`)),
		[]byte(cur(8, "tool_use", "append_raw", `{"toolCallId":"call_1","title":"go test","kind":"execute","status":"in_progress"}`)),
		[]byte(cur(9, "metric", "append_raw", startB)),
		[]byte(cur(10, "metric", "append_raw", deltaB)),
		[]byte(cur(11, "error", "append", "")),
	}
	var n int64
	for _, l := range lines {
		n += int64(len(l))
	}
	f := testFormat(b, clock)
	j := f.NewJudge()
	st := f.NewState(format.Path{}).(*State)
	st.UseSide(Side{Attempts: []Attempt{{ID: "a1", Started: base, Ended: base.Add(5 * time.Second), TerminalReason: "interrupted", InterruptionReason: "waiting for tool result: c1"},
		{ID: "a2", Started: base.Add(6 * time.Second)}},
		Tokens: []ResumeToken{{ID: "t", AttemptID: "a1", Created: base.Add(4 * time.Second), Expires: base.Add(time.Hour)}}})
	a := integrity.NewArena(1 << 20)
	var ev format.Event
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(1 << 20)
		for _, l := range lines {
			j.Judge(l, st, a, &ev)
		}
	}
}
