package cortex

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/integrity"
)

const (
	jobID   = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"
	sessID  = "01956a3b-8000-7000-8000-000000000001"
	agentID = "01956a3b-9000-7000-8000-000000000002"
	invID   = "01956a3b-a000-7000-8000-000000000003"
	hash64  = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)

func base(typ string, seq int) string {
	return `"type":"` + typ + `","timestamp":"2026-02-23T14:30:22.123Z","job_id":"` + jobID +
		`","session_id":"` + sessID + `","seq":` + itoa(seq)
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// evLine is a line of the event type typ with the base fields and extra.
func evLine(typ string, seq int, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return "{" + base(typ, seq) + extra + "}"
}

func validate(t *testing.T, l string, bestEffort bool) Event {
	t.Helper()
	v, err := NewValidator(DefaultConfig())
	require.NoError(t, err)
	var ev Event
	v.Validate([]byte(l), bestEffort, integrity.NewArena(64), &ev)
	return ev
}

func TestValidateValidEvents(t *testing.T) {
	cases := map[string]string{
		"session start":          evLine("SESSION_START", 0, `"buffer_schema_version":1,"agent_id":"`+agentID+`","pod_name":"agent-worker-7b9f4-xk2n3","worker_job_id":null`),
		"checkpoint loaded null": evLine("CHECKPOINT_LOADED", 1, `"checkpoint_id":null,"step_index":null`),
		"llm request":            evLine("LLM_REQUEST", 2, `"model":"claude-sonnet-4-5","step_index":0,"prompt_hash":"`+hash64+`","message_count":3`),
		"llm response":           evLine("LLM_RESPONSE", 3, `"step_index":0,"prompt_tokens":1200,"completion_tokens":340,"finish_reason":"tool_use","tool_use_count":1,"duration_ms":2100`),
		"tool start":             evLine("TOOL_START", 4, `"invocation_id":"`+invID+`","tool_name":"kubectl","input_hash":"`+hash64+`","input_summary":"get pods","is_side_effect":false`),
		"tool result":            evLine("TOOL_RESULT", 5, `"invocation_id":"`+invID+`","tool_name":"kubectl","success":true,"duration_ms":12,"result_summary":"ok","error_code":null`),
		"checkpoint written":     evLine("CHECKPOINT_WRITTEN", 6, `"checkpoint_id":"`+invID+`","step_index":0,"checkpoint_size_bytes":51200`),
		"approval":               evLine("APPROVAL_REQUESTED", 7, `"action":"deploy"`),
		"state transition":       evLine("STATE_TRANSITION", 8, `"from":"RUNNING","to":"WAITING"`),
		"error":                  evLine("ERROR", 9, `"message":"boom"`),
		"session end":            evLine("SESSION_END", 10, `"reason":"completed","total_events":11,"final_step_index":0`),
		"unknown fields pass":    evLine("SESSION_END", 10, `"reason":"failed","total_events":11,"future":{"a":[1,2]}`),
		"integer as 3.0":         evLine("SESSION_END", 10, `"reason":"cancelled","total_events":11.0`),
		"crlf ending":            evLine("ERROR", 9, "") + "\r",
	}
	for name, l := range cases {
		t.Run(name, func(t *testing.T) {
			ev := validate(t, l, false)
			assert.Equal(t, integrity.Valid, ev.Outcome, "violations: %s corrupt: %s", ev.ViolationText(), ev.CorruptReason)
			assert.Empty(t, ev.Violations)
			assert.True(t, ev.HasTimestamp)
			assert.Equal(t, jobID, string(ev.JobID))
			assert.Equal(t, sessID, string(ev.SessionID))
			assert.True(t, ev.HasSeq)
			assert.Zero(t, ev.Flags&UnknownType)
		})
	}
}

func TestValidateExtracts(t *testing.T) {
	ev := validate(t, evLine("SESSION_START", 0, `"buffer_schema_version":2,"agent_id":"`+agentID+`","pod_name":"p1"`), false)
	assert.Equal(t, KindSessionStart, ev.Kind)
	assert.Equal(t, agentID, string(ev.AgentID))
	assert.Equal(t, int64(2), ev.SchemaVersion)
	assert.Equal(t, "p1", string(ev.PodName))
	assert.Equal(t, "2026-02-23T14:30:22.123Z", ev.Timestamp.Format("2006-01-02T15:04:05.000Z07:00"))

	ev = validate(t, evLine("LLM_RESPONSE", 3, `"step_index":4,"prompt_tokens":1200,"completion_tokens":340,"finish_reason":"end_turn"`), false)
	assert.Equal(t, int64(1200), ev.PromptTokens)
	assert.Equal(t, int64(340), ev.CompletionTokens)
	assert.Equal(t, int64(4), ev.StepIndex)
	assert.True(t, ev.HasTokens)

	ev = validate(t, evLine("LLM_REQUEST", 2, `"model":"gpt-\u00e9","step_index":4`), false)
	assert.Equal(t, "gpt-é", string(ev.Model), "escapes are decoded")
}

func TestValidateSchemaViolations(t *testing.T) {
	long := strings.Repeat("x", 1025)
	cases := []struct {
		name, line, want string
	}{
		{"missing seq", `{"type":"SESSION_END","timestamp":"2026-02-23T14:30:22Z","job_id":"` + jobID + `","session_id":"` + sessID + `","reason":"completed","total_events":1}`, "seq: required field missing"},
		{"missing session_id base", `{"type":"ERROR","timestamp":"2026-02-23T14:30:22Z","job_id":"` + jobID + `"}`, "session_id: required field missing"},
		{"finish reason enum", evLine("LLM_RESPONSE", 3, `"step_index":0,"prompt_tokens":1,"completion_tokens":1,"finish_reason":"weird"`), "finish_reason: must be one of end_turn, tool_use, max_tokens, stop_sequence"},
		{"end reason enum", evLine("SESSION_END", 3, `"reason":"crashed","total_events":1`), "reason: must be one of completed, failed, approval_pause, cancelled"},
		{"bad uuid", evLine("TOOL_START", 4, `"invocation_id":"not-a-uuid","tool_name":"t","input_hash":"`+hash64+`"`), "invocation_id: must be a uuid"},
		{"uuid without hyphens", evLine("TOOL_START", 4, `"invocation_id":"01956a3ba0007000800000000000000a","tool_name":"t","input_hash":"`+hash64+`"`), "invocation_id: must be a uuid"},
		{"bad hash", evLine("TOOL_START", 4, `"invocation_id":"`+invID+`","tool_name":"t","input_hash":"ABC"`), "input_hash: must match ^[a-f0-9]{64}$"},
		{"uppercase hash", evLine("TOOL_START", 4, `"invocation_id":"`+invID+`","tool_name":"t","input_hash":"`+strings.ToUpper(hash64)+`"`), "input_hash: must match ^[a-f0-9]{64}$"},
		{"input summary too long", evLine("TOOL_START", 4, `"invocation_id":"`+invID+`","tool_name":"t","input_hash":"`+hash64+`","input_summary":"`+long+`"`), "input_summary: longer than 1024 characters"},
		{"result summary too long", evLine("TOOL_RESULT", 5, `"invocation_id":"`+invID+`","tool_name":"t","success":true,"duration_ms":1,"result_summary":"`+strings.Repeat("y", 4097)+`"`), "result_summary: longer than 4096 characters"},
		{"empty tool name", evLine("TOOL_RESULT", 5, `"invocation_id":"`+invID+`","tool_name":"","success":true,"duration_ms":1`), "tool_name: must not be empty"},
		{"success not bool", evLine("TOOL_RESULT", 5, `"invocation_id":"`+invID+`","tool_name":"t","success":"yes","duration_ms":1`), "success: must be a boolean"},
		{"number as string", evLine("LLM_RESPONSE", 3, `"step_index":"0","prompt_tokens":1,"completion_tokens":1,"finish_reason":"end_turn"`), "step_index: must be an integer"},
		{"negative tokens", evLine("LLM_RESPONSE", 3, `"step_index":0,"prompt_tokens":-1,"completion_tokens":1,"finish_reason":"end_turn"`), "prompt_tokens: must be >= 0"},
		{"fractional", evLine("LLM_RESPONSE", 3, `"step_index":0.5,"prompt_tokens":1,"completion_tokens":1,"finish_reason":"end_turn"`), "step_index: must be an integer"},
		{"negative seq", evLine("ERROR", -3, ""), "seq: must be >= 0"},
		{"huge seq", `{` + strings.Replace(base("ERROR", 0), `"seq":0`, `"seq":99999999999999999999999`, 1) + `}`, "seq: integer out of range"},
		{"bad timestamp", `{"type":"ERROR","timestamp":"yesterday","job_id":"` + jobID + `","session_id":"` + sessID + `"}`, "timestamp: must be an RFC 3339 date-time"},
		{"schema version 0", evLine("SESSION_START", 0, `"buffer_schema_version":0,"agent_id":"`+agentID+`","pod_name":"p"`), "buffer_schema_version: must be >= 1"},
		{"checkpoint written null id", evLine("CHECKPOINT_WRITTEN", 6, `"checkpoint_id":null,"step_index":0`), "checkpoint_id: must not be null"},
		{"duplicate key", `{` + base("ERROR", 1) + `,"seq":2}`, "seq: duplicate key"},
		{"message count 0", evLine("LLM_REQUEST", 2, `"model":"m","step_index":0,"message_count":0`), "message_count: must be >= 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := validate(t, tc.line, false)
			require.Equal(t, integrity.SchemaInvalid, ev.Outcome, ev.CorruptReason)
			assert.Equal(t, tc.want, ev.ViolationText())
		})
	}
}

