package codelia

import (
	"fmt"
	"strings"
	"testing"

	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

// benchRun is a realistic run: per invocation an llm.request carrying the
// conversation, its llm.response with usage, an agent.event tool call, the
// tool.output and an agent.event with text.
func benchRun(invocations int) [][]byte {
	history := strings.Repeat(`{"role":"user","content":"please look at the failing test in pkg/a and fix it"},`, 12)
	lines := [][]byte{[]byte(valid["header"]), []byte(valid["run.start"])}
	ev := 0
	for i := 1; i <= invocations; i++ {
		ts := fmt.Sprintf(`"run_id":"%s","ts":"2026-02-03T12:%02d:%02d.%03dZ"`, runID, i/60%60, i%60, i%1000)
		lines = append(lines,
			fmt.Appendf(nil, `{"type":"llm.request",%s,"seq":%d,"model":{"provider":"openai","name":"gpt-4.1-mini"},"input":{"messages":[%s{"role":"user","content":"go on"}],"tools":[{"type":"function","function":{"name":"exec_command","parameters":{"type":"object"}}}],"tool_choice":null,"model":"gpt-4.1-mini"}}`, ts, i, history),
			fmt.Appendf(nil, `{"type":"llm.response",%s,"seq":%d,"output":{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}"}}]}],"usage":{"model":"gpt-4.1-mini-2025-04-14","input_tokens":%d,"input_cached_tokens":%d,"output_tokens":42,"total_tokens":%d},"stop_reason":"tool_use"}}`, ts, i, i, 1000+i, 900, 1042+i),
			fmt.Appendf(nil, `{"type":"agent.event",%s,"seq":%d,"event":{"type":"tool_call","tool":"exec_command","args":{"cmd":"go test ./..."},"tool_call_id":"call_%d"}}`, ts, ev, i),
			fmt.Appendf(nil, `{"type":"tool.output",%s,"tool":"exec_command","tool_call_id":"call_%d","result_raw":"ok  \tpkg/a\t0.012s\nFAIL\tpkg/b\t0.020s\n","output_ref":{"id":"call_%d","byte_size":44,"line_count":2}}`, ts, i, i),
			fmt.Appendf(nil, `{"type":"agent.event",%s,"seq":%d,"event":{"type":"text","content":"The test in pkg/b still fails; looking closer."}}`, ts, ev+1),
		)
		ev += 2
	}
	return lines
}

func BenchmarkJudge(b *testing.B) {
	lines := benchRun(200)
	f := New()
	p, _ := f.Claim(runPath)
	formattest.BenchJudge(b, f.NewJudge(), f.NewState(p), lines)
}

func TestBenchRunIsClean(t *testing.T) {
	var lines []string
	for _, l := range benchRun(3) {
		lines = append(lines, string(l))
	}
	evs, st := run(t, runPath, lines...)
	for i, ev := range evs {
		if ev.Outcome != integrity.Valid || ev.NoteCount != 0 {
			t.Fatalf("line %d: %s %v %v", i+1, ev.Outcome, formattest.Violations(&ev), formattest.Notes(&ev))
		}
	}
	if st.Open() != nil {
		t.Fatal(st.Open())
	}
}
