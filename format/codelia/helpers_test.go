package codelia

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/require"
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

// del is the value with that mutate removes a field.
var del = &struct{}{}

// mutate sets (or, with del, removes) the dotted path of a JSON object
// line, creating objects on the way.
func mutate(t testing.TB, line, path string, v any) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &m))
	keys := strings.Split(path, ".")
	o := m
	for _, k := range keys[:len(keys)-1] {
		next, ok := o[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			o[k] = next
		}
		o = next
	}
	if v == del {
		delete(o, keys[len(keys)-1])
	} else {
		o[keys[len(keys)-1]] = v
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

// run judges lines in order into one state of path and returns copies of
// the events.
func run(t testing.TB, path string, lines ...string) ([]format.Event, *State) {
	t.Helper()
	f := New()
	p, _ := f.Claim(path)
	st := f.NewState(p).(*State)
	j := f.NewJudge()
	a := integrity.NewArena(1 << 16)
	out := make([]format.Event, 0, len(lines))
	var ev format.Event
	for _, l := range lines {
		j.Judge([]byte(l), st, a, &ev)
		e := ev
		e.Violations = slices.Clone(ev.Violations)
		out = append(out, e)
	}
	return out, st
}

// judgeOne judges a line without state.
func judgeOne(line string) format.Event {
	var a integrity.Arena
	var ev format.Event
	New().NewJudge().Judge([]byte(line), nil, &a, &ev)
	ev.Violations = slices.Clone(ev.Violations)
	return ev
}

// notes renders a line's notes as "kind(detail)".
func notes(ev *format.Event) []string {
	var out []string
	for _, n := range ev.Notes[:ev.NoteCount] {
		if n.Detail != nil {
			out = append(out, fmt.Sprintf("%s(%s)", n.Kind, n.Detail))
		} else {
			out = append(out, n.Kind)
		}
	}
	return out
}

// violations renders a line's violations as "field: reason".
func violations(ev *format.Event) []string {
	var out []string
	for _, v := range ev.Violations {
		out = append(out, v.Field+": "+v.Reason)
	}
	return out
}
