package claudecode

import (
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
)

func TestEachTypeValid(t *testing.T) {
	wantRole := map[string]format.Role{
		"user": format.RoleMessage, "assistant": format.RoleLLMResponse, "system": format.RoleStatus,
		"file-history-snapshot": format.RoleCheckpoint, "result": format.RoleSessionEnd,
	}
	timed := map[string]bool{"user": true, "assistant": true, "system": true, "progress": true, "attachment": true,
		"file-history-snapshot": true, "queue-operation": true, "pr-link": true}
	assert.Len(t, valid, len(New().EventTypes()))
	for _, typ := range New().EventTypes() {
		t.Run(typ, func(t *testing.T) {
			ev := judgeOne(valid[typ])
			assert.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
			assert.Equal(t, typ, ev.EventType)
			assert.Nil(t, ev.TypeName, "the type name is only kept for unknown types")
			assert.Equal(t, wantRole[typ], ev.Role) // RoleOther when not listed
			assert.Equal(t, timed[typ], ev.HasTime)
			assert.Zero(t, ev.Flags&^format.SavesCheckpoint)
			assert.Zero(t, ev.NoteCount, formattest.Notes(&ev))
			if typ != "summary" && typ != "file-history-snapshot" {
				assert.Equal(t, sessionID, string(ev.SessionID))
			}
		})
	}
	for typ, l := range stream {
		ev := judgeOne(l)
		assert.Equal(t, integrity.Valid, ev.Outcome, "stream-json %s: %v", typ, formattest.Violations(&ev))
		assert.False(t, ev.HasTime, "stream-json %s has no time", typ)
		assert.Equal(t, sessionID, string(ev.SessionID))
	}
}

// required lists each type's required fields (nested ones only required
// when their parent is there).
var required = map[string][]string{
	"user":                  {"uuid", "parentUuid", "sessionId", "timestamp", "message", "message.role", "message.content"},
	"assistant":             {"uuid", "parentUuid", "sessionId", "timestamp", "message", "message.role", "message.content", "message.id", "message.model", "message.usage.input_tokens", "message.usage.output_tokens"},
	"system":                {"uuid", "parentUuid", "sessionId", "timestamp", "subtype"},
	"progress":              {"uuid", "sessionId", "data", "data.type"},
	"attachment":            {"uuid", "timestamp", "attachment", "attachment.type"},
	"summary":               {"summary", "leafUuid"},
	"file-history-snapshot": {"messageId", "snapshot"},
	"queue-operation":       {"operation", "sessionId", "timestamp"},
	"custom-title":          {"sessionId"},
	"worktree-state":        {"sessionId"},
	"result":                {"subtype", "is_error", "session_id"},
	"stream_event":          {"event"},
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
	for _, c := range []struct{ typ, field string }{
		{"system", "session_id"}, {"assistant", "session_id"}, {"assistant", "message.id"}, {"user", "message.content"},
	} {
		// The file's first line decided the dialect.
		evs, _ := run(t, New(), "/srv/captures/x/run.jsonl", stream["user"], formattest.Mutate(t, stream[c.typ], c.field, formattest.Del))
		assert.Equal(t, []string{c.field + ": required field missing"}, formattest.Violations(&evs[1]), "stream-json %s", c.typ)
	}
}

func TestOptionalFieldsMayBeLeftOut(t *testing.T) {
	for _, c := range []struct{ typ, field string }{
		{"user", "isSidechain"}, {"user", "cwd"}, {"user", "version"}, {"user", "userType"},
		{"assistant", "requestId"}, {"assistant", "message.usage"}, {"assistant", "message.stop_reason"},
		{"assistant", "message.usage.cache_creation"}, {"assistant", "message.usage.cache_read_input_tokens"},
		{"assistant", "message.usage.cache_creation_input_tokens"}, {"assistant", "message.usage.cache_creation.ephemeral_1h_input_tokens"},
		{"system", "logicalParentUuid"}, {"file-history-snapshot", "snapshot.timestamp"}, {"file-history-snapshot", "isSnapshotUpdate"},
		{"result", "total_cost_usd"}, {"pr-link", "timestamp"}, {"stream_event", "session_id"},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, formattest.Del))
		assert.Equal(t, integrity.Valid, ev.Outcome, "%s without %s: %v", c.typ, c.field, formattest.Violations(&ev))
	}
	for _, c := range []struct{ typ, field string }{{"assistant", "parent_tool_use_id"}, {"user", "parent_tool_use_id"}, {"system", "model"}} {
		ev := judgeOne(formattest.Mutate(t, stream[c.typ], c.field, formattest.Del))
		assert.Equal(t, integrity.Valid, ev.Outcome, "stream-json %s without %s: %v", c.typ, c.field, formattest.Violations(&ev))
	}
}

