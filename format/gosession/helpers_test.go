package gosession

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/stretchr/testify/require"
)

// valid holds one valid message of each role.
var valid = map[string]string{
	TypeUser:      `{"uuid":"6f0c2a9e-8d41-4b7a-a1e3-2c5d9f0b7e14","timestamp":"2026-02-09T14:03:11.52133+01:00","role":"user","content":"list the failing tests"}`,
	TypeAssistant: `{"uuid":"9a7e3b10-5c2d-4e8f-b6a9-0d1e2f3a4b5c","timestamp":"2026-02-09T14:03:14.20871+01:00","role":"assistant","content":"","tool_calls":[{"id":"call_7","type":"function","function":{"name":"bash","arguments":"{}"}}]}`,
	TypeTool:      `{"uuid":"c2d4e6f8-0a1b-4c3d-9e5f-7a8b9c0d1e2f","timestamp":"2026-02-09T14:03:19.94012+01:00","role":"tool","tool_call_id":"call_7","content":"--- FAIL: TestLogin (0.01s)"}`,
	TypeSystem:    `{"uuid":"0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e","timestamp":"2026-02-09T14:03:10Z","role":"system","content":"You are a coding agent.","name":"setup"}`,
}

// msg builds a message of role at base + sec seconds with a uuid made
// of id, plus members given as key, raw JSON value pairs.
func msg(id int, sec float64, role string, kv ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"uuid":"u-%d","timestamp":%q,"role":%q`, id,
		base.Add(time.Duration(sec*float64(time.Second))).Format(time.RFC3339Nano), role)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, `,%q:%s`, kv[i], kv[i+1])
	}
	return b.String() + "}"
}

// call is an assistant message issuing the calls id:name.
func call(id int, sec float64, calls ...string) string {
	var parts []string
	for _, c := range calls {
		cid, name, _ := strings.Cut(c, ":")
		parts = append(parts, fmt.Sprintf(`{"id":%q,"type":"function","function":{"name":%q,"arguments":"{}"}}`, cid, name))
	}
	return msg(id, sec, "assistant", "content", "null", "tool_calls", "["+strings.Join(parts, ",")+"]")
}

// result is a tool message answering callID.
func result(id int, sec float64, callID string) string {
	return msg(id, sec, "tool", "tool_call_id", fmt.Sprintf("%q", callID), "content", `"ok"`)
}

var base = time.Date(2026, 2, 9, 14, 0, 0, 0, time.UTC)

// sessionPath is a messages.jsonl path of the layout.
const sessionPath = "/home/dev/.claude/projects/-home-dev-app/sessions/0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/messages.jsonl"

// run judges lines in order into a state of a messages.jsonl given m (nil:
// no metadata) and returns copies of the events.
func run(t testing.TB, m *Metadata, lines ...string) ([]format.Event, *State) {
	t.Helper()
	return runWith(t, New(), Messages, m, lines...)
}

func runWith(t testing.TB, f *Format, journal Journal, m *Metadata, lines ...string) ([]format.Event, *State) {
	t.Helper()
	p, _ := f.Claim(sessionPath)
	st := f.NewState(p).(*State)
	st.journal = journal
	if m != nil {
		st.UseMetadata(*m)
	}
	return feed(st, f, lines...), st
}

func feed(st *State, f *Format, lines ...string) []format.Event {
	return formattest.JudgeLines(f.NewJudge(), st, lines...)
}

// judgeOne judges a line without state.
func judgeOne(line string) format.Event {
	return formattest.JudgeLine(New().NewJudge(), nil, line)
}

// writeSession writes a session directory under a temporary base: files
// by name (relative to the session directory; nil content: a directory),
// each with mtime when it is not zero. It returns the directory.
func writeSession(t testing.TB, id string, files map[string][]byte, mtimes map[string]time.Time) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sessions", id)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for name, content := range files {
		path := filepath.Join(dir, name)
		if content == nil {
			require.NoError(t, os.MkdirAll(path, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, content, 0o644))
	}
	for name, mt := range mtimes {
		require.NoError(t, os.Chtimes(filepath.Join(dir, name), mt, mt))
	}
	return dir
}
