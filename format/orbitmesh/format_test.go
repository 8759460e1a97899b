package orbitmesh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

var _ format.Format = (*Format)(nil)

func TestConfig(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	_, err := NewWith(Config{})
	assert.ErrorContains(t, err, "Now")
	f := New()
	assert.Equal(t, Name, f.Name())
	assert.Equal(t, format.ScopeAllLines, f.Scope())
	assert.Equal(t, format.SeqRule{Used: true, Gaps: true}, f.Seq())
	assert.Equal(t, []string{NoteStatusDisagrees, NoteDuplicateInterrupt}, f.Annotations())
	assert.Len(t, f.EventTypes(), 24)
	assert.Contains(t, f.EventTypes(), "metric")
	assert.Contains(t, f.EventTypes(), "status.derived")
	assert.NotContains(t, f.EventTypes(), "")
	assert.NotEmpty(t, f.Layouts())
}

func TestClaim(t *testing.T) {
	f := New()
	p, ok := f.Claim("/var/lib/orbitmesh/sessions/sess_123.messages.jsonl")
	require.True(t, ok)
	assert.Equal(t, format.Path{Format: Name, SessionID: "sess_123",
		Group:      "/var/lib/orbitmesh/sessions/sess_123.messages.jsonl",
		Companions: []string{"/var/lib/orbitmesh/sessions/sess_123.json", "/var/lib/orbitmesh/sessions/sess_123.tokens.json"}}, p,
		"the snapshot and token index go with the log")

	p, ok = f.Claim("/data/other/sess.1.messages.jsonl")
	require.True(t, ok, "any .messages.jsonl is claimed")
	assert.Equal(t, "sess.1", p.SessionID)
	assert.Equal(t, "parent directory is not sessions", p.Problem)

	p, ok = f.Claim("/data/sessions/.messages.jsonl")
	require.True(t, ok)
	assert.NotEmpty(t, p.Problem)

	for _, path := range []string{
		"/data/sessions/sess_123.json", "/data/sessions/sess_123.tokens.json",
		"/data/sessions/sess_123.jsonl", "/data/sessions/sess_123.messages.jsonl.1", "",
	} {
		_, ok := f.Claim(path)
		assert.False(t, ok, path)
	}
}

func TestCompanions(t *testing.T) {
	assert.Equal(t, []string{"/d/sessions/s1.json", "/d/sessions/s1.tokens.json"},
		Companions("/d/sessions/s1.messages.jsonl"))
	assert.Nil(t, Companions("/d/sessions/s1.json"))
	assert.Nil(t, Companions("/d/sessions/.messages.jsonl"))
}

func TestSniff(t *testing.T) {
	f := New()
	for _, l := range []string{
		rec(0, "message.user", "message_id", "m"), rec(3, "run.started", "run_id", "r"),
		rec(1, "status.derived", "status", "idle"), rec(2, "token.minted", "token_id", "t"),
		`{"seq":1,"ts":"x","kind":"run.whatever"}`,
	} {
		assert.True(t, f.Sniff([]byte(l)), l)
	}
	for _, l := range []string{
		`{"seq":1.5,"ts":"2026-02-21T10:00:00Z","kind":"run.started"}`,
		`{"ts":"2026-02-21T10:00:00Z","kind":"run.started"}`,
		`{"seq":1,"ts":1,"kind":"run.started"}`,
		`{"seq":1,"ts":"2026-02-21T10:00:00Z","kind":"SESSION_START"}`,
		`{"seq":1,"ts":"2026-02-21T10:00:00Z","kind":"run."}`,
		`{"type":"SESSION_START","timestamp":"2026-02-21T10:00:00Z","seq":0}`,
		`not json`, ``, `[1]`,
	} {
		assert.False(t, f.Sniff([]byte(l)), l)
	}
}

