package codex

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/require"
)

// benchText is prose of n bytes with the escapes real rollouts have
// (newlines, quotes, tabs), as a JSON string's content.
func benchText(n int) string {
	const para = "The retry loop in client.go backs off \"exponentially\", but the jitter is computed before the cap:\n\tdelay := base << attempt\n"
	s := strings.Repeat(para, n/len(para)+1)[:n]
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// benchSession is a session of turns as CLI 0.104 writes them: per turn
// task_started, turn_context, the prompt (item and event), then per
// response a rate-limit repeat, reasoning (item and event), two parallel
// exec_command calls, the response's token_count and the calls' outputs
// (a few KB), and a final answer and task_complete.
func benchSession(turns int) [][]byte {
	var lines [][]byte
	sec := 0
	at := func() string { sec++; return fmt.Sprintf("2026-02-23T11:%02d:%02d.%03dZ", sec/60%60, sec%60, sec%1000) }
	add := func(typ, payload string) {
		lines = append(lines, []byte(`{"timestamp":"`+at()+`","type":"`+typ+`","payload":`+payload+`}`))
	}
	var in, cached, out int64
	tc := func(lastIn, lastOut int64) {
		if in == 0 {
			add("event_msg", `{"type":"token_count","info":null,"rate_limits":null}`) // before the first response
			return
		}
		add("event_msg", `{"type":"token_count","info":{"total_token_usage":`+usageJSON(in, cached, out, 0)+`,"last_token_usage":`+usageJSON(lastIn, lastIn/2, lastOut, 0)+
			`,"model_context_window":258400},"rate_limits":{"limit_id":"codex","primary":{"used_percent":12.0,"window_minutes":300,"resets_at":1771851600},"secondary":{"used_percent":3.0,"window_minutes":10080,"resets_at":1772300000},"credits":null,"plan_type":"pro"}}`)
	}
	add("session_meta", `{"id":"`+sessionID+`","timestamp":"2026-02-23T11:00:00.000Z","cwd":"/home/dev/app","originator":"Codex Desktop","cli_version":"0.104.0-alpha.1","source":"vscode","model_provider":"openai","base_instructions":{"text":"`+benchText(3000)+`"},"git":{"commit_hash":"d002f64f","branch":"main"}}`)
	for i := range turns {
		turn := fmt.Sprintf("019c8a4d-0000-7000-8000-%012d", i)
		add("event_msg", `{"type":"task_started","turn_id":"`+turn+`","model_context_window":258400,"collaboration_mode_kind":"default"}`)
		add("turn_context", `{"turn_id":"`+turn+`","cwd":"/home/dev/app","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","writable_roots":[],"network_access":false},"model":"gpt-5.3-codex","effort":"high","summary":"auto"}`)
		add("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"`+benchText(800)+`"}]}`)
		add("event_msg", `{"type":"user_message","message":"`+benchText(800)+`","images":[],"local_images":[],"text_elements":[]}`)
		for r := range 3 {
			tc(0, 0) // the rate-limit repeat: unchanged totals
			add("event_msg", `{"type":"agent_reasoning","text":"**Checking the retry loop**"}`)
			add("response_item", `{"type":"reasoning","summary":[{"type":"summary_text","text":"**Checking the retry loop**"}],"content":null,"encrypted_content":"gAAAAB`+strings.Repeat("Zm9v", 400)+`"}`)
			for c := range 2 {
				add("response_item", fmt.Sprintf(`{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"sed -n 1,200p client.go\",\"workdir\":\"/home/dev/app\"}","call_id":"call_%d_%d_%d"}`, i, r, c))
			}
			in, cached, out = in+9000, cached+4500, out+250
			tc(9000, 250)
			for c := range 2 {
				add("response_item", fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d_%d_%d","output":"%s"}`, i, r, c, benchText(4000)))
			}
		}
		add("event_msg", `{"type":"agent_message","message":"`+benchText(600)+`","phase":"final_answer"}`)
		add("response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`+benchText(600)+`"}],"phase":"final_answer"}`)
		in, cached, out = in+9500, cached+4750, out+180
		tc(9500, 180)
		add("event_msg", `{"type":"task_complete","turn_id":"`+turn+`","last_agent_message":"done"}`)
	}
	return lines
}

// BenchmarkJudge judges a session's lines, one per op, with the file's
// state: it must allocate nothing once the buffers have grown.
func BenchmarkJudge(b *testing.B) {
	lines := benchSession(20)
	f := New()
	p, _ := f.Claim(mainPath)
	formattest.BenchJudge(b, f.NewJudge(), f.NewState(p), lines)
}

// BenchmarkJudgeLongLine judges a 50 KB tool output: the values the judge
// does not read are skipped at the scanner's speed.
func BenchmarkJudgeLongLine(b *testing.B) {
	l := []byte(`{"timestamp":"` + stamp + `","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"` + benchText(50000) + `"}}`)
	f := New()
	j := f.NewJudge()
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	b.SetBytes(int64(len(l)))
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(1 << 16)
		j.Judge(l, nil, a, &ev)
	}
}

// BenchmarkState judges a whole session into a fresh state per op: the
// cost of a file's first reading, its sets growing included.
func BenchmarkState(b *testing.B) {
	lines := benchSession(20)
	f := New()
	p, _ := f.Claim(mainPath)
	j := f.NewJudge()
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	b.SetBytes(int64(formattest.TotalBytes(lines)))
	b.ReportAllocs()
	for b.Loop() {
		st := f.NewState(p)
		for _, l := range lines {
			a.Reset(1 << 16)
			j.Judge(l, st, a, &ev)
		}
	}
}

func TestBenchSessionIsClean(t *testing.T) {
	lines := benchSession(3)
	ls := make([]string, len(lines))
	for i, l := range lines {
		ls[i] = string(l)
	}
	evs, st := run(t, New(), mainPath, ls...)
	var in int64
	for i, ev := range evs {
		require.Equal(t, integrity.Valid, ev.Outcome, "line %d: %v", i+1, formattest.Violations(&ev))
		require.Zero(t, ev.NoteCount, "line %d: %v", i+1, formattest.Notes(&ev))
		in += ev.Usage.Input
	}
	require.Nil(t, st.Open())
	require.Equal(t, StateIdle, st.Derived())
	require.Equal(t, int64(3*(3*9000+9500)), in, "each response once, the repeats nothing")
}

func TestJudgeDoesNotAllocate(t *testing.T) {
	lines := benchSession(5)
	f := New()
	p, _ := f.Claim(mainPath)
	j, st := f.NewJudge(), f.NewState(p)
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	for _, l := range lines {
		a.Reset(1 << 16)
		j.Judge(l, st, a, &ev)
	}
	allocs := testing.AllocsPerRun(20, func() {
		for _, l := range lines {
			a.Reset(1 << 16)
			j.Judge(l, st, a, &ev)
		}
	})
	require.Zero(t, allocs)
}