func TestValidateDuplicateKeySetsFlag(t *testing.T) {
	ev := validate(t, `{`+base("ERROR", 1)+`,"seq":2}`, false)
	assert.NotZero(t, ev.Flags&DuplicateKey)
	assert.Equal(t, int64(1), ev.Seq, "the first value counts")
}

func TestValidateCorrupt(t *testing.T) {
	cases := []struct {
		name, line, want string
	}{
		{"torn interleaved write", `{"type":"LLM_R{"type":"TOOL_START","seq":4}`, "not JSON"},
		{"truncated", `{"type":"TOOL_RESULT","inv`, "not JSON"},
		{"only spaces", "     ", "blank line"},
		{"empty", "", "blank line"},
		{"nul bytes", "\x00\x00\x00\x00", "not JSON"},
		{"invalid utf8", `{"type":"ERROR","timestamp":"2026-02-23T14:30:22Z","x":"` + "\xff\xfe" + `"}`, "invalid UTF-8"},
		{"bom", "\xef\xbb\xbf" + evLine("ERROR", 1, ""), "not JSON"},
		{"array", `[1,2,3]`, "not a JSON object"},
		{"string", `"hello"`, "not a JSON object"},
		{"NaN is not JSON", `{"type":"ERROR","timestamp":"2026-02-23T14:30:22Z","seq":NaN}`, "not JSON"},
		{"no type", `{"timestamp":"2026-02-23T14:30:22Z"}`, `no string "type"`},
		{"type not string", `{"type":5,"timestamp":"2026-02-23T14:30:22Z"}`, `no string "type"`},
		{"no timestamp", `{"type":"ERROR"}`, `no string "timestamp"`},
		{"deep nesting", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), "not JSON: nested deeper than 10000 levels"},
		{"deep but valid JSON is not corrupt for it", strings.Repeat("[", 1000) + strings.Repeat("]", 1000), "not a JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := validate(t, tc.line, false)
			assert.Equal(t, integrity.Corrupt, ev.Outcome)
			assert.Equal(t, tc.want, ev.CorruptReason)
		})
	}
}