func TestSchema(t *testing.T) {
	const ts = `"ts":"2026-02-21T10:00:00Z"`
	cases := []struct {
		name, line string
		outcome    integrity.Outcome
		corrupt    string
		eventType  string
		role       format.Role
		violations []string
		flags      format.Flags
	}{
		{"user", rec(1, "message.user", "message_id", "m1", "content", "hi"), integrity.Valid, "", "message.user", format.RoleMessage, nil, 0},
		{"assistant", rec(1, "message.assistant", "message_id", "m1"), integrity.Valid, "", "message.assistant", format.RoleMessage, nil, 0},
		{"tool", rec(1, "message.tool", "message_id", "m1"), integrity.Valid, "", "message.tool", format.RoleMessage, nil, 0},
		{"system", rec(1, "message.system", "message_id", "m1"), integrity.Valid, "", "message.system", format.RoleMessage, nil, 0},
		{"message other", rec(1, "message.note", "message_id", "m1"), integrity.Valid, "", "", format.RoleMessage, nil, 0},
		{"message no id", rec(1, "message.user"), integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"message_id: required field missing"}, 0},
		{"message other no id", rec(1, "message.note"), integrity.SchemaInvalid, "", "", format.RoleMessage, []string{"message_id: required field missing"}, 0},
		{"message id empty", rec(1, "message.user", "message_id", ""), integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"message_id: must not be empty"}, 0},
		{"started", rec(1, "run.started", "run_id", "r"), integrity.Valid, "", "run.started", format.RoleStatus, nil, 0},
		{"started no run", rec(1, "run.started"), integrity.SchemaInvalid, "", "run.started", format.RoleStatus, []string{"run_id: required field missing"}, 0},
		{"run id number", `{"seq":1,` + ts + `,"kind":"run.resumed","run_id":5}`, integrity.SchemaInvalid, "", "run.resumed", format.RoleStatus, []string{"run_id: must be a string"}, 0},
		{"waiting", rec(1, "run.waiting", "run_id", "r", "wait_kind", "tool_result", "resume_token_id", "rt"), integrity.Valid, "", "run.waiting", format.RoleStatus, nil, 0},
		{"waiting bare", rec(1, "run.waiting", "run_id", "r"), integrity.SchemaInvalid, "", "run.waiting", format.RoleStatus, []string{"wait_kind: required field missing", "resume_token_id: required field missing"}, 0},
		{"resumed", rec(1, "run.resumed", "run_id", "r"), integrity.Valid, "", "run.resumed", format.RoleStatus, nil, 0},
		{"completed", rec(1, "run.completed", "run_id", "r"), integrity.Valid, "", "run.completed", format.RoleSessionEnd, nil, 0},
		{"failed", rec(1, "run.failed", "run_id", "r"), integrity.Valid, "", "run.failed", format.RoleSessionEnd, nil, 0},
		{"cancelled", rec(1, "run.cancelled", "run_id", "r"), integrity.Valid, "", "run.cancelled", format.RoleSessionEnd, nil, 0},
		{"interrupted", rec(1, "run.interrupted", "run_id", "r", "reason", "process_exit"), integrity.Valid, "", "run.interrupted", format.RoleSessionEnd, nil, 0},
		{"interrupted no reason", rec(1, "run.interrupted", "run_id", "r"), integrity.SchemaInvalid, "", "run.interrupted", format.RoleSessionEnd, []string{"reason: required field missing"}, 0},
		{"status", rec(1, "status.derived", "status", "interrupted_waiting"), integrity.Valid, "", "status.derived", format.RoleStatus, nil, 0},
		{"status bad", rec(1, "status.derived", "status", "paused"), integrity.SchemaInvalid, "", "status.derived", format.RoleStatus, []string{"status: " + reasonStatus}, 0},
		{"status missing", rec(1, "status.derived"), integrity.SchemaInvalid, "", "status.derived", format.RoleStatus, []string{"status: required field missing"}, 0},
		{"minted", rec(1, "token.minted", "token_id", "rt"), integrity.Valid, "", "token.minted", format.RoleOther, nil, 0},
		{"consumed by resume id", rec(1, "token.consumed", "resume_token_id", "rt"), integrity.Valid, "", "token.consumed", format.RoleOther, nil, 0},
		{"revoked", rec(1, "token.revoked", "token_id", "rt", "run_id", "r"), integrity.Valid, "", "token.revoked", format.RoleOther, nil, 0},
		{"expired no id", rec(1, "token.expired"), integrity.SchemaInvalid, "", "token.expired", format.RoleOther, []string{"token_id: " + reasonTokenID}, 0},
		{"token id null", `{"seq":1,` + ts + `,"kind":"token.expired","token_id":null}`, integrity.SchemaInvalid, "", "token.expired", format.RoleOther, []string{"token_id: must be a string"}, 0},
		{"unknown kind", rec(1, "run.paused"), integrity.Valid, "", "", format.RoleOther, nil, format.UnknownType},
		{"seq missing", `{` + ts + `,"kind":"run.started","run_id":"r"}`, integrity.SchemaInvalid, "", "run.started", format.RoleStatus, []string{"seq: required field missing"}, 0},
		{"seq float", `{"seq":1.5,` + ts + `,"kind":"message.user","message_id":"m"}`, integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"seq: must be an integer"}, 0},
		{"seq string", `{"seq":"1",` + ts + `,"kind":"message.user","message_id":"m"}`, integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"seq: must be an integer"}, 0},
		{"seq negative", `{"seq":-1,` + ts + `,"kind":"message.user","message_id":"m"}`, integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"seq: must be >= 0"}, 0},
		{"seq 3.0", `{"seq":3.0,` + ts + `,"kind":"message.user","message_id":"m"}`, integrity.Valid, "", "message.user", format.RoleMessage, nil, 0},
		{"ts missing", `{"seq":1,"kind":"message.user","message_id":"m"}`, integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"ts: required field missing"}, 0},
		{"ts number", `{"seq":1,"ts":5,"kind":"message.user","message_id":"m"}`, integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"ts: must be a string"}, 0},
		{"ts bad", `{"seq":1,"ts":"yesterday","kind":"message.user","message_id":"m"}`, integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"ts: must be an RFC 3339 date-time"}, 0},
		{"duplicate seq", `{"seq":1,"seq":2,` + ts + `,"kind":"message.user","message_id":"m"}`, integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"seq: duplicate key"}, format.DuplicateKey},
		{"duplicate kind", `{"seq":1,` + ts + `,"kind":"message.user","kind":"run.started","message_id":"m"}`, integrity.SchemaInvalid, "", "message.user", format.RoleMessage, []string{"kind: duplicate key"}, format.DuplicateKey},
		{"no kind", `{"seq":1,` + ts + `}`, integrity.Corrupt, reasonNoKind, "", format.RoleOther, nil, 0},
		{"kind number", `{"seq":1,` + ts + `,"kind":1}`, integrity.Corrupt, reasonNoKind, "", format.RoleOther, nil, 0},
		{"not json", `{"seq":1,` + ts + `,"kind":"run.st`, integrity.Corrupt, "not JSON", "", format.RoleOther, nil, 0},
		{"array", `[1,2]`, integrity.Corrupt, "not a JSON object", "", format.RoleOther, nil, 0},
		{"blank", ``, integrity.Corrupt, "blank line", "", format.RoleOther, nil, 0},
		{"bad utf8", "{\"seq\":1,\"kind\":\"message.user\xff\"}", integrity.Corrupt, "invalid UTF-8", "", format.RoleOther, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, evs := run(t, nil, c.line)
			ev := &evs[0]
			assert.Equal(t, c.outcome, ev.Outcome, formattest.Violations(ev))
			assert.Equal(t, c.corrupt, ev.CorruptReason)
			assert.Equal(t, c.eventType, ev.EventType)
			assert.Equal(t, c.role, ev.Role)
			assert.Equal(t, c.violations, formattest.Violations(ev))
			assert.Equal(t, c.flags, ev.Flags)
		})
	}
}

func TestJudgeKeeps(t *testing.T) {
	_, evs := run(t, nil,
		rec(7, "run.started", "run_id", `run_\u0039f5`),
		rec(8, "message.note", "message_id", "m"),
		rec(9, "run.paused"))
	assert.Equal(t, "run_\\u0039f5", string(evs[0].RunID), "rec quotes the backslash")
	assert.Equal(t, int64(7), evs[0].Seq)
	assert.True(t, evs[0].HasSeq)
	assert.Equal(t, base.Add(7e9), evs[0].Time)
	assert.Equal(t, "message.note", string(evs[1].TypeName))
	assert.Equal(t, "run.paused", string(evs[2].TypeName))

	var ev format.Event
	var a integrity.Arena
	New().NewJudge().Judge([]byte(`{"seq":1,"ts":"2026-02-21T10:00:00Z","kind":"run.started","run_id":"r\u0031"}`), nil, &a, &ev)
	assert.Equal(t, "r1", string(ev.RunID), "escapes decoded")
	assert.Equal(t, "", ev.State, "no state, no status")
}
