package gosession

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

// benchSession is a realistic messages.jsonl: per turn a user message, an
// assistant message calling two tools (OpenAI shape), the two tool
// results and the assistant's answer, timestamps as Go writes them.
func benchSession(turns int) [][]byte {
	zone := time.FixedZone("", 3600)
	at := func(i, k int) string {
		return base.In(zone).Add(time.Duration(i)*time.Minute + time.Duration(k)*1234567*time.Microsecond).Format(time.RFC3339Nano)
	}
	output := strings.Repeat(`ok  \tgithub.com/acme/app/pkg/auth\t0.012s\n`, 6) + `--- FAIL: TestLogin (0.01s)\n    login_test.go:42: want error for an empty password\nFAIL`
	var lines [][]byte
	for i := range turns {
		lines = append(lines,
			fmt.Appendf(nil, `{"uuid":"6f0c2a9e-8d41-4b7a-a1e3-%012d","timestamp":%q,"role":"user","content":"the login test fails again after the refactor, please look at pkg/auth and fix it"}`, 5*i, at(i, 0)),
			fmt.Appendf(nil, `{"uuid":"6f0c2a9e-8d41-4b7a-a1e3-%012d","timestamp":%q,"role":"assistant","content":"I will run the auth tests and read the login code first.","tool_calls":[{"id":"call_%da","type":"function","function":{"name":"bash","arguments":"{\"command\":\"go test ./pkg/auth/...\"}"}},{"id":"call_%db","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"pkg/auth/login.go\"}"}}]}`, 5*i+1, at(i, 1), i, i),
			fmt.Appendf(nil, `{"uuid":"6f0c2a9e-8d41-4b7a-a1e3-%012d","timestamp":%q,"role":"tool","tool_call_id":"call_%da","content":%q}`, 5*i+2, at(i, 2), i, output),
			fmt.Appendf(nil, `{"uuid":"6f0c2a9e-8d41-4b7a-a1e3-%012d","timestamp":%q,"role":"tool","tool_call_id":"call_%db","name":"read_file","content":"package auth\n\nimport \"errors\"\n\nfunc Login(user, password string) error {\n\treturn nil\n}\n"}`, 5*i+3, at(i, 3), i),
			fmt.Appendf(nil, `{"uuid":"6f0c2a9e-8d41-4b7a-a1e3-%012d","timestamp":%q,"role":"assistant","content":"Login accepted an empty password; it now returns ErrEmptyPassword and the test passes."}`, 5*i+4, at(i, 4)),
		)
	}
	return lines
}

func benchJudge(b *testing.B, lines [][]byte, journal Journal) {
	f := New()
	p, _ := f.Claim(sessionPath)
	st := f.NewState(p).(*State)
	st.journal = journal
	st.UseMetadata(Metadata{Read: true, Model: "claude-sonnet-4-5-20250929"})
	formattest.BenchJudge(b, f.NewJudge(), st, lines)
}

func BenchmarkJudge(b *testing.B) { benchJudge(b, benchSession(200), Messages) }

func BenchmarkJudgeTranscript(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"type":"system","subtype":"init","uuid":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","session_id":"0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","model":"claude-sonnet-4-5-20250929","cwd":"/home/dev/app","tools":["bash","read_file","edit_file"]}`),
		[]byte(`{"type":"assistant","uuid":"9a7e3b10-5c2d-4e8f-b6a9-0d1e2f3a4b5c","session_id":"0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","message":{"role":"assistant","content":[{"type":"text","text":"Running the tests."},{"type":"tool_use","id":"call_7","name":"bash","input":{"command":"go test ./..."}}]},"parent_tool_use_id":null}`),
		[]byte(`{"type":"user","uuid":"c2d4e6f8-0a1b-4c3d-9e5f-7a8b9c0d1e2f","session_id":"0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_7","content":"--- FAIL: TestLogin (0.01s)"}]},"parent_tool_use_id":null}`),
		[]byte(`{"type":"result","subtype":"success","uuid":"1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e","session_id":"0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","is_error":false,"num_turns":3,"total_cost_usd":0.0234,"usage":{"input_tokens":5012,"output_tokens":388}}`),
	}
	benchJudge(b, lines, Transcript)
}

func TestBenchSessionIsClean(t *testing.T) {
	var lines []string
	for _, l := range benchSession(3) {
		lines = append(lines, string(l))
	}
	evs, st := run(t, nil, lines...)
	for i, ev := range evs {
		if ev.Outcome != integrity.Valid || ev.NoteCount != 0 {
			t.Fatalf("line %d: %s %v %v", i+1, ev.Outcome, formattest.Violations(&ev), formattest.Notes(&ev))
		}
	}
	if st.Open() != nil || st.Derived() != StateIdle {
		t.Fatal(st.Open(), st.Derived())
	}
}

// TestJudgeDoesNotAllocate: once the buffers have grown, judging a line
// (a message with its continuity, a transcript line) allocates nothing.
func TestJudgeDoesNotAllocate(t *testing.T) {
	lines := benchSession(20)
	for _, l := range benchSession(3) {
		lines = append(lines, nestOf(l))
	}
	lines = append(lines, []byte(`{"uuid":"n","message":{"role":"tool","tool_calls":[{}],"name":3}}`), []byte(`{"uuid":"n","message":{}}`), []byte(`{"type":"result","total_cost_usd":0.5}`), []byte(`{"role":"tool","tool_call_id":"none","uuid":"x","timestamp":"2026-02-09T14:00:00Z"}`),
		[]byte(`{"role":"assistant","tool_calls":[5,{"id":""},{"id":"a","id":"b"}],"uuid":""}`), []byte(`{"role":`),
		[]byte(`{"role":"user","uuid":"y","timestamp":"2026-02-09T14:03:11.52133+05:30"}`), []byte(`{"role":"user","uuid":"z","timestamp":"2026-02-09T14:03:11-09:30"}`))
	f := New()
	p, _ := f.Claim(sessionPath)
	st := f.NewState(p).(*State)
	st.UseMetadata(Metadata{Read: true, Model: "m"})
	j := f.NewJudge()
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	for range 2 {
		for _, l := range lines {
			j.Judge(l, st, a, &ev)
		}
	}
	i := 0
	if n := testing.AllocsPerRun(1000, func() {
		a.Reset(1 << 16)
		j.Judge(lines[i%len(lines)], st, a, &ev)
		i++
	}); n != 0 {
		t.Fatalf("%v allocations per line", n)
	}
}
