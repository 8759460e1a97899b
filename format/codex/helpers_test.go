package codex

import (
	"fmt"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
)

const (
	root      = "/home/dev/.codex"
	sessionID = "019c8a4d-8f45-7010-8b5d-7fad920aa6f9"
	otherID   = "0199812e-64f0-7f73-91fc-095dda01c36e"
	mainPath  = root + "/sessions/2026/02/23/rollout-2026-02-23T12-41-04-" + sessionID + ".jsonl"
	stamp     = "2026-02-23T11:41:32.239Z"
)

// env wraps a payload (raw JSON) in the envelope of type typ.
func env(typ, payload string) string {
	return `{"timestamp":"` + stamp + `","type":"` + typ + `","payload":` + payload + `}`
}

func item(payload string) string  { return env("response_item", payload) }
func event(payload string) string { return env("event_msg", payload) }

func meta(id string) string {
	return env("session_meta", `{"id":"`+id+`","timestamp":"`+stamp+`","cwd":"/home/dev/app","originator":"codex_cli_rs","cli_version":"0.104.0","instructions":null,"source":"cli","model_provider":"openai","git":{"commit_hash":"d002f64f","branch":"main"}}`)
}

func turnContext(model string) string {
	return env("turn_context", `{"turn_id":"t1","cwd":"/home/dev/app","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","network_access":false},"model":"`+model+`","effort":"high","summary":"auto"}`)
}

func call(id, name string) string {
	return item(`{"type":"function_call","name":"` + name + `","arguments":"{\"cmd\":\"ls\"}","call_id":"` + id + `"}`)
}

func output(id string) string {
	return item(`{"type":"function_call_output","call_id":"` + id + `","output":"ok"}`)
}

func message(role, phase string) string {
	ph := ""
	if phase != "" {
		ph = `,"phase":"` + phase + `"`
	}
	typ := "input_text"
	if role == "assistant" {
		typ = "output_text"
	}
	return item(`{"type":"message","role":"` + role + `","content":[{"type":"` + typ + `","text":"hi"}]` + ph + `}`)
}

