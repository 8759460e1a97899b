package gosession

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
)

func TestEachRoleValid(t *testing.T) {
	wantRole := map[string]format.Role{TypeUser: format.RoleMessage, TypeAssistant: format.RoleLLMResponse,
		TypeTool: format.RoleToolResult, TypeSystem: format.RoleMessage}
	for typ, line := range valid {
		t.Run(typ, func(t *testing.T) {
			ev := judgeOne(line)
			assert.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
			assert.Equal(t, typ, ev.EventType)
			assert.Nil(t, ev.TypeName)
			assert.Equal(t, wantRole[typ], ev.Role)
			assert.True(t, ev.HasTime)
			assert.Zero(t, ev.Flags)
			assert.Zero(t, ev.NoteCount, formattest.Notes(&ev))
			assert.Empty(t, ev.State, "no state, none derived")
			assert.False(t, ev.Ends)
			assert.False(t, ev.Usage.Has, "messages carry no tokens")
		})
	}
	ev := judgeOne(valid[TypeUser])
	assert.Equal(t, "2026-02-09T13:03:11.52133Z", ev.Time.UTC().Format("2006-01-02T15:04:05.999999999Z07:00"), "Go's local offset")
}

func TestToolIDs(t *testing.T) {
	ev := judgeOne(valid[TypeAssistant])
	assert.Equal(t, "call_7", string(ev.ToolCallID))
	assert.Equal(t, "bash", string(ev.ToolName))
	assert.Equal(t, format.RoleLLMResponse, ev.Role, "calling tools, still the model's answer")
	ev = judgeOne(`{"uuid":"u","timestamp":"2026-02-09T14:00:00Z","role":"assistant","tool_calls":[{"id":"a","name":"grep"},{"id":"b","name":"bash"}]}`)
	assert.Equal(t, "a", string(ev.ToolCallID), "the first call")
	assert.Equal(t, "grep", string(ev.ToolName), "the flat shape's name")
	ev = judgeOne(`{"uuid":"u","timestamp":"2026-02-09T14:00:00Z","role":"assistant","tool_calls":[{"id":"a","name":"flat","function":{"name":"nested"}}]}`)
	assert.Equal(t, "nested", string(ev.ToolName), "function.name first")
	ev = judgeOne(`{"uuid":"u","timestamp":"2026-02-09T14:00:00Z","role":"assistant","tool_calls":[{"id":"c\u0031","function":{"name":"b\u0061sh"}}]}`)
	assert.Equal(t, "c1", string(ev.ToolCallID), "escapes decoded")
	assert.Equal(t, "bash", string(ev.ToolName))
	ev = judgeOne(valid[TypeTool])
	assert.Equal(t, "call_7", string(ev.ToolCallID))
	assert.Empty(t, ev.ToolName, "no state: the call's name is unknown")
	ev = judgeOne(formattest.Mutate(t, valid[TypeTool], "name", "bash"))
	assert.Equal(t, "bash", string(ev.ToolName), "the message's own name, then")
	ev = judgeOne(formattest.Mutate(t, valid[TypeUser], "tool_calls", []any{map[string]any{"id": "x", "name": "y"}}))
	assert.Equal(t, integrity.Valid, ev.Outcome, "tool_calls is judged on any role")
	assert.Empty(t, ev.ToolCallID, "but only an assistant's calls are calls")
}

// required lists each role's required fields.
var required = map[string][]string{
	TypeUser:      {"uuid", "timestamp"},
	TypeAssistant: {"uuid", "timestamp"},
	TypeTool:      {"uuid", "timestamp", "tool_call_id"},
	TypeSystem:    {"uuid", "timestamp"},
}

func TestRequiredFieldMissing(t *testing.T) {
	for typ, fields := range required {
		for _, field := range fields {
			t.Run(typ+"/"+field, func(t *testing.T) {
				ev := judgeOne(formattest.Mutate(t, valid[typ], field, formattest.Del))
				assert.Equal(t, integrity.SchemaInvalid, ev.Outcome)
				assert.Equal(t, []string{field + ": required field missing"}, formattest.Violations(&ev))
				assert.Equal(t, typ, ev.EventType)
			})
		}
	}
}

