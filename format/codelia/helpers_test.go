package codelia

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
)

const (
	runID     = "8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a"
	sessionID = "f6d2c6d5-4a12-4cc4-bbc9-9a0c0d2b5af1"
	runPath   = "/home/dev/.codelia/sessions/2026/02/03/" + runID + ".jsonl"
	common    = `"run_id":"` + runID + `","ts":"2026-02-03T12:00:01.000Z"`
)

// valid holds one valid line of each record type.
var valid = map[string]string{
	"header": `{"type":"header","schema_version":1,"run_id":"` + runID + `","session_id":"` + sessionID + `","started_at":"2026-02-03T12:00:00.123Z",` +
		`"client":{"name":"tui","version":"0.1.0"},"server":{"name":"runtime","version":"0.1.0"},` +
		`"model":{"provider":"openai","name":"gpt-4.1-mini","reasoning":"medium"},"prompts":{"system":"be brief"},` +
		`"tools":{"definitions":[],"source":"builtin"},"runtime":{"cwd":"/w","os":"linux","arch":"x64","version":"0.1.0"},"meta":{"k":1}}`,
	"run.start":    `{"type":"run.start",` + common + `,"session_id":"` + sessionID + `","input":{"type":"text","text":"list files"},"ui_context":{"cwd":"/w"},"meta":{}}`,
	"run.context":  `{"type":"run.context",` + common + `,"context_left_percent":87.5}`,
	"agent.event":  `{"type":"agent.event",` + common + `,"seq":0,"event":{"type":"tool_call","tool":"exec_command","args":{"cmd":"ls"},"tool_call_id":"call_1"}}`,
	"tool.output":  `{"type":"tool.output",` + common + `,"tool":"exec_command","tool_call_id":"call_1","result_raw":"a\nb\n","is_error":false,"output_ref":{"id":"call_1","byte_size":4,"line_count":2}}`,
	"llm.request":  `{"type":"llm.request",` + common + `,"seq":1,"model":{"provider":"openai","name":"gpt-4.1-mini"},"input":{"messages":[{"role":"user","content":"hi"}],"tools":null,"tool_choice":{"type":"auto"},"model":"gpt-4.1-mini"}}`,
	"llm.response": `{"type":"llm.response",` + common + `,"seq":1,"output":{"messages":[],"usage":{"model":"gpt-4.1-mini-2025","input_tokens":120,"input_cached_tokens":100,"input_cache_creation_tokens":null,"input_image_tokens":0,"output_tokens":15,"total_tokens":135},"stop_reason":null,"provider_meta":{"x":1}}}`,
	"run.status":   `{"type":"run.status",` + common + `,"status":"awaiting_ui","message":"waiting"}`,
	"run.error":    `{"type":"run.error",` + common + `,"error":{"name":"Error","message":"boom","stack":"at x"}}`,
	"run.end":      `{"type":"run.end",` + common + `,"outcome":"completed","final":"done"}`,
}

// run judges lines in order into one state of path and returns copies of
// the events.
func run(t testing.TB, path string, lines ...string) ([]format.Event, *State) {
	t.Helper()
	f := New()
	p, _ := f.Claim(path)
	st := f.NewState(p).(*State)
	return formattest.JudgeLines(f.NewJudge(), st, lines...), st
}

// judgeOne judges a line without state.
func judgeOne(line string) format.Event {
	return formattest.JudgeLine(New().NewJudge(), nil, line)
}
