package codelia

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
)

func TestEachTypeValid(t *testing.T) {
	wantRole := map[string]format.Role{
		"header": format.RoleSessionStart, "run.start": format.RoleMessage, "run.context": format.RoleOther,
		"agent.event": format.RoleToolCall, "tool.output": format.RoleToolResult, "llm.request": format.RoleLLMRequest,
		"llm.response": format.RoleLLMResponse, "run.status": format.RoleStatus, "run.error": format.RoleError,
		"run.end": format.RoleSessionEnd,
	}
	assert.Len(t, valid, len(New().EventTypes()))
	for _, typ := range New().EventTypes() {
		t.Run(typ, func(t *testing.T) {
			ev := judgeOne(valid[typ])
			assert.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
			assert.Equal(t, typ, ev.EventType)
			assert.Nil(t, ev.TypeName, "the type name is only kept for unknown types")
			assert.Equal(t, wantRole[typ], ev.Role)
			assert.True(t, ev.HasTime)
			assert.Equal(t, runID, string(ev.RunID))
			assert.Zero(t, ev.Flags)
			assert.Zero(t, ev.NoteCount, formattest.Notes(&ev))
		})
	}
}

// required lists each type's required fields (nested ones only required
// when their parent is there).
var required = map[string][]string{
	"header":       {"schema_version", "run_id", "started_at", "client.name", "client.version", "server.name", "server.version"},
	"run.start":    {"run_id", "ts", "input", "input.type", "input.text"},
	"run.context":  {"run_id", "ts", "context_left_percent"},
	"agent.event":  {"run_id", "ts", "seq", "event", "event.type"},
	"tool.output":  {"run_id", "ts", "tool", "tool_call_id", "result_raw", "output_ref.id"},
	"llm.request":  {"run_id", "ts", "seq", "input", "input.messages"},
	"llm.response": {"run_id", "ts", "seq", "output", "output.messages", "output.usage.model", "output.usage.input_tokens", "output.usage.output_tokens", "output.usage.total_tokens"},
	"run.status":   {"run_id", "ts", "status"},
	"run.error":    {"run_id", "ts", "error", "error.name", "error.message"},
	"run.end":      {"run_id", "ts", "outcome"},
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

func TestOptionalFieldsMayBeLeftOut(t *testing.T) {
	for _, c := range []struct{ typ, field string }{
		{"header", "session_id"}, {"header", "client"}, {"header", "model"}, {"header", "runtime"}, {"header", "meta"},
		{"run.start", "session_id"}, {"run.start", "ui_context"}, {"tool.output", "is_error"}, {"tool.output", "output_ref"},
		{"tool.output", "output_ref.byte_size"}, {"llm.request", "model"}, {"llm.request", "input.tools"},
		{"llm.response", "output.usage"}, {"llm.response", "output.usage.input_cached_tokens"}, {"llm.response", "output.stop_reason"},
		{"run.status", "message"}, {"run.error", "error.stack"}, {"run.end", "final"},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, formattest.Del))
		assert.Equal(t, integrity.Valid, ev.Outcome, "%s without %s: %v", c.typ, c.field, formattest.Violations(&ev))
	}
}

func TestWrongTypes(t *testing.T) {
	for _, c := range []struct {
		typ, field string
		value      any
		want       string
	}{
		{"header", "schema_version", "1", "must be an integer"},
		{"header", "schema_version", 1.5, "must be an integer"},
		{"header", "schema_version", 0, "must be >= 1"},
		{"header", "run_id", 7, "must be a string"},
		{"header", "run_id", "", "must not be empty"},
		{"header", "started_at", "2026-02-03", "must be an RFC 3339 date-time"},
		{"header", "client", "tui", "must be an object"},
		{"header", "model.name", 4, "must be a string"},
		{"header", "tools.definitions", map[string]any{}, "must be an array"},
		{"header", "meta", []any{}, "must be an object"},
		{"run.start", "ts", "yesterday", "must be an RFC 3339 date-time"},
		{"run.start", "ts", 1700000000, "must be an RFC 3339 date-time"},
		{"run.start", "session_id", nil, "must be a string"},
		{"run.start", "input", "list files", "must be an object"},
		{"run.context", "context_left_percent", "87%", "must be a number"},
		{"agent.event", "seq", -1, "must be >= 0"},
		{"agent.event", "seq", 1.5, "must be an integer"},
		{"agent.event", "event", nil, "must be an object"},
		{"tool.output", "is_error", "no", "must be a boolean"},
		{"tool.output", "tool", "", "must not be empty"},
		{"tool.output", "output_ref.line_count", "3", "must be an integer"},
		{"llm.request", "input.messages", "hi", "must be an array"},
		{"llm.request", "input.tools", "none", "must be an array or null"},
		{"llm.request", "input.model", nil, "must be a string"},
		{"llm.response", "output.usage", "none", "must be an object or null"},
		{"llm.response", "output.usage.input_tokens", "120", "must be an integer"},
		{"llm.response", "output.usage.input_cached_tokens", "1", "must be an integer or null"},
		{"llm.response", "output.usage.total_tokens", nil, "must be an integer"},
		{"llm.response", "output.stop_reason", 1, "must be a string or null"},
		{"run.status", "status", 3, "must be a string"},
		{"run.status", "status", "", "must not be empty"},
		{"run.end", "outcome", true, "must be a string"},
		{"run.error", "error.stack", []any{}, "must be a string"},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, c.value))
		assert.Equal(t, integrity.SchemaInvalid, ev.Outcome, "%s %s=%v", c.typ, c.field, c.value)
		assert.Equal(t, []string{c.field + ": " + c.want}, formattest.Violations(&ev), "%s %s=%v", c.typ, c.field, c.value)
	}
}