func TestOptionalFields(t *testing.T) {
	for _, c := range []struct {
		typ, field string
		value      any
	}{
		{TypeUser, "content", formattest.Del}, {TypeUser, "content", nil}, {TypeUser, "content", []any{map[string]any{"type": "text", "text": "hi"}}},
		{TypeAssistant, "content", nil}, {TypeAssistant, "tool_calls", formattest.Del}, {TypeAssistant, "tool_calls", nil},
		{TypeAssistant, "tool_calls", []any{}}, {TypeUser, "name", nil}, {TypeUser, "name", "dev"},
		{TypeUser, "tool_call_id", ""}, {TypeUser, "tool_call_id", nil}, {TypeTool, "name", "bash"},
		{TypeSystem, "name", formattest.Del}, {TypeTool, "content", formattest.Del},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, c.value))
		assert.Equal(t, integrity.Valid, ev.Outcome, "%s %s=%v: %v", c.typ, c.field, c.value, formattest.Violations(&ev))
	}
}

func TestWrongTypes(t *testing.T) {
	for _, c := range []struct {
		typ, field string
		value      any
		want       string
	}{
		{TypeUser, "uuid", "", "uuid: must be a non-empty string"},
		{TypeUser, "uuid", 7, "uuid: must be a non-empty string"},
		{TypeUser, "uuid", nil, "uuid: must be a non-empty string"},
		{TypeUser, "timestamp", "2026-02-09", "timestamp: must be an RFC 3339 date-time"},
		{TypeUser, "timestamp", "yesterday", "timestamp: must be an RFC 3339 date-time"},
		{TypeUser, "timestamp", 1770645791, "timestamp: must be an RFC 3339 date-time"},
		{TypeUser, "content", 5, "content: must be a string, an array or null"},
		{TypeUser, "content", map[string]any{"text": "hi"}, "content: must be a string, an array or null"},
		{TypeUser, "content", true, "content: must be a string, an array or null"},
		{TypeUser, "name", 1, "name: must be a string or null"},
		{TypeUser, "tool_call_id", 3, "tool_call_id: must be a string or null"},
		{TypeTool, "tool_call_id", "", "tool_call_id: must be a non-empty string"},
		{TypeTool, "tool_call_id", nil, "tool_call_id: must be a non-empty string"},
		{TypeTool, "tool_call_id", 7, "tool_call_id: must be a non-empty string"},
		{TypeAssistant, "tool_calls", map[string]any{"id": "x"}, "tool_calls: must be an array or null"},
		{TypeAssistant, "tool_calls", "bash", "tool_calls: must be an array or null"},
		{TypeAssistant, "tool_calls", []any{"call_7"}, "tool_calls[0]: must be an object"},
		{TypeAssistant, "tool_calls", []any{nil}, "tool_calls[0]: must be an object"},
		{TypeAssistant, "tool_calls", []any{map[string]any{"name": "bash"}}, "tool_calls[0].id: required field missing"},
		{TypeAssistant, "tool_calls", []any{map[string]any{"id": ""}}, "tool_calls[0].id: must be a non-empty string"},
		{TypeAssistant, "tool_calls", []any{map[string]any{"id": 1}}, "tool_calls[0].id: must be a non-empty string"},
		{TypeAssistant, "tool_calls", []any{map[string]any{"id": "a"}, map[string]any{"id": nil}}, "tool_calls[1].id: must be a non-empty string"},
		{TypeAssistant, "tool_calls", []any{map[string]any{"id": "a", "name": 5}}, "tool_calls[0].name: must be a string"},
		{TypeAssistant, "tool_calls", []any{map[string]any{"id": "a", "function": map[string]any{"name": []any{}}}}, "tool_calls[0].function.name: must be a string"},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, c.value))
		assert.Equal(t, integrity.SchemaInvalid, ev.Outcome, "%s %s=%v", c.typ, c.field, c.value)
		assert.Equal(t, []string{c.want}, formattest.Violations(&ev), "%s %s=%v", c.typ, c.field, c.value)
		assert.Equal(t, c.typ, ev.EventType)
	}
}

