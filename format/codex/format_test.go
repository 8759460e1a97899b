package codex

import (
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	_ format.Format     = (*Format)(nil)
	_ format.State      = (*State)(nil)
	_ format.Refuser    = (*Format)(nil)
	_ format.Withdrawer = (*State)(nil)
)

func TestConfig(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	assert.Equal(t, Config{MaxTrackedIDs: 1 << 17}, DefaultConfig())
	_, err := NewWith(Config{})
	assert.EqualError(t, err, "codex: MaxTrackedIDs 0 is not >= 1")
	f, err := NewWith(Config{MaxTrackedIDs: 3})
	require.NoError(t, err)
	assert.Equal(t, 3, f.Config().MaxTrackedIDs)
	assert.Equal(t, "codex", New().Name())
	assert.Equal(t, format.SeqRule{}, New().Seq())
	assert.Equal(t, format.ScopeAllLines, New().Scope())
	assert.NotEmpty(t, New().Layouts())
}

func TestClaim(t *testing.T) {
	started := time.Date(2026, 2, 23, 12, 41, 4, 0, time.Local)
	for _, c := range []struct {
		path    string
		ok      bool
		problem string
	}{
		{mainPath, true, ""},
		{root + "/archived_sessions/rollout-2026-02-23T12-41-04-" + sessionID + ".jsonl", true, ""},
		{root + "/sessions/rollout-2026-02-23T12-41-04-" + sessionID + ".jsonl", true, ""},
		{root + "/sessions/2026/02/24/rollout-2026-02-23T12-41-04-" + sessionID + ".jsonl", true, problemDateDirs},
		{root + "/sessions/2026/02/23/rollout-2026-02-30T12-41-04-" + sessionID + ".jsonl", true, problemNameTime},
		{root + "/sessions/2026/02/23/rollout-2026-02-23T12-41-04-" + sessionID + ".jsonl.zst", false, ""},
		{root + "/sessions/2026/02/23/rollout-2026-02-23-" + sessionID + ".json", false, ""},
		{root + "/sessions/2026/02/23/rollout-2026-02-23T12-41-04-not-a-uuid.jsonl", false, ""},
		{root + "/sessions/2026/02/23/rollout-2026-02-23T12:41:04-" + sessionID + ".jsonl", false, ""},
		{root + "/sessions/2026/02/23/" + sessionID + ".jsonl", false, ""},
		{root + "/history.jsonl", false, ""},
	} {
		p, ok := New().Claim(c.path)
		require.Equal(t, c.ok, ok, c.path)
		if !ok {
			continue
		}
		assert.Equal(t, format.Path{Format: Name, SessionID: sessionID, Group: c.path, Problem: c.problem,
			Started: map[bool]time.Time{true: started}[c.problem != problemNameTime]}, p, c.path)
	}
}

func TestRefuses(t *testing.T) {
	assert.True(t, New().Refuses(root+"/history.jsonl"))
	assert.True(t, New().Refuses(root+"/session_index.jsonl"))
	assert.False(t, New().Refuses(mainPath))
}

func TestSniff(t *testing.T) {
	f := New()
	assert.True(t, f.Sniff([]byte(meta(sessionID))))
	assert.True(t, f.Sniff([]byte(`{"id":"cf4def41-21e0-4b91-adb4-5397c1492084","timestamp":"2025-09-10T18:58:38.331Z","instructions":null}`)))
	for _, l := range []string{turnContext("gpt-5"), `{"type":"session_meta","payload":{"id":3}}`, `{"type":"session_meta"}`,
		`{"id":"x"}`, `{"session_id":"s","ts":1,"text":"hi"}`, `not json`, `{"type":"user","sessionId":"x"}`,
		// Any log's first line: a legacy header's id is a thread's uuid.
		`{"id":"evt-1","timestamp":"2026-11-21T10:00:00Z","level":"info","msg":"start"}`} {
		assert.False(t, f.Sniff([]byte(l)), l)
	}
}

func TestEachTypeValid(t *testing.T) {
	assert.Len(t, valid, len(New().EventTypes()))
	for _, typ := range New().EventTypes() {
		t.Run(typ, func(t *testing.T) {
			l, ok := valid[typ]
			require.True(t, ok, "add a valid %s line", typ)
			ev := judgeOne(l)
			assert.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
			assert.Equal(t, typ, ev.EventType)
			assert.Nil(t, ev.TypeName)
			assert.Zero(t, ev.Flags)
			assert.Zero(t, ev.NoteCount, formattest.Notes(&ev))
			assert.Equal(t, typ != "state", ev.HasTime)
			assert.Equal(t, sessionID, string(ev.SessionID))
		})
	}
}