func TestNullUsageIsNoUsage(t *testing.T) {
	ev := judgeOne(formattest.Mutate(t, valid["llm.response"], "output.usage", nil))
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.False(t, ev.Usage.Has)
	assert.Empty(t, ev.Model, "no usage model and no request: no model")
}

func TestUsage(t *testing.T) {
	ev := judgeOne(valid["llm.response"])
	assert.Equal(t, format.Usage{Input: 120, Output: 15, CacheRead: 100, CacheWrite: 0, Has: true}, ev.Usage)
	assert.Equal(t, "gpt-4.1-mini-2025", string(ev.Model), "the usage's model first")
	assert.Zero(t, ev.CostUSD, "cost is the pipeline's")
	assert.True(t, ev.HasPair)
	assert.Equal(t, int64(1), ev.Pair)
}

func TestEnumsTolerateUnknownValues(t *testing.T) {
	for _, c := range []struct{ typ, field, value, note string }{
		{"run.status", "status", "paused", NoteUnknownStatus},
		{"run.end", "outcome", "timeout", NoteUnknownOutcome},
		{"run.start", "input.type", "image", NoteUnknownInputType},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, c.value))
		assert.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
		assert.Equal(t, []string{c.note + "(" + c.value + ")"}, formattest.Notes(&ev))
	}
	ev := judgeOne(formattest.Mutate(t, valid["run.start"], "input.text", formattest.Del))
	assert.Equal(t, integrity.SchemaInvalid, ev.Outcome, "text is required for input.type text")
	ev = judgeOne(formattest.Mutate(t, formattest.Mutate(t, valid["run.start"], "input.text", formattest.Del), "input.type", "image"))
	assert.Equal(t, integrity.Valid, ev.Outcome, "but not for another input type")
	ev = judgeOne(formattest.Mutate(t, valid["run.status"], "status", string(make([]byte, 100))))
	assert.Len(t, ev.Notes[0].Detail, format.MaxDetail, "a long value is clipped")
}

func TestUnknownTypes(t *testing.T) {
	ev := judgeOne(`{"type":"x.acme.trace","span":1}`)
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.Equal(t, "", ev.EventType)
	assert.Equal(t, "x.acme.trace", string(ev.TypeName))
	assert.Zero(t, ev.Flags, "a namespaced extension is not unknown_type")
	assert.Equal(t, format.RoleOther, ev.Role)
	for _, typ := range []string{"run.pause", "x.acme", "x..foo", "x.acme.", "", "HEADER"} {
		ev = judgeOne(`{"type":"` + typ + `","ts":"2026-02-03T12:00:00Z"}`)
		assert.Equal(t, integrity.Valid, ev.Outcome, typ)
		assert.Equal(t, format.UnknownType, ev.Flags, typ)
		assert.Equal(t, "", ev.EventType)
		assert.True(t, ev.HasTime, "a readable ts is used")
	}
	ev = judgeOne(`{"type":"run.pause","ts":"never"}`)
	assert.Equal(t, integrity.Valid, ev.Outcome, "an unknown type's fields are not judged")
}

func TestUnknownFieldsPass(t *testing.T) {
	for typ, line := range valid {
		ev := judgeOne(formattest.Mutate(t, formattest.Mutate(t, line, "future_field", []any{1}), "meta.extra", "x"))
		assert.Equal(t, integrity.Valid, ev.Outcome, typ)
	}
}

func TestCorrupt(t *testing.T) {
	for line, reason := range map[string]string{
		``:                      "blank line",
		`{"type":"run.end"`:     "not JSON",
		`["type","header"]`:     "not a JSON object",
		`{"ts":"x"}`:            `no string "type"`,
		`{"type":null}`:         `no string "type"`,
		`{"type":1,"type":"x"}`: `no string "type"`,
		"{\"type\":\"\xff\"}":   "invalid UTF-8",
	} {
		ev := judgeOne(line)
		assert.Equal(t, integrity.Corrupt, ev.Outcome, line)
		assert.Equal(t, reason, ev.CorruptReason, line)
		assert.Equal(t, "", ev.EventType)
	}
}

func TestDuplicateKey(t *testing.T) {
	ev := judgeOne(`{"type":"run.end","type":"run.start",` + common + `,"outcome":"completed"}`)
	assert.Equal(t, "run.end", ev.EventType, "the first occurrence counts")
	assert.Equal(t, format.DuplicateKey, ev.Flags)
	assert.Equal(t, []string{"type: duplicate key"}, formattest.Violations(&ev))
}