func TestValidateUnknownTypePassesAnnotated(t *testing.T) {
	ev := validate(t, evLine("MEMORY_COMPACTED", 12, `"bytes_freed":100`), false)
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.NotZero(t, ev.Flags&UnknownType)
	assert.Equal(t, "MEMORY_COMPACTED", string(ev.TypeName))
	assert.Equal(t, int64(12), ev.Seq)
}

func TestValidateBestEffort(t *testing.T) {
	// A future version renamed finish_reason's values and dropped
	// session_id: best-effort only checks type, timestamp and job_id.
	l := `{"type":"LLM_RESPONSE","timestamp":"2026-02-23T14:30:22Z","job_id":"` + jobID + `","seq":3,"finish_reason":"refusal","prompt_tokens":"many"}`
	ev := validate(t, l, true)
	assert.Equal(t, integrity.Valid, ev.Outcome, ev.ViolationText())
	assert.NotZero(t, ev.Flags&BestEffort)

	ev = validate(t, `{"type":"X","timestamp":"2026-02-23T14:30:22Z"}`, true)
	assert.Equal(t, integrity.SchemaInvalid, ev.Outcome)
	assert.Equal(t, "job_id: required field missing", ev.ViolationText())
}

func TestKnownVersion(t *testing.T) {
	v, err := NewValidator(Config{KnownSchemaVersions: []int64{1, 2}})
	require.NoError(t, err)
	assert.True(t, v.KnownVersion(2))
	assert.False(t, v.KnownVersion(3))
	_, err = NewValidator(Config{})
	assert.Error(t, err)
	_, err = NewValidator(Config{KnownSchemaVersions: []int64{0}})
	assert.Error(t, err)
}

