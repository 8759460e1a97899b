package claudecode

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
)

const (
	root      = "/home/dev/.claude/projects"
	project   = "-home-dev-app"
	sessionID = "5b1e0c7a-4d2f-4a8e-9c31-0f6a2d7e9b10"
	otherID   = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	mainPath  = root + "/" + project + "/" + sessionID + ".jsonl"
	agentPath = root + "/" + project + "/" + sessionID + "/subagents/agent-a7f3e21.jsonl"
	uuid1     = "a3c1f2e4-0b5d-4c6e-8f7a-1b2c3d4e5f60"
	uuid2     = "b4d2e3f5-1c6e-4d7f-9a8b-2c3d4e5f6071"
	stamp     = "2026-03-02T10:00:00.120Z"
	// envelope is the conversation envelope of a transcript line (uuid1,
	// a root).
	envelope = `"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/app","sessionId":"` + sessionID +
		`","version":"2.1.90","uuid":"` + uuid1 + `","timestamp":"` + stamp + `"`
	usageJSON = `"usage":{"input_tokens":3,"cache_creation_input_tokens":1840,"cache_read_input_tokens":21337,` +
		`"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1840},"output_tokens":8,"service_tier":"standard"}`
)

// valid holds one valid line of each type (transcript lines for the
// transcript types, stream-json for result and stream_event).
var valid = map[string]string{
	"user": `{` + envelope + `,"type":"user","message":{"role":"user","content":"the login test fails, fix it"}}`,
	"assistant": `{` + envelope + `,"type":"assistant","requestId":"req_011CQxK7m2","message":{"id":"msg_01QxR4tN8vLp","type":"message","role":"assistant",` +
		`"model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Let me run the test first."}],"stop_reason":null,"stop_sequence":null,` + usageJSON + `}}`,
	"system":                `{` + envelope + `,"type":"system","subtype":"turn_duration","durationMs":5400,"logicalParentUuid":null}`,
	"progress":              `{` + envelope + `,"type":"progress","data":{"type":"bash_progress","output":"ok"},"toolUseID":"toolu_1","parentToolUseID":"toolu_1"}`,
	"attachment":            `{` + envelope + `,"type":"attachment","attachment":{"type":"hook_success","hookName":"SessionStart"}}`,
	"summary":               `{"type":"summary","summary":"Fix the login test","leafUuid":"` + uuid1 + `"}`,
	"file-history-snapshot": `{"type":"file-history-snapshot","messageId":"` + uuid1 + `","snapshot":{"messageId":"` + uuid1 + `","trackedFileBackups":{},"timestamp":"` + stamp + `"},"isSnapshotUpdate":false}`,
	"queue-operation":       `{"type":"queue-operation","operation":"enqueue","timestamp":"` + stamp + `","sessionId":"` + sessionID + `","content":"also this"}`,
	"custom-title":          `{"type":"custom-title","customTitle":"login","sessionId":"` + sessionID + `"}`,
	"ai-title":              `{"type":"ai-title","aiTitle":"Fix login","sessionId":"` + sessionID + `"}`,
	"agent-name":            `{"type":"agent-name","agentName":"fixer","sessionId":"` + sessionID + `"}`,
	"last-prompt":           `{"type":"last-prompt","lastPrompt":"fix it","sessionId":"` + sessionID + `"}`,
	"pr-link":               `{"type":"pr-link","prNumber":42,"prUrl":"https://example.com/pr/42","timestamp":"` + stamp + `","sessionId":"` + sessionID + `"}`,
	"permission-mode":       `{"type":"permission-mode","permissionMode":"plan","sessionId":"` + sessionID + `"}`,
	"agent-setting":         `{"type":"agent-setting","agentSetting":"default","sessionId":"` + sessionID + `"}`,
	"bridge-session":        `{"type":"bridge-session","bridgeSessionId":"b-1","sessionId":"` + sessionID + `"}`,
	"worktree-state":        `{"type":"worktree-state","worktree":{},"sessionId":"` + sessionID + `"}`,
	"result": `{"type":"result","subtype":"success","is_error":false,"duration_ms":5100,"num_turns":2,"result":"done","session_id":"` + sessionID +
		`","total_cost_usd":0.0123,"usage":{"input_tokens":11,"output_tokens":77}}`,
	"stream_event": `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}},"session_id":"` + sessionID + `","parent_tool_use_id":null}`,
}

