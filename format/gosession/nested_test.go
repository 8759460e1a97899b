package gosession

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
)

// nested builds a message as Goat's store writes it (MessageEntry: uuid,
// timestamp, then the chat message in "message"), at base + sec seconds,
// members of the chat message given as key, raw JSON value pairs.
func nested(id int, sec float64, role string, kv ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"uuid":"n-%d","timestamp":%q,"message":{"role":%q`, id,
		base.Add(time.Duration(sec*float64(time.Second))).Format(time.RFC3339Nano), role)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, `,%q:%s`, kv[i], kv[i+1])
	}
	return b.String() + "}}"
}

// TestNestedShapeJudgedLikeTheFlat: each role, written nested, is judged
// as its flat twin: valid, the same event type, role, time, tool ids,
// state and continuity.
func TestNestedShapeJudgedLikeTheFlat(t *testing.T) {
	lines := []string{
		nested(1, 0, "user", "content", `"fix Add"`),
		nested(2, 1, "assistant", "content", `"Let me look."`, "tool_calls",
			`[{"id":"call_read1","type":"function","function":{"name":"Read","arguments":"{}"}}]`),
		nested(3, 2, "tool", "content", `"package calc"`, "tool_call_id", `"call_read1"`),
		nested(4, 3, "assistant", "content", "null", "tool_calls",
			`[{"id":"call_edit1","type":"function","function":{"name":"Edit","arguments":"{}"}}]`),
		nested(5, 4, "tool", "content", `"Replaced"`, "tool_call_id", `"call_edit1"`),
		nested(6, 5, "assistant", "content", `"Fixed."`),
		nested(7, 6, "system", "content", `"be brief"`),
	}
	evs, st := run(t, &Metadata{Read: true, Model: "claude-sonnet-4-5-20250929"}, lines...)
	want := []struct{ typ, state, callID, tool string }{
		{TypeUser, StateThinking, "", ""},
		{TypeAssistant, StateActing, "call_read1", "Read"},
		{TypeTool, StateThinking, "call_read1", "Read"},
		{TypeAssistant, StateActing, "call_edit1", "Edit"},
		{TypeTool, StateThinking, "call_edit1", "Edit"},
		{TypeAssistant, StateIdle, "", ""},
		{TypeSystem, StateIdle, "", ""},
	}
	for i, ev := range evs {
		w := want[i]
		assert.Equal(t, integrity.Valid, ev.Outcome, "line %d: %v", i+1, formattest.Violations(&ev))
		assert.Zero(t, ev.NoteCount, formattest.Notes(&ev))
		assert.Equal(t, w.typ, ev.EventType, "line %d", i+1)
		assert.Equal(t, w.state, ev.State, "line %d", i+1)
		assert.Equal(t, w.callID, string(ev.ToolCallID), "line %d", i+1)
		assert.Equal(t, w.tool, string(ev.ToolName), "line %d", i+1)
		assert.True(t, ev.HasTime && ev.Time.Equal(base.Add(time.Duration(i)*time.Second)), "line %d: its own timestamp", i+1)
	}
	assert.Equal(t, "claude-sonnet-4-5-20250929", string(evs[1].Model))
	assert.Nil(t, st.Open(), "every call answered")
	assert.Equal(t, StateIdle, st.Derived())
}

// TestShapesMix: one file may hold both shapes (the spec's and the
// runtime's), line by line; calls issued in one are answered in the other.
func TestShapesMix(t *testing.T) {
	evs, st := run(t, nil,
		msg(1, 0, "user", "content", `"go"`),
		nested(2, 1, "assistant", "tool_calls", `[{"id":"c1","function":{"name":"Bash"}},{"id":"c2","function":{"name":"Read"}}]`),
		result(3, 2, "c1"),
		nested(4, 3, "tool", "tool_call_id", `"c2"`),
		nested(5, 4, "tool", "tool_call_id", `"c9"`),
		msg(2, 5, "user", "content", `"again"`),
		nested(2, 6, "user", "content", `"n-2 again"`),
		nested(8, 1, "user"),
	)
	for i, ev := range evs {
		assert.NotEqual(t, integrity.Corrupt, ev.Outcome, "line %d", i+1)
	}
	assert.Equal(t, "Bash", string(evs[2].ToolName), "a flat answer to a nested call")
	assert.Equal(t, "Read", string(evs[3].ToolName))
	assert.Equal(t, []string{NoteToolResultWithoutCall + "(c9)"}, formattest.Notes(&evs[4]))
	assert.Empty(t, formattest.Notes(&evs[5]), "u-2 and n-2 are different uuids")
	assert.Equal(t, []string{NoteUUIDRepeat}, formattest.Notes(&evs[6]))
	assert.Equal(t, []string{NoteTimestampRegression + "(2026-02-09T14:00:06Z)"}, formattest.Notes(&evs[7]))
	assert.Nil(t, st.Open())
}

// TestNestedSchema: the rules of the flat shape hold inside "message",
// the violations naming the nested field.
func TestNestedSchema(t *testing.T) {
	cases := []struct {
		line       string
		violations []string
		flags      format.Flags
	}{
		{nested(1, 0, "tool", "content", `"x"`), []string{"message.tool_call_id: required field missing"}, 0},
		{nested(1, 0, "tool", "tool_call_id", `""`), []string{"message.tool_call_id: must be a non-empty string"}, 0},
		{nested(1, 0, "user", "content", "5"), []string{"message.content: must be a string, an array or null"}, 0},
		{nested(1, 0, "assistant", "tool_calls", `{}`), []string{"message.tool_calls: must be an array or null"}, 0},
		{nested(1, 0, "assistant", "tool_calls", `[{"name":"x"},3]`),
			[]string{"message.tool_calls[0].id: required field missing", "message.tool_calls[1]: must be an object"}, 0},
		{nested(1, 0, "user", "name", "[]", "tool_call_id", "1"),
			[]string{"message.tool_call_id: must be a string or null", "message.name: must be a string or null"}, 0},
		{nested(1, 0, "user", "content", `"a"`, "content", `"b"`), []string{"message.content: duplicate key"}, format.DuplicateKey},
		{`{"uuid":"u","message":{"role":"user"}}`, []string{"timestamp: required field missing"}, 0},
		{`{"timestamp":"2026-02-09T14:00:00Z","message":{"role":"user"}}`, []string{"uuid: required field missing"}, 0},
	}
	for _, c := range cases {
		ev := judgeOne(c.line)
		assert.Equal(t, integrity.SchemaInvalid, ev.Outcome, c.line)
		assert.Equal(t, c.violations, formattest.Violations(&ev), c.line)
		assert.Equal(t, c.flags, ev.Flags&format.DuplicateKey, c.line)
	}
	ev := judgeOne(nested(1, 0, "developer", "content", "5"))
	assert.Equal(t, integrity.Valid, ev.Outcome, "an unknown role's fields are read, not judged")
	assert.Equal(t, "developer", string(ev.TypeName))
	assert.NotZero(t, ev.Flags&format.UnknownType)
}

// TestNestedCorrupt: a line with neither shape's string role is corrupt,
// the reason naming the shape its content has.
func TestNestedCorrupt(t *testing.T) {
	for line, reason := range map[string]string{
		`{"uuid":"u","message":{"content":"x"}}`:                           `no string "message.role"`,
		`{"uuid":"u","message":{"role":null}}`:                             `no string "message.role"`,
		`{"uuid":"u","message":"user"}`:                                    `no string "role"`,
		`{"uuid":"u","role":null,"message":{"role":"user"}}`:               `no string "role"`,
		`{"uuid":"u","message":{"role":"user"},"message":{"role":"tool"}}`: `"message" written twice`,
	} {
		evs, _ := run(t, nil, line)
		assert.Equal(t, integrity.Corrupt, evs[0].Outcome, line)
		assert.Equal(t, reason, evs[0].CorruptReason, line)
	}
	ev := judgeOne(`{"uuid":"u","timestamp":"2026-02-09T14:00:00Z","role":"user","message":{"role":"tool"}}`)
	assert.Equal(t, TypeUser, ev.EventType, "a top-level role decides: the flat shape, message is an unknown field")
}

// TestNestedWithoutAJournal: judged without a state's journal, a nested
// message is a message, an SDK message (its type beside a nested message)
// a transcript line.
func TestNestedWithoutAJournal(t *testing.T) {
	assert.Equal(t, TypeAssistant, judgeOne(nested(1, 0, "assistant")).EventType)
	ev := judgeOne(`{"type":"assistant","uuid":"u","session_id":"s","message":{"role":"assistant","content":[]}}`)
	assert.Equal(t, TypeTranscript, ev.EventType)
	assert.Equal(t, integrity.Valid, ev.Outcome)
}

func TestSniffNested(t *testing.T) {
	f := New()
	assert.True(t, f.Sniff([]byte(nested(1, 0, "user", "content", `"hi"`))))
	for _, l := range []string{
		`{"uuid":"u","message":{"role":"user"}}`,                                         // no timestamp
		`{"uuid":"","timestamp":"2026-02-09T14:00:00Z","message":{"role":"user"}}`,       // empty uuid
		`{"uuid":"u","timestamp":"2026-02-09T14:00:00Z","message":{"role":"developer"}}`, // unknown role
	} {
		assert.False(t, f.Sniff([]byte(l)), l)
	}
}

func BenchmarkJudgeNested(b *testing.B) {
	lines := benchSession(200)
	for i, l := range lines {
		lines[i] = nestOf(l)
	}
	benchJudge(b, lines, Messages)
}

// nestOf rewrites a flat bench line into Goat's shape: uuid and timestamp
// stay, the rest moves into "message".
func nestOf(flat []byte) []byte {
	s := string(flat)
	i := strings.Index(s, `"role":`)
	return []byte(s[:i] + `"message":{` + s[i:len(s)-1] + "}}")
}