// usageJSON is a TokenUsage of in, cached, out, reasoning tokens.
func usageJSON(in, cached, out, reasoning int64) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`,
		in, cached, out, reasoning, in+out)
}

// tokenCount is a token_count with totals t and last usage l (4 counters
// each: input, cached, output, reasoning).
func tokenCount(t, l [4]int64) string {
	return event(`{"type":"token_count","info":{"total_token_usage":` + usageJSON(t[0], t[1], t[2], t[3]) +
		`,"last_token_usage":` + usageJSON(l[0], l[1], l[2], l[3]) + `,"model_context_window":258400},"rate_limits":{"primary":{"used_percent":15.0,"window_minutes":300,"resets_at":1780638395},"secondary":null}}`)
}

const tokenCountNull = `{"timestamp":"` + stamp + `","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":1.0,"window_minutes":300}}}}`

// valid holds one valid line of each event type.
var valid = map[string]string{
	"session_meta":                meta(sessionID),
	"turn_context":                turnContext("gpt-5.3-codex"),
	"compacted":                   env("compacted", `{"message":"","replacement_history":[{"type":"message","role":"user","content":[]}]}`),
	"state":                       `{"record_type":"state"}`,
	"message":                     message("user", ""),
	"reasoning":                   item(`{"type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**"}],"content":null,"encrypted_content":"gAAAAB"}`),
	"function_call":               call("call_1", "exec_command"),
	"function_call_output":        output("call_1"),
	"custom_tool_call":            item(`{"type":"custom_tool_call","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch"}`),
	"custom_tool_call_output":     item(`{"type":"custom_tool_call_output","call_id":"call_2","output":"Success"}`),
	"local_shell_call":            item(`{"type":"local_shell_call","call_id":"call_3","status":"completed","action":{"type":"exec","command":["ls"]}}`),
	"web_search_call":             item(`{"type":"web_search_call","status":"completed"}`),
	"tool_search_call":            item(`{"type":"tool_search_call","call_id":"ts_1","status":"completed","execution":"client","arguments":{}}`),
	"tool_search_output":          item(`{"type":"tool_search_output","call_id":"ts_1","status":"completed","tools":[]}`),
	"image_generation_call":       item(`{"type":"image_generation_call","id":"ig_1","status":"completed","result":"b64"}`),
	"ghost_snapshot":              item(`{"type":"ghost_snapshot","ghost_commit":{"id":"abc"}}`),
	"compaction":                  item(`{"type":"compaction","encrypted_content":"gAAAAB"}`),
	"context_compaction":          item(`{"type":"context_compaction"}`),
	"user_message":                event(`{"type":"user_message","message":"fix the test","images":[]}`),
	"agent_message":               event(`{"type":"agent_message","message":"Done.","phase":"final_answer"}`),
	"agent_reasoning":             event(`{"type":"agent_reasoning","text":"**Plan**"}`),
	"agent_reasoning_raw_content": event(`{"type":"agent_reasoning_raw_content","text":"raw"}`),
	"token_count":                 tokenCount([4]int64{100, 80, 10, 5}, [4]int64{100, 80, 10, 5}),
	"task_started":                event(`{"type":"task_started","turn_id":"t1","model_context_window":258400,"collaboration_mode_kind":"default"}`),
	"task_complete":               event(`{"type":"task_complete","turn_id":"t1","last_agent_message":"Done."}`),
	"turn_aborted":                event(`{"type":"turn_aborted","turn_id":"t1","reason":"interrupted"}`),
	"context_compacted":           event(`{"type":"context_compacted"}`),
	"thread_rolled_back":          event(`{"type":"thread_rolled_back","num_turns":1}`),
	"entered_review_mode":         event(`{"type":"entered_review_mode","target":{"type":"uncommittedChanges"}}`),
	"exited_review_mode":          event(`{"type":"exited_review_mode","review_output":null}`),
	"undo_completed":              event(`{"type":"undo_completed","success":true}`),
	"thread_name_updated":         event(`{"type":"thread_name_updated","thread_name":"x"}`),
	"item_completed":              event(`{"type":"item_completed","item":{"type":"plan"}}`),
	"patch_apply_end":             event(`{"type":"patch_apply_end","call_id":"call_2","turn_id":"t1","stdout":"","stderr":"","success":true,"changes":{}}`),
	"mcp_tool_call_end":           event(`{"type":"mcp_tool_call_end","call_id":"call_4","invocation":{},"duration":"1s","result":{"Ok":{}}}`),
	"web_search_end":              event(`{"type":"web_search_end","call_id":"ws_1","query":"go","action":{}}`),
	"exec_command_end":            event(`{"type":"exec_command_end","call_id":"call_1","exit_code":0,"aggregated_output":""}`),
	"image_generation_end":        event(`{"type":"image_generation_end","call_id":"ig_1","status":"completed","result":""}`),
	"view_image_tool_call":        event(`{"type":"view_image_tool_call","call_id":"call_5","path":"/tmp/x.png"}`),
	"thread_goal_updated":         event(`{"type":"thread_goal_updated","threadId":"x","goal":{}}`),
	"error":                       event(`{"type":"error","message":"stream disconnected"}`),
}

// run judges lines in order into one state of path and returns copies of
// the events.
func run(t testing.TB, f *Format, path string, lines ...string) ([]format.Event, *State) {
	t.Helper()
	p, _ := f.Claim(path)
	st := f.NewState(p).(*State)
	return formattest.JudgeLines(f.NewJudge(), st, lines...), st
}

// judgeOne judges a line alone with a fresh state of mainPath that knows
// the model and judges no pairing (as if the lines before it were
// unknown), so that only the line's own verdicts show.
func judgeOne(line string) format.Event {
	p, _ := New().Claim(mainPath)
	st := New().NewState(p).(*State)
	st.callsFull, st.model = true, []byte("gpt-5.3-codex")
	return formattest.JudgeLine(New().NewJudge(), st, line)
}

func judgeStateless(line string) format.Event {
	return formattest.JudgeLine(New().NewJudge(), nil, line)
}

// states lists the events' derived states.
func states(evs []format.Event) []string {
	out := make([]string, len(evs))
	for i := range evs {
		out[i] = evs[i].State
	}
	return out
}