func TestManyToolCalls(t *testing.T) {
	calls := make([]any, 70)
	for i := range calls {
		calls[i] = map[string]any{"id": i}
	}
	ev := judgeOne(formattest.Mutate(t, valid[TypeAssistant], "tool_calls", calls))
	assert.Len(t, ev.Violations, 70)
	assert.Equal(t, "tool_calls[0].id", ev.Violations[0].Field)
	assert.Equal(t, "tool_calls[63].id", ev.Violations[63].Field)
	assert.Equal(t, "tool_calls[*].id", ev.Violations[64].Field, "later entries share a name")
}

func TestDuplicateKeys(t *testing.T) {
	const ts = `"timestamp":"2026-02-09T14:00:00Z"`
	for line, want := range map[string][]string{
		`{"role":"user","role":"tool","uuid":"u",` + ts + `}`:                                                     {"role: duplicate key"},
		`{"role":"user","uuid":"u","uuid":"v",` + ts + `}`:                                                        {"uuid: duplicate key"},
		`{"role":"user","uuid":"u",` + ts + `,` + ts + `}`:                                                        {"timestamp: duplicate key"},
		`{"role":"user","uuid":"u",` + ts + `,"content":"a","content":"b"}`:                                       {"content: duplicate key"},
		`{"role":"tool","uuid":"u",` + ts + `,"tool_call_id":"a","tool_call_id":"b"}`:                             {"tool_call_id: duplicate key"},
		`{"role":"assistant","uuid":"u",` + ts + `,"tool_calls":[],"tool_calls":[]}`:                              {"tool_calls: duplicate key"},
		`{"role":"assistant","uuid":"u",` + ts + `,"tool_calls":[{"id":"a","id":"b"}]}`:                           {"tool_calls[0].id: duplicate key"},
		`{"role":"assistant","uuid":"u",` + ts + `,"tool_calls":[{"id":"a","function":{"name":"x","name":"y"}}]}`: {"tool_calls[0].function.name: duplicate key"},
	} {
		ev := judgeOne(line)
		assert.Equal(t, integrity.SchemaInvalid, ev.Outcome, line)
		assert.Equal(t, format.DuplicateKey, ev.Flags, line)
		assert.Equal(t, want, formattest.Violations(&ev), line)
	}
	ev := judgeOne(`{"role":"user","role":"tool","uuid":"u","timestamp":"2026-02-09T14:00:00Z"}`)
	assert.Equal(t, TypeUser, ev.EventType, "the first occurrence counts")
}

func TestUnknownRole(t *testing.T) {
	for _, r := range []string{"developer", "function", "", "USER"} {
		ev := judgeOne(`{"role":"` + r + `","uuid":5,"timestamp":"2026-02-09T14:00:00Z","content":{},"tool_calls":"x"}`)
		assert.Equal(t, integrity.Valid, ev.Outcome, "an unknown role's fields are not judged: %v", formattest.Violations(&ev))
		assert.Equal(t, "", ev.EventType, r)
		assert.Equal(t, r, string(ev.TypeName))
		assert.Equal(t, format.UnknownType, ev.Flags)
		assert.Equal(t, format.RoleOther, ev.Role)
		assert.True(t, ev.HasTime, "a readable timestamp is used")
	}
	ev := judgeOne(`{"role":"developer","role":"x"}`)
	assert.Equal(t, []string{"role: duplicate key"}, formattest.Violations(&ev), "the role itself is judged")
}

func TestUnknownFieldsPass(t *testing.T) {
	for typ, line := range valid {
		ev := judgeOne(formattest.Mutate(t, formattest.Mutate(t, line, "future_field", []any{1}), "meta.extra", "x"))
		assert.Equal(t, integrity.Valid, ev.Outcome, typ)
	}
	ev := judgeOne(`{"uuid":"u","timestamp":"2026-02-09T14:00:00Z","role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":"{}","extra":[1]},"index":0}]}`)
	assert.Equal(t, integrity.Valid, ev.Outcome)
}

func TestCorrupt(t *testing.T) {
	for line, reason := range map[string]string{
		``:                                    "blank line",
		`   `:                                 "blank line",
		`{"role":"user"`:                      "not JSON",
		`{"role":"user"} x`:                   "not JSON",
		`["role","user"]`:                     "not a JSON object",
		`"role"`:                              "not a JSON object",
		`{"uuid":"u"}`:                        `no string "role"`,
		`{"role":null}`:                       `no string "role"`,
		`{"role":1,"role":"user"}`:            `no string "role"`,
		`{"role":{"name":"user"},"uuid":"u"}`: `no string "role"`,
		"{\"role\":\"\xff\"}":                 "invalid UTF-8",
	} {
		ev := judgeOne(line)
		assert.Equal(t, integrity.Corrupt, ev.Outcome, line)
		assert.Equal(t, reason, ev.CorruptReason, line)
		assert.Equal(t, "", ev.EventType)
	}
}