func TestRoles(t *testing.T) {
	for typ, want := range map[string]format.Role{
		"session_meta": format.RoleSessionStart, "turn_context": format.RoleStatus, "message": format.RoleMessage,
		"function_call": format.RoleToolCall, "function_call_output": format.RoleToolResult,
		"custom_tool_call": format.RoleToolCall, "local_shell_call": format.RoleToolCall, "web_search_call": format.RoleToolCall,
		"token_count": format.RoleLLMResponse, "task_complete": format.RoleStatus, "compacted": format.RoleCheckpoint,
		"error": format.RoleError, "user_message": format.RoleOther, "reasoning": format.RoleOther,
	} {
		assert.Equal(t, want, judgeOne(valid[typ]).Role, typ)
	}
	assert.Equal(t, format.RoleStatus, judgeOne(tokenCountNull).Role, "no usage: a status line")
}

// required lists each type's required fields (nested ones only required
// when their parent is there).
var required = map[string][]string{
	"session_meta":            {"timestamp", "payload", "payload.id", "payload.timestamp", "payload.cwd", "payload.originator", "payload.cli_version"},
	"turn_context":            {"payload.cwd", "payload.approval_policy", "payload.sandbox_policy", "payload.model"},
	"compacted":               {"payload.message"},
	"message":                 {"payload.type", "payload.role", "payload.content"},
	"reasoning":               {"payload.summary"},
	"function_call":           {"payload.name", "payload.arguments", "payload.call_id"},
	"function_call_output":    {"payload.call_id", "payload.output"},
	"custom_tool_call":        {"payload.call_id", "payload.name", "payload.input"},
	"custom_tool_call_output": {"payload.call_id", "payload.output"},
	"local_shell_call":        {"payload.status", "payload.action"},
	"user_message":            {"payload.message"},
	"agent_reasoning":         {"payload.text"},
	"token_count":             {"payload.info", "payload.info.total_token_usage", "payload.info.last_token_usage.output_tokens", "payload.info.total_token_usage.cached_input_tokens"},
	"turn_aborted":            {"payload.reason"},
	"thread_rolled_back":      {"payload.num_turns"},
}

func TestRequiredFieldMissing(t *testing.T) {
	for typ, fields := range required {
		for _, field := range fields {
			t.Run(typ+"/"+field, func(t *testing.T) {
				ev := judgeOne(formattest.Mutate(t, valid[typ], field, formattest.Del))
				assert.Equal(t, integrity.SchemaInvalid, ev.Outcome)
				assert.Equal(t, []string{field + ": required field missing"}, formattest.Violations(&ev))
				assert.False(t, ev.Usage.Has)
			})
		}
	}
	ev := judgeOne(`{"id":"` + otherID + `","instructions":null}`)
	assert.Equal(t, []string{"timestamp: required field missing"}, formattest.Violations(&ev), "the legacy header")
	ev = judgeOne(`{"type":"function_call","name":"shell","arguments":"{}"}`)
	assert.Equal(t, []string{"call_id: required field missing"}, formattest.Violations(&ev), "a legacy item")
}

func TestWrongTypes(t *testing.T) {
	for _, c := range []struct {
		typ, field string
		value      any
		want       string
	}{
		{"session_meta", "timestamp", "yesterday", "must be an RFC 3339 date-time"},
		{"session_meta", "payload", "x", "must be an object"},
		{"session_meta", "payload.id", "", "must not be empty"},
		{"session_meta", "payload.instructions", 3, "must be a string or null"},
		{"session_meta", "payload.git", "main", "must be an object or null"},
		{"turn_context", "payload.model", "", "must not be empty"},
		{"turn_context", "payload.sandbox_policy", "read-only", "must be an object"},
		{"turn_context", "payload.effort", 1, "must be a string or null"},
		{"message", "payload.content", "hi", "must be an array"},
		{"message", "payload.type", 5, "must be a string"},
		{"function_call", "payload.call_id", "", "must not be empty"},
		{"function_call", "payload.arguments", map[string]any{}, "must be a string"},
		{"function_call_output", "payload.output", 1, "must be a string or an array"},
		{"local_shell_call", "payload.call_id", 1, "must be a string or null"},
		{"token_count", "payload.info", "x", "must be an object or null"},
		{"token_count", "payload.info.total_token_usage.input_tokens", -1, "must be >= 0"},
		{"token_count", "payload.info.last_token_usage.output_tokens", "9", "must be an integer"},
		{"token_count", "payload.info.model_context_window", "big", "must be an integer or null"},
		{"token_count", "payload.rate_limits", 1, "must be an object or null"},
		{"turn_aborted", "payload.reason", nil, "must be a string"},
		{"task_complete", "payload.last_agent_message", 1, "must be a string or null"},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, c.value))
		assert.Equal(t, integrity.SchemaInvalid, ev.Outcome, "%s %s=%v", c.typ, c.field, c.value)
		assert.Equal(t, []string{c.field + ": " + c.want}, formattest.Violations(&ev), "%s %s=%v", c.typ, c.field, c.value)
	}
}