// stream holds valid stream-json lines of the types it shares with the
// transcript.
var stream = map[string]string{
	"system": `{"type":"system","subtype":"init","cwd":"/home/dev/app","model":"claude-sonnet-4-5-20250929","tools":["Bash"],"session_id":"` + sessionID + `"}`,
	"assistant": `{"type":"assistant","message":{"id":"msg_01S","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",` +
		`"content":[{"type":"text","text":"Hi."}],"stop_reason":"end_turn",` + usageJSON + `},"parent_tool_use_id":null,"session_id":"` + sessionID + `"}`,
	"user": `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]},"parent_tool_use_id":null,"session_id":"` + sessionID + `"}`,
}

// line builds a transcript line of type typ with the envelope (session
// sessionID, uuid u, parent p: "" for null) and extra members (raw JSON,
// without braces).
func line(typ, u, p, extra string) string {
	parent := "null"
	if p != "" {
		parent = `"` + p + `"`
	}
	s := fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"sessionId":"%s","type":"%s","uuid":"%s","timestamp":"%s"`, parent, sessionID, typ, u, stamp)
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

// uid returns a distinct uuid for n.
func uid(n int) string { return fmt.Sprintf("10000000-0000-4000-8000-%012x", n) }

// prompt is a user line with a string prompt.
func prompt(u, p, text string) string {
	b, _ := json.Marshal(text)
	return line("user", u, p, `"message":{"role":"user","content":`+string(b)+`}`)
}

// userBlocks is a user line with content blocks (raw JSON).
func userBlocks(u, p, blocks string) string {
	return line("user", u, p, `"message":{"role":"user","content":[`+blocks+`]}`)
}

// reply is an assistant line of response id/req with content blocks (raw
// JSON), a stop_reason (raw JSON: null or a string) and usage (raw JSON,
// "" for none).
func reply(u, p, id, req, blocks, stop, usage string) string {
	extra := `"requestId":"` + req + `","message":{"id":"` + id + `","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[` +
		blocks + `],"stop_reason":` + stop
	if usage != "" {
		extra += `,"usage":` + usage
	}
	return line("assistant", u, p, extra+"}")
}

func usageOf(in, out, cc, cr int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}`, in, cc, cr, out)
}

const (
	textBlock  = `{"type":"text","text":"Done."}`
	thinkBlock = `{"type":"thinking","thinking":"hmm","signature":"x"}`
)

func toolUse(id, name string) string {
	return `{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":{}}`
}

func toolResult(id string) string {
	return `{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}`
}

// run judges lines in order into one state of path (Loaded from path when
// load) and returns copies of the events.
func run(t testing.TB, f *Format, path string, lines ...string) ([]format.Event, *State) {
	t.Helper()
	p, _ := f.Claim(path)
	st := f.NewState(p).(*State)
	return judgeAll(st, f, lines...), st
}

func judgeAll(st *State, f *Format, lines ...string) []format.Event {
	return formattest.JudgeLines(f.NewJudge(), st, lines...)
}

// judgeOne judges a line alone: with a fresh state that judges no
// continuity (as if the lines before it were unknown), so that only the
// line's own verdicts show. judgeStateless judges it without any state.
func judgeOne(line string) format.Event {
	st := New().NewState(format.Path{}).(*State)
	st.uuidsFull, st.toolsFull, st.lostNoted = true, true, true
	return judgeWith(line, st)
}

func judgeStateless(line string) format.Event { return judgeWith(line, nil) }

func judgeWith(line string, st format.State) format.Event {
	return formattest.JudgeLine(New().NewJudge(), st, line)
}

// states lists the events' derived states.
func states(evs []format.Event) []string {
	out := make([]string, len(evs))
	for i := range evs {
		out[i] = evs[i].State
	}
	return out
}