func TestTranscriptLines(t *testing.T) {
	f := New()
	lines := []string{
		`{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-4-5"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"bash","input":{}}]},"session_id":"s"}`,
		`{"type":"result","subtype":"success","total_cost_usd":0.0234,"is_error":false}`,
		`{"type":"result","subtype":"error_max_turns","total_cost_usd":"0.1"}`,
		`{"type":"some_future_kind","anything":[1,{"x":null}]}`,
		`{"subtype":"init","session_id":"s"}`,
		`{"type":7}`,
		`{"type":"user","type":"system"}`,
		`{"role":"user","uuid":"u"}`,
		`{"type":"result"`,
		`[]`,
	}
	evs, st := runWith(t, f, Transcript, &Metadata{Read: true, Model: "m"}, lines...)
	want := []struct {
		outcome    integrity.Outcome
		name       string
		violations []string
	}{
		{integrity.Valid, "system", nil},
		{integrity.Valid, "assistant", nil},
		{integrity.Valid, "result", nil},
		{integrity.Valid, "result", nil},
		{integrity.Valid, "some_future_kind", nil},
		{integrity.SchemaInvalid, "", []string{"type: required field missing"}},
		{integrity.SchemaInvalid, "", []string{"type: must be a string"}},
		{integrity.SchemaInvalid, "user", []string{"type: duplicate key"}},
		{integrity.SchemaInvalid, "", []string{"type: required field missing"}},
		{integrity.Corrupt, "", nil},
		{integrity.Corrupt, "", nil},
	}
	for i, ev := range evs {
		assert.Equal(t, want[i].outcome, ev.Outcome, lines[i])
		assert.Equal(t, want[i].name, string(ev.TypeName), lines[i])
		assert.Equal(t, want[i].violations, formattest.Violations(&ev), lines[i])
		if ev.Outcome == integrity.Corrupt {
			continue
		}
		assert.Equal(t, TypeTranscript, ev.EventType, lines[i])
		assert.Equal(t, format.RoleOther, ev.Role)
		assert.Zero(t, ev.Flags&format.UnknownType, "the kind is known, its contents are not judged")
		assert.False(t, ev.HasTime, "no time: the pipeline's timestamp_fallback")
		assert.Empty(t, ev.Model)
		assert.Empty(t, ev.State, "transcript.jsonl derives no state")
		assert.Zero(t, ev.NoteCount)
		assert.Equal(t, "0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", string(ev.SessionID))
	}
	assert.True(t, evs[2].HasCost, "a result's stated cost")
	assert.Equal(t, 0.0234, evs[2].CostUSD)
	assert.False(t, evs[3].HasCost, "not a number")
	assert.False(t, evs[0].HasCost)
	assert.Equal(t, "", st.Derived())
	assert.Nil(t, st.Open())
}

func TestContentDecidesWithoutAJournal(t *testing.T) {
	ev := judgeOne(`{"type":"result","total_cost_usd":1.5}`)
	assert.Equal(t, TypeTranscript, ev.EventType, "a type and no role: an SDK message")
	assert.True(t, ev.HasCost)
	ev = judgeOne(`{"type":"x","role":"user","uuid":"u","timestamp":"2026-02-09T14:00:00Z"}`)
	assert.Equal(t, TypeUser, ev.EventType, "a string role: a message")
	ev = judgeOne(`{"type":"x","role":5}`)
	assert.Equal(t, TypeTranscript, ev.EventType)
	ev = judgeOne(`{"content":"x"}`)
	assert.Equal(t, integrity.Corrupt, ev.Outcome, "neither: a message without its role")

	// A messages.jsonl is judged as one whatever a line holds.
	evs, _ := run(t, nil, `{"type":"result","total_cost_usd":1.5}`)
	assert.Equal(t, integrity.Corrupt, evs[0].Outcome)
	assert.Equal(t, `no string "role"`, evs[0].CorruptReason)
}