func TestValidateAllocatesNothing(t *testing.T) {
	v, err := NewValidator(DefaultConfig())
	require.NoError(t, err)
	l := []byte(evLine("LLM_RESPONSE", 3, `"step_index":0,"prompt_tokens":1200,"completion_tokens":340,"finish_reason":"tool_use"`))
	a := integrity.NewArena(1 << 20)
	var ev Event
	v.Validate(l, false, a, &ev) // warm up the parser's caches
	allocs := testing.AllocsPerRun(1000, func() {
		a.Reset(1 << 20)
		v.Validate(l, false, a, &ev)
	})
	assert.Zero(t, allocs)
}

// TestCaptureAgreesWithValidator: on the JSON-level verdict, Capture and
// the validator are one scanner.
func TestCaptureAgreesWithValidator(t *testing.T) {
	v, err := NewValidator(DefaultConfig())
	require.NoError(t, err)
	var a integrity.Arena
	var ev Event
	var c integrity.Capture
	paths := integrity.MustPaths("type", "seq", "output.usage.input_tokens")
	for _, line := range []string{`{}`, `{"type":"X","timestamp":"t"}`, `[]`, `{"a":1}x`, "{\"a\":\"\x01\"}", `{"a":{"b":[1,{"c":null}]}}`, ` {"a" : 1 } `} {
		v.Validate([]byte(line), false, &a, &ev)
		got := c.Scan([]byte(line), paths)
		if ev.Outcome == integrity.Corrupt && !strings.HasPrefix(ev.CorruptReason, "no string") {
			assert.Equal(t, ev.CorruptReason, got, line)
		} else {
			assert.Equal(t, "", got, line)
		}
	}
}

func TestFieldKeys(t *testing.T) {
	for f := field(0); f < fieldCount; f++ {
		assert.Equal(t, f, field(bufferKeys.Lookup([]byte(fields[f].name))), fields[f].name)
	}
	for _, k := range []string{"", "t", "typ", "types", "Type", "type ", "max_tokens", "action", "checkpoint_size_byte",
		"checkpoint_size_bytes_", strings.Repeat("x", 100), "tzpe", "seqq"} {
		assert.Equal(t, fNone, field(bufferKeys.Lookup([]byte(k))), k)
	}
}

func TestKindNames(t *testing.T) {
	assert.Equal(t, "LLM_RESPONSE", KindLLMResponse.String())
	assert.Equal(t, KindToolResult, KindOf([]byte("TOOL_RESULT")))
	assert.Equal(t, KindUnknown, KindOf([]byte("tool_result")))
	assert.Equal(t, "", Kind(200).String())
}