func TestOptionalAndNull(t *testing.T) {
	for _, c := range []struct {
		typ, field string
		value      any
	}{
		{"session_meta", "payload.git", formattest.Del}, {"session_meta", "payload.instructions", formattest.Del},
		{"session_meta", "payload.source", formattest.Del}, {"session_meta", "payload.model_provider", nil},
		{"turn_context", "payload.effort", formattest.Del}, {"turn_context", "payload.summary", formattest.Del},
		{"turn_context", "payload.turn_id", formattest.Del}, {"turn_context", "payload.approval_policy", map[string]any{"granular": map[string]any{}}},
		{"token_count", "payload.info", nil}, {"token_count", "payload.rate_limits", formattest.Del},
		{"token_count", "payload.info.model_context_window", nil}, {"task_started", "payload.turn_id", formattest.Del},
		{"turn_aborted", "payload.turn_id", nil}, {"reasoning", "payload.encrypted_content", nil},
		{"function_call_output", "payload.output", []any{map[string]any{"type": "input_text", "text": "ok"}}},
		{"local_shell_call", "payload.call_id", nil}, {"web_search_call", "payload.status", formattest.Del},
		{"compacted", "payload.replacement_history", formattest.Del},
	} {
		ev := judgeOne(formattest.Mutate(t, valid[c.typ], c.field, c.value))
		assert.Equal(t, integrity.Valid, ev.Outcome, "%s %s=%v: %v", c.typ, c.field, c.value, formattest.Violations(&ev))
	}
}

func TestCorruptAndUnknown(t *testing.T) {
	for l, reason := range map[string]string{
		`not json`: "not JSON", `[1]`: "not a JSON object", `{"payload":{}}`: `no string "type"`,
		`{"type":3,"payload":{}}`: `no string "type"`, "": "blank line",
	} {
		ev := judgeOne(l)
		assert.Equal(t, integrity.Corrupt, ev.Outcome, l)
		assert.Equal(t, reason, ev.CorruptReason, l)
	}
	ev := judgeOne(env("token_usage_record", `{"response_id":"r"}`))
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.Equal(t, format.UnknownType, ev.Flags)
	assert.Equal(t, "token_usage_record", string(ev.TypeName))
	assert.True(t, ev.HasTime)

	ev = judgeOne(event(`{"type":"thread_settings_applied","service_tier":"fast"}`))
	assert.Equal(t, integrity.Valid, ev.Outcome, "a new payload type is no fault")
	assert.Zero(t, ev.Flags)
	assert.Equal(t, "", ev.EventType)
	assert.Equal(t, []string{"payload_type_unknown(thread_settings_applied)"}, formattest.Notes(&ev))

	ev = judgeOne(item(`{"type":"compaction_summary","encrypted_content":"x"}`))
	assert.Equal(t, "compaction", ev.EventType, "an alias")
	ev = judgeOne(event(`{"type":"turn_complete","turn_id":"t"}`))
	assert.Equal(t, "task_complete", ev.EventType, "an alias")
	ev = judgeOne(event(`{"type":"message","role":"user","content":[]}`))
	assert.Equal(t, "", ev.EventType, "an item's type is no event's")
}

func TestDuplicateKey(t *testing.T) {
	ev := judgeOne(`{"timestamp":"` + stamp + `","type":"response_item","type":"event_msg","payload":{"type":"reasoning","summary":[]}}`)
	assert.Equal(t, integrity.SchemaInvalid, ev.Outcome)
	assert.Equal(t, format.DuplicateKey, ev.Flags)
	assert.Equal(t, "reasoning", ev.EventType)
}

func TestStatelessJudge(t *testing.T) {
	ev := judgeStateless(meta(otherID))
	assert.Equal(t, otherID, string(ev.SessionID))
	assert.Zero(t, ev.NoteCount)
	ev = judgeStateless(valid["token_count"])
	assert.False(t, ev.Usage.Has)
	assert.Equal(t, []string{"usage_unverified"}, formattest.Notes(&ev))
	assert.Equal(t, "", ev.State)
	ev = judgeStateless(`{"type":"message","role":"user","content":[]}`)
	assert.Equal(t, "message", ev.EventType, "a legacy item")
	ev = judgeStateless(`{"record_type":"state"}`)
	assert.Equal(t, "state", ev.EventType)
}