func TestNullWhereAllowed(t *testing.T) {
	for _, c := range []struct{ typ, field string }{
		{"user", "parentUuid"}, {"assistant", "message.stop_reason"}, {"system", "logicalParentUuid"},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, nil))
		assert.Equal(t, integrity.Valid, ev.Outcome, "%s %s null: %v", c.typ, c.field, formattest.Violations(&ev))
	}
	ev := judgeOne(formattest.Mutate(t, stream["assistant"], "parent_tool_use_id", nil))
	assert.Equal(t, integrity.Valid, ev.Outcome)
}

func TestWrongTypes(t *testing.T) {
	for _, c := range []struct {
		typ, field string
		value      any
		want       string
	}{
		{"user", "uuid", 7, "must be a string"},
		{"user", "uuid", "", "must not be empty"},
		{"user", "parentUuid", "", "must not be empty"},
		{"user", "parentUuid", 3, "must be a string or null"},
		{"user", "sessionId", nil, "must be a string"},
		{"user", "timestamp", "2026-03-02", "must be an RFC 3339 date-time"},
		{"user", "timestamp", 1700000000, "must be an RFC 3339 date-time"},
		{"user", "isSidechain", "false", "must be a boolean"},
		{"user", "agentId", 5, "must be a string"},
		{"user", "isMeta", 1, "must be a boolean"},
		{"user", "message", "hi", "must be an object"},
		{"user", "message.content", 5, "must be a string or an array"},
		{"user", "message.role", nil, "must be a string"},
		{"assistant", "message.content", "text", "must be an array"},
		{"assistant", "message.id", "", "must not be empty"},
		{"assistant", "message.model", 4, "must be a string"},
		{"assistant", "message.stop_reason", 1, "must be a string or null"},
		{"assistant", "message.usage", "none", "must be an object"},
		{"assistant", "message.usage.input_tokens", "3", "must be an integer"},
		{"assistant", "message.usage.output_tokens", 1.5, "must be an integer"},
		{"assistant", "message.usage.output_tokens", -1, "must be >= 0"},
		{"assistant", "message.usage.cache_read_input_tokens", nil, "must be an integer"},
		{"assistant", "message.usage.cache_creation", 5, "must be an object"},
		{"assistant", "message.usage.cache_creation.ephemeral_1h_input_tokens", "x", "must be an integer"},
		{"assistant", "requestId", 9, "must be a string"},
		{"system", "subtype", 3, "must be a string"},
		{"system", "logicalParentUuid", 3, "must be a string or null"},
		{"progress", "data", "bash", "must be an object"},
		{"progress", "data.type", nil, "must be a string"},
		{"attachment", "attachment.type", 1, "must be a string"},
		{"summary", "leafUuid", "", "must not be empty"},
		{"summary", "summary", []any{}, "must be a string"},
		{"file-history-snapshot", "messageId", 1, "must be a string"},
		{"file-history-snapshot", "snapshot", "x", "must be an object"},
		{"file-history-snapshot", "snapshot.timestamp", "soon", "must be an RFC 3339 date-time"},
		{"file-history-snapshot", "isSnapshotUpdate", "no", "must be a boolean"},
		{"queue-operation", "operation", 1, "must be a string"},
		{"custom-title", "sessionId", "", "must not be empty"},
		{"result", "is_error", "false", "must be a boolean"},
		{"result", "total_cost_usd", "0.01", "must be a number"},
		{"result", "session_id", 1, "must be a string"},
		{"stream_event", "event", []any{}, "must be an object"},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, c.value))
		assert.Equal(t, integrity.SchemaInvalid, ev.Outcome, "%s %s=%v", c.typ, c.field, c.value)
		assert.Equal(t, []string{c.field + ": " + c.want}, formattest.Violations(&ev), "%s %s=%v", c.typ, c.field, c.value)
	}
}

func TestIntegersAsJSONSchemaCountsThem(t *testing.T) {
	ev := judgeOne(strings.Replace(valid["assistant"], `"output_tokens":8`, `"output_tokens":8.0`, 1))
	assert.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
	assert.Equal(t, int64(8), ev.Usage.Output)
	ev = judgeOne(strings.Replace(valid["assistant"], `"output_tokens":8`, `"output_tokens":8e0`, 1))
	assert.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
}

func TestContentBlocks(t *testing.T) {
	for _, c := range []struct {
		name, blocks string
		want         []string
	}{
		{"text", textBlock, nil},
		{"tool_use", toolUse("toolu_1", "Bash"), nil},
		{"unknown block types pass", `{"type":"fancy","x":1},{"type":"server_tool_use","id":"s","name":"web_search"},{"type":"image","source":{}}`, nil},
		{"not an object", `"text"`, []string{"message.content[]: must be an object"}},
		{"no type", `{"text":"x"}`, []string{"message.content[].type: required field missing"}},
		{"type not a string", `{"type":1}`, []string{"message.content[].type: must be a string"}},
		{"tool_use without id", `{"type":"tool_use","name":"Bash","input":{}}`, []string{"message.content[].id: required field missing"}},
		{"tool_use with an empty id", `{"type":"tool_use","id":"","name":"Bash"}`, []string{"message.content[].id: must not be empty"}},
		{"tool_use without name", `{"type":"tool_use","id":"t"}`, []string{"message.content[].name: required field missing"}},
		{"tool_use name not a string", `{"type":"tool_use","id":"t","name":null}`, []string{"message.content[].name: must be a string"}},
		{"each rule once", `{"type":1},{"type":2},{"type":[]}`, []string{"message.content[].type: must be a string"}},
		{"duplicate type", `{"type":"text","type":"tool_use","text":"x"}`, []string{"message.content[].type: duplicate key"}},
		{"whitespace", ` { "type" : "text" , "text" : "x" } , { } `, []string{"message.content[].type: required field missing"}},
		{"escaped keys", `{"t\u0079pe":"tool_use","\u0069d":"toolu_9","name":"Bash"}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := judgeOne(reply(uid(2), uid(1), "msg_1", "req_1", c.blocks, "null", usageOf(1, 1, 0, 0)))
			assert.Equal(t, c.want, formattest.Violations(&ev))
			if c.want == nil {
				assert.Equal(t, integrity.Valid, ev.Outcome)
			}
		})
	}
	for _, c := range []struct {
		name, blocks string
		want         []string
	}{
		{"tool_result", toolResult("toolu_1"), nil},
		{"tool_result without id", `{"type":"tool_result","content":"x"}`, []string{"message.content[].tool_use_id: required field missing"}},
		{"tool_result with an empty id", `{"type":"tool_result","tool_use_id":""}`, []string{"message.content[].tool_use_id: must not be empty"}},
		{"image and text", `{"type":"image","source":{"type":"base64","data":"AAAA"}},{"type":"text","text":"look"}`, nil},
	} {
		ev := judgeOne(userBlocks(uid(2), uid(1), c.blocks))
		assert.Equal(t, c.want, formattest.Violations(&ev), c.name)
	}
	ev := judgeOne(reply(uid(2), uid(1), "msg_1", "req_1", `{"type":"tool_use","i\u0064":"toolu_\u0041","name":"B\u0061sh"}`, "null", ""))
	assert.Equal(t, "toolu_A", string(ev.ToolCallID), "escaped values are decoded")
	assert.Equal(t, "Bash", string(ev.ToolName))
}

func TestDuplicateKeys(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{strings.Replace(valid["user"], `"type":"user"`, `"type":"user","type":"user"`, 1), "type"},
		{strings.Replace(valid["assistant"], `"id":"msg_01QxR4tN8vLp"`, `"id":"msg_01QxR4tN8vLp","id":"msg_other"`, 1), "message.id"},
		{strings.Replace(valid["assistant"], `"output_tokens":8`, `"output_tokens":8,"output_tokens":9`, 1), "message.usage.output_tokens"},
		{strings.Replace(valid["result"], `"subtype":"success"`, `"subtype":"success","subtype":"x"`, 1), "subtype"},
	} {
		ev := judgeOne(c.line)
		assert.Equal(t, integrity.SchemaInvalid, ev.Outcome)
		assert.NotZero(t, ev.Flags&format.DuplicateKey)
		assert.Equal(t, []string{c.want + ": duplicate key"}, formattest.Violations(&ev))
	}
	ev := judgeOne(strings.Replace(valid["user"], `"cwd":"/home/dev/app"`, `"cwd":"a","cwd":"b"`, 1))
	assert.Equal(t, integrity.Valid, ev.Outcome, "a field journalship does not read may repeat")
	assert.Zero(t, ev.Flags)
}

func TestCorrupt(t *testing.T) {
	for _, c := range []struct{ line, reason string }{
		{"", "blank line"},
		{"  \t", "blank line"},
		{`{"type":"user"`, "not JSON"},
		{`{"type":"user",}`, "not JSON"},
		{"[1]", "not a JSON object"},
		{`"user"`, "not a JSON object"},
		{`{}`, `no string "type"`},
		{`{"type":null}`, `no string "type"`},
		{`{"type":["user"]}`, `no string "type"`},
		{"{\"type\":\"user\",\"x\":\"\xff\"}", "invalid UTF-8"},
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), "not JSON: nested deeper than 10000 levels"},
	} {
		ev := judgeOne(c.line)
		assert.Equal(t, integrity.Corrupt, ev.Outcome, c.line)
		assert.Equal(t, c.reason, ev.CorruptReason)
		assert.Empty(t, ev.EventType)
	}
}

func TestUnknownTypesAndFieldsPass(t *testing.T) {
	ev := judgeOne(`{"type":"brand-new","sessionId":"` + sessionID + `","timestamp":"` + stamp + `","x":{"y":[1]}}`)
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.Equal(t, "", ev.EventType)
	assert.Equal(t, "brand-new", string(ev.TypeName))
	assert.Equal(t, format.UnknownType, ev.Flags)
	assert.Equal(t, format.RoleOther, ev.Role)
	assert.True(t, ev.HasTime, "a readable timestamp is read")
	assert.Equal(t, sessionID, string(ev.SessionID))

	ev = judgeOne(`{"type":"brand-new","timestamp":12}`)
	assert.Equal(t, integrity.Valid, ev.Outcome, "an unknown type is not judged")
	assert.False(t, ev.HasTime)

	ev = judgeOne(formattest.Mutate(t, valid["assistant"], "message.future", map[string]any{"a": []any{1, "b"}}))
	assert.Equal(t, integrity.Valid, ev.Outcome)
	ev = judgeOne(formattest.Mutate(t, valid["system"], "subtype", "never_seen_before"))
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.Equal(t, format.RoleStatus, ev.Role)
	ev = judgeOne(formattest.Mutate(t, valid["result"], "subtype", "error_new_kind"))
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.Equal(t, "error_new_kind", string(ev.EndReason))

	ev = judgeOne(formattest.Mutate(t, valid["assistant"], "message.stop_reason", "brand_new"))
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.Equal(t, []string{"unknown_stop_reason(brand_new)"}, formattest.Notes(&ev))
	ev = judgeOne(formattest.Mutate(t, valid["assistant"], "message.stop_reason", strings.Repeat("é", 40)))
	assert.Equal(t, []string{"unknown_stop_reason(" + strings.Repeat("é", 32) + ")"}, formattest.Notes(&ev), "clipped to 64 bytes")
	for _, r := range stopReasons {
		ev = judgeOne(formattest.Mutate(t, valid["assistant"], "message.stop_reason", r))
		assert.Zero(t, ev.NoteCount, r)
	}
}

func TestRoles(t *testing.T) {
	for _, c := range []struct {
		line string
		want format.Role
	}{
		{userBlocks(uid(2), uid(1), toolResult("toolu_1")), format.RoleToolResult},
		{userBlocks(uid(2), uid(1), textBlock+","+toolResult("toolu_1")), format.RoleToolResult},
		{userBlocks(uid(2), uid(1), textBlock), format.RoleMessage},
		{prompt(uid(2), uid(1), "hi"), format.RoleMessage},
		{reply(uid(2), uid(1), "m", "r", toolUse("toolu_1", "Bash"), "null", ""), format.RoleLLMResponse},
		{formattest.Mutate(t, valid["system"], "subtype", "api_error"), format.RoleError},
		{formattest.Mutate(t, valid["system"], "subtype", "compact_boundary"), format.RoleCheckpoint},
		{formattest.Mutate(t, valid["system"], "subtype", "microcompact_boundary"), format.RoleCheckpoint},
		{formattest.Mutate(t, valid["system"], "subtype", "init"), format.RoleStatus}, // a transcript has no session_start
		{stream["system"], format.RoleSessionStart},
		{formattest.Mutate(t, stream["system"], "subtype", "compact_boundary"), format.RoleCheckpoint},
		{formattest.Mutate(t, stream["system"], "subtype", "status"), format.RoleStatus},
		{valid["result"], format.RoleSessionEnd},
		{valid["progress"], format.RoleOther},
		{valid["stream_event"], format.RoleOther},
	} {
		assert.Equal(t, c.want, judgeOne(c.line).Role, c.line)
	}
}

func TestLineFields(t *testing.T) {
	ev := judgeOne(valid["assistant"])
	assert.Equal(t, "claude-sonnet-4-5-20250929", string(ev.Model))
	assert.Equal(t, format.Usage{Input: 23180, Output: 8, CacheRead: 21337, CacheWrite: 1840, CacheWrite1h: 1840, Has: true}, ev.Usage)
	assert.False(t, ev.Ends)

	ev = judgeOne(formattest.Mutate(t, valid["assistant"], "message.model", "<synthetic>"))
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.Nil(t, ev.Model, "never shipped as a model")
	assert.False(t, ev.Usage.Has, "never counted")

	ev = judgeOne(formattest.Mutate(t, valid["assistant"], "message.usage.output_tokens", "8"))
	assert.False(t, ev.Usage.Has, "a schema-invalid line counts nothing")

	ev = judgeOne(valid["file-history-snapshot"])
	assert.Equal(t, uuid1, string(ev.CheckpointID))
	assert.Equal(t, format.SavesCheckpoint, ev.Flags)
	assert.Equal(t, stamp[:19], ev.Time.UTC().Format("2006-01-02T15:04:05"))

	ev = judgeOne(valid["result"])
	assert.True(t, ev.Ends)
	assert.False(t, ev.Terminal, "a session may be resumed")
	assert.Equal(t, "success", string(ev.EndReason))
	assert.True(t, ev.HasCost)
	assert.Equal(t, 0.0123, ev.CostUSD)
	for _, v := range []string{"-1", "1e400"} {
		ev = judgeOne(strings.Replace(valid["result"], `0.0123`, v, 1))
		assert.False(t, ev.HasCost, "%s is no cost", v)
	}

	ev = judgeOne(valid["summary"])
	assert.False(t, ev.HasTime)
	assert.Nil(t, ev.SessionID)
}

func TestUsageMapping(t *testing.T) {
	for _, c := range []struct {
		name, usage string
		want        format.Usage
	}{
		{"no cache", `{"input_tokens":10,"output_tokens":5}`, format.Usage{Input: 10, Output: 5, Has: true}},
		{"cache read and write", usageOf(3, 7, 100, 1000), format.Usage{Input: 1103, Output: 7, CacheRead: 1000, CacheWrite: 100, Has: true}},
		{"5m split agrees", `{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":100,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":0}}`,
			format.Usage{Input: 101, Output: 1, CacheWrite: 100, Has: true}},
		{"1h split", `{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":100,"cache_creation":{"ephemeral_5m_input_tokens":40,"ephemeral_1h_input_tokens":60}}`,
			format.Usage{Input: 101, Output: 1, CacheWrite: 100, CacheWrite1h: 60, Has: true}},
		{"split disagrees: the split's sum", `{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":100,"cache_creation":{"ephemeral_5m_input_tokens":70,"ephemeral_1h_input_tokens":60}}`,
			format.Usage{Input: 131, Output: 1, CacheWrite: 130, CacheWrite1h: 60, Has: true}},
		{"empty split: cache_creation_input_tokens", `{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":100,"cache_creation":{}}`,
			format.Usage{Input: 101, Output: 1, CacheWrite: 100, Has: true}},
		{"huge counts saturate", `{"input_tokens":9223372036854775807,"output_tokens":1,"cache_read_input_tokens":9223372036854775807}`,
			format.Usage{Input: 9223372036854775807, Output: 1, CacheRead: 9223372036854775807, Has: true}},
	} {
		ev := judgeOne(reply(uid(2), uid(1), "msg_1", "req_1", textBlock, "null", c.usage))
		assert.Equal(t, integrity.Valid, ev.Outcome, c.name)
		assert.Equal(t, c.want, ev.Usage, c.name)
	}
}
