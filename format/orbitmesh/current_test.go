package orbitmesh

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

// cur builds a record as the runtime's AppendMessageLog writes it, at
// base + seq seconds; raw is a JSON value or "" (omitted).
func cur(seq int, kind, projection, raw string) string {
	l := fmt.Sprintf(`{"seq":%d,"timestamp":%q,"projection":%q,"kind":%q,"contents":"c"`,
		seq, base.Add(time.Duration(seq)*time.Second).Format(time.RFC3339Nano), projection, kind)
	if raw != "" {
		l += `,"raw":` + raw
	}
	return l + "}"
}

func TestCurrentSchema(t *testing.T) {
	const tsv = `"timestamp":"2026-02-21T10:00:01.5Z"`
	cases := []struct {
		name, line string
		outcome    integrity.Outcome
		eventType  string
		role       format.Role
		violations []string
		flags      format.Flags
	}{
		{"user", cur(1, "user", "append", ""), integrity.Valid, "user", format.RoleMessage, nil, 0},
		{"output delta", cur(2, "output", "append_output_delta", `{"type":"content_block_delta"}`), integrity.Valid, "output", format.RoleMessage, nil, 0},
		{"thought", cur(1, "thought", "append_raw", `{"content":{"type":"text"}}`), integrity.Valid, "thought", format.RoleMessage, nil, 0},
		{"tool_use", cur(1, "tool_use", "append_raw", `{"toolCallId":"c1"}`), integrity.Valid, "tool_use", format.RoleToolCall, nil, 0},
		{"error", cur(1, "error", "append", ""), integrity.Valid, "runtime_error", format.RoleError, nil, 0},
		{"system raw string", cur(1, "system", "append_raw", `"text"`), integrity.Valid, "system", format.RoleMessage, nil, 0},
		{"plan raw array", cur(1, "plan", "append_raw", `[1,2]`), integrity.Valid, "plan", format.RoleOther, nil, 0},
		{"metric raw null", cur(1, "metric", "append_raw", `null`), integrity.Valid, "metric", format.RoleOther, nil, 0},
		{"metric usage", cur(1, "metric", "append_raw", `{"type":"message_delta","usage":{"output_tokens":3}}`), integrity.Valid, "metric", format.RoleLLMResponse, nil, 0},
		{"empty contents", `{"seq":1,` + tsv + `,"projection":"append","kind":"user","contents":""}`, integrity.Valid, "user", format.RoleMessage, nil, 0},
		{"seq 0", cur(0, "user", "append", ""), integrity.SchemaInvalid, "user", format.RoleMessage, []string{"seq: " + reasonMin1}, 0},
		{"seq missing", `{` + tsv + `,"projection":"append","kind":"user","contents":"c"}`, integrity.SchemaInvalid, "user", format.RoleMessage, []string{"seq: required field missing"}, 0},
		{"timestamp missing", `{"seq":1,"projection":"append","kind":"user","contents":"c"}`, integrity.SchemaInvalid, "user", format.RoleMessage, []string{"timestamp: required field missing"}, 0},
		{"timestamp bad", `{"seq":1,"timestamp":"now","projection":"append","kind":"user","contents":"c"}`, integrity.SchemaInvalid, "user", format.RoleMessage, []string{"timestamp: " + reasonDateTime}, 0},
		{"projection bad", cur(1, "user", "prepend", ""), integrity.SchemaInvalid, "user", format.RoleMessage, []string{"projection: " + reasonProjection}, 0},
		{"projection missing", `{"seq":1,` + tsv + `,"kind":"user","contents":"c"}`, integrity.SchemaInvalid, "user", format.RoleMessage, []string{"projection: required field missing"}, 0},
		{"contents number", `{"seq":1,` + tsv + `,"projection":"append","kind":"user","contents":1}`, integrity.SchemaInvalid, "user", format.RoleMessage, []string{"contents: must be a string"}, 0},
		{"contents missing", `{"seq":1,` + tsv + `,"projection":"append","kind":"user"}`, integrity.SchemaInvalid, "user", format.RoleMessage, []string{"contents: required field missing"}, 0},
		{"duplicate timestamp", `{"seq":1,` + tsv + `,` + tsv + `,"projection":"append","kind":"user","contents":"c"}`, integrity.SchemaInvalid, "user", format.RoleMessage, []string{"timestamp: duplicate key"}, format.DuplicateKey},
		{"unknown kind", cur(1, "diff", "append", ""), integrity.Valid, "", format.RoleOther, nil, format.UnknownType},
		{"unknown kind bad seq", cur(0, "diff", "append", ""), integrity.SchemaInvalid, "", format.RoleOther, []string{"seq: " + reasonMin1}, format.UnknownType},
		{"a current kind with ts", `{"seq":1,"ts":"2026-02-21T10:00:00Z","projection":"append","kind":"user","contents":"c"}`, integrity.SchemaInvalid, "user", format.RoleMessage, []string{"timestamp: required field missing"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, evs := run(t, nil, c.line)
			ev := &evs[0]
			assert.Equal(t, c.outcome, ev.Outcome, formattest.Violations(ev))
			assert.Equal(t, c.eventType, ev.EventType)
			assert.Equal(t, c.role, ev.Role)
			assert.Equal(t, c.violations, formattest.Violations(ev))
			assert.Equal(t, c.flags, ev.Flags)
		})
	}
	_, evs := run(t, nil, `{"seq":4,`+tsv+`,"projection":"append","kind":"user","contents":"c"}`)
	assert.Equal(t, time.Date(2026, 2, 21, 10, 0, 1, 5e8, time.UTC), evs[0].Time, "the entry's own time")
	assert.Equal(t, int64(4), evs[0].Seq)
}

func TestSniffCurrent(t *testing.T) {
	f := New()
	for _, k := range []string{"user", "output", "thought", "tool_use", "error", "system", "plan", "metric"} {
		assert.True(t, f.Sniff([]byte(cur(1, k, "append", ""))), k)
	}
	for _, l := range []string{
		cur(1, "diff", "append", ""),  // a kind the runtime does not write
		cur(1, "user", "replace", ""), // a projection it does not write
		`{"seq":1,"timestamp":"2026-02-21T10:00:00Z","kind":"user"}`,
		`{"seq":"1","timestamp":"2026-02-21T10:00:00Z","projection":"append","kind":"user"}`,
		`{"type":"user","timestamp":"2026-02-21T10:00:00Z","uuid":"u"}`,
	} {
		assert.False(t, f.Sniff([]byte(l)), l)
	}
}

// Claude stream-json events as a Claude provider's metric records carry
// them.
const (
	startA = `{"type":"message_start","message":{"model":"claude-sonnet-4-5","id":"msg_a","usage":{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":100},"output_tokens":1}}}`
	deltaA = `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":50}}`
	startB = `{"type":"message_start","message":{"model":"claude-opus-4-1","id":"msg_b","usage":{"input_tokens":5,"output_tokens":2}}}`
	deltaB = `{"type":"message_delta","usage":{"output_tokens":9}}`
	snapA  = `{"type":"assistant","message":{"model":"claude-sonnet-4-5","id":"msg_a","usage":{"input_tokens":3,"output_tokens":1}}}`
	initS  = `{"type":"system","subtype":"init","model":"claude-haiku-4-5"}`
)

func usageOf(ev *format.Event) format.Usage { return ev.Usage }

func TestUsageCountsEachResponseOnce(t *testing.T) {
	_, evs := run(t, nil,
		cur(1, "system", "append_raw", initS),
		cur(2, "metric", "append_raw", startA),
		cur(3, "system", "append_raw", snapA),
		cur(4, "metric", "append_raw", deltaA),
		cur(5, "metric", "append_raw", startA), // the same response again: nothing new
		cur(6, "metric", "append_raw", startB),
		cur(7, "metric", "append_raw", deltaB),
		cur(8, "metric", "append_raw", `{"usage":{"inputTokens":10,"outputTokens":2}}`))
	assert.Equal(t, "claude-haiku-4-5", string(evs[0].Model), "a system init names the model")
	assert.False(t, evs[0].Usage.Has)
	assert.Equal(t, format.Usage{Input: 1103, Output: 1, CacheRead: 1000, CacheWrite: 100, CacheWrite1h: 100, Has: true}, usageOf(&evs[1]))
	assert.Equal(t, "claude-sonnet-4-5", string(evs[1].Model))
	assert.False(t, evs[2].Usage.Has, "an assistant snapshot's usage is not counted")
	assert.Equal(t, format.Usage{Output: 49, Has: true}, usageOf(&evs[3]), "the final usage's growth")
	assert.Equal(t, "claude-sonnet-4-5", string(evs[3].Model), "a message_delta has its response's model")
	assert.False(t, evs[4].Usage.Has)
	assert.Equal(t, format.Usage{Input: 5, Output: 2, Has: true}, usageOf(&evs[5]))
	assert.Equal(t, format.Usage{Output: 7, Has: true}, usageOf(&evs[6]))
	assert.Equal(t, "claude-opus-4-1", string(evs[6].Model))
	assert.False(t, evs[7].Usage.Has, "a usage in no Claude event is not counted")
	assert.Equal(t, format.RoleOther, evs[7].Role)
}

func TestUsageDeltaWithoutItsStart(t *testing.T) {
	_, evs := run(t, nil, cur(1, "system", "append_raw", initS), cur(2, "metric", "append_raw", deltaB))
	assert.Equal(t, format.Usage{Output: 9, Has: true}, usageOf(&evs[1]), "the whole usage")
	assert.Equal(t, "claude-haiku-4-5", string(evs[1].Model), "the last model the provider named")
}

func TestUsageWithdraw(t *testing.T) {
	f := testFormat(t, clock)
	st := f.NewState(format.Path{}).(*State)
	j := f.NewJudge()
	var a integrity.Arena
	var ev format.Event
	j.Judge([]byte(cur(1, "metric", "append_raw", startA)), st, &a, &ev)
	j.Judge([]byte(cur(2, "metric", "append_raw", deltaA)), st, &a, &ev)
	st.Withdraw() // the pipeline does not ship the delta
	j.Judge([]byte(cur(3, "metric", "append_raw", deltaA)), st, &a, &ev)
	assert.Equal(t, format.Usage{Output: 49, Has: true}, ev.Usage, "the next event counts what was withdrawn")
}

// TestUsageWithdrawStart: a withdrawn message_start is counted by its
// response's message_delta, which grows from it, not from the response
// before (whose higher output would leave nothing to ship).
func TestUsageWithdrawStart(t *testing.T) {
	st := testFormat(t, clock).NewState(format.Path{}).(*State)
	evs := formattest.JudgeLines(testFormat(t, clock).NewJudge(), st,
		cur(1, "metric", "append_raw", startA), cur(2, "metric", "append_raw", deltaA))
	require.Equal(t, int64(50), evs[0].Usage.Output+evs[1].Usage.Output)
	j := testFormat(t, clock).NewJudge()
	formattest.JudgeLine(j, st, cur(3, "metric", "append_raw", startB))
	st.Withdraw() // the pipeline does not ship the message_start
	ev := formattest.JudgeLine(j, st, cur(4, "metric", "append_raw", deltaB))
	assert.Equal(t, format.Usage{Input: 5, Output: 9, Has: true}, ev.Usage, "the message_start's usage and the growth since")
	assert.Equal(t, "claude-opus-4-1", string(ev.Model))
}

// TestUsageWithdrawNothingCounted: withdrawing a line that counted
// nothing (corrupt, cut short; a plan record) undoes nothing: the
// message_delta before it shipped, and is not counted again.
func TestUsageWithdrawNothingCounted(t *testing.T) {
	for _, l := range []string{`{"seq":3,"kind":"met`, `{"seq":3,"kind":"run.started","run_id":"r1"}`} {
		st := testFormat(t, clock).NewState(format.Path{}).(*State)
		j := testFormat(t, clock).NewJudge()
		formattest.JudgeLines(j, st, cur(1, "metric", "append_raw", startA), cur(2, "metric", "append_raw", deltaA), l)
		st.Withdraw()
		ev := formattest.JudgeLine(j, st, cur(4, "metric", "append_raw", deltaA))
		assert.False(t, ev.Usage.Has, "after %s", l)
	}
}

func TestUsageWithoutState(t *testing.T) {
	j := New().NewJudge()
	var a integrity.Arena
	var ev format.Event
	j.Judge([]byte(cur(1, "metric", "append_raw", startA)), nil, &a, &ev)
	assert.Equal(t, int64(1103), ev.Usage.Input, "a message_start is its response's first count")
	j.Judge([]byte(cur(2, "metric", "append_raw", deltaA)), nil, &a, &ev)
	assert.False(t, ev.Usage.Has, "nothing tells what its message_start counted")
	assert.Equal(t, "", ev.State)
}

// writeSide writes a session's side files under dir/sessions as the
// runtime does and returns the log's path.
func writeSide(t *testing.T, dir, id, doc string, attempts map[string]string, tokens map[string]string) string {
	t.Helper()
	sess := filepath.Join(dir, "sessions")
	require.NoError(t, os.MkdirAll(filepath.Join(sess, AttemptsDir, id), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(sess, ResumeTokensDir), 0o755))
	if doc != "" {
		require.NoError(t, os.WriteFile(filepath.Join(sess, id+".json"), []byte(doc), 0o644))
	}
	for name, body := range attempts {
		require.NoError(t, os.WriteFile(filepath.Join(sess, AttemptsDir, id, name), []byte(body), 0o644))
	}
	for name, body := range tokens {
		require.NoError(t, os.WriteFile(filepath.Join(sess, ResumeTokensDir, name), []byte(body), 0o644))
	}
	return filepath.Join(sess, id+Suffix)
}

// at renders base + s seconds.
func at(s int) string { return base.Add(time.Duration(s) * time.Second).Format(time.RFC3339Nano) }

func TestSideStatus(t *testing.T) {
	attempt := func(id string, start, end int, reason, intr string) string {
		s := fmt.Sprintf(`{"attempt_id":%q,"session_id":"s","started_at":%q,"heartbeat_at":%q`, id, at(start), at(start))
		if end > 0 {
			s += fmt.Sprintf(`,"ended_at":%q,"terminal_reason":%q,"interruption_reason":%q`, at(end), reason, intr)
		}
		return s + "}"
	}
	token := func(attempt string, created, consumed, expires int) string {
		s := fmt.Sprintf(`{"token_id":"t","session_id":"s","attempt_id":%q,"created_at":%q,"expires_at":%q`, attempt, at(created), at(expires))
		if consumed > 0 {
			s += fmt.Sprintf(`,"consumed_at":%q,"revoked_at":%q,"revocation_reason":"consumed"`, at(consumed), at(consumed))
		}
		return s + "}"
	}
	cases := []struct {
		name     string
		attempts map[string]string
		tokens   map[string]string
		doc      string
		lines    []int // line times (seconds); seq is the index + 1
		states   []string
		over     bool // the latest attempt ended, and no line is newer than its end
	}{
		{"no side files", nil, nil, "", []int{1}, []string{StatusIdle}, false},
		{"document only", nil, nil, `{"state":"running","transitions":[{"from":"idle","to":"running","timestamp":"` + at(2) + `"}]}`,
			[]int{1, 3}, []string{StatusIdle, StatusRunning}, false},
		{"running then completed", map[string]string{"a1.json": attempt("a1", 1, 5, "completed", "")}, nil, "",
			[]int{2, 5}, []string{StatusRunning, StatusIdle}, true},
		{"suspended on an active token", map[string]string{"a1.json": attempt("a1", 1, 4, "interrupted", "waiting for tool result: c1")},
			map[string]string{"t.json": token("a1", 3, 0, 100)}, "",
			[]int{2, 5}, []string{StatusRunning, StatusWaiting}, false}, // a line after the end
		{"suspended, token expired", map[string]string{"a1.json": attempt("a1", 1, 4, "interrupted", "waiting for tool result: c1")},
			map[string]string{"t.json": token("a1", 3, 0, 6)}, "",
			[]int{5, 7}, []string{StatusWaiting, StatusInterruptedWaiting}, false}, // a line after the end
		{"suspended, resumed", map[string]string{"a1.json": attempt("a1", 1, 4, "interrupted", "waiting for tool result: c1")},
			map[string]string{"t.json": token("a1", 3, 6, 100)}, "",
			[]int{7}, []string{StatusIdle}, false}, // a line after the end
		{"suspended without a token", map[string]string{"a1.json": attempt("a1", 1, 4, "interrupted", "waiting for approval")}, nil, "",
			[]int{5}, []string{StatusInterruptedWaiting}, false}, // a line after the end
		{"recovered while running", map[string]string{"a1.json": attempt("a1", 1, 4, "interrupted", "startup recovery: interrupted while running")}, nil, "",
			[]int{2, 4}, []string{StatusRunning, StatusInterruptedStartup}, true},
		{"recovered while waiting", map[string]string{"a1.json": attempt("a1", 1, 4, "interrupted", "startup recovery: interrupted while waiting for tool_result: c1")}, nil, "",
			[]int{4}, []string{StatusInterruptedWaiting}, true},
		{"a second attempt runs", map[string]string{"a1.json": attempt("a1", 1, 2, "cancelled", ""), "a2.json": attempt("a2", 3, 0, "", "")}, nil, "",
			[]int{2, 4}, []string{StatusIdle, StatusRunning}, false},
		{"torn attempt file", map[string]string{"a1.json": attempt("a1", 1, 2, "failed", ""), "a2.json": `{"attempt_id":"a2","start`}, nil, "",
			[]int{3}, []string{StatusIdle}, false}, // a line after the end
		{"a line after the end", map[string]string{"a1.json": attempt("a1", 1, 2, "failed", "")}, nil, "",
			[]int{3, 9}, []string{StatusIdle, StatusIdle}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log := writeSide(t, t.TempDir(), "s", c.doc, c.attempts, c.tokens)
			f := testFormat(t, base.Add(8*time.Second))
			st := f.NewState(format.Path{}).(*State)
			st.Load(log)
			j := f.NewJudge()
			var a integrity.Arena
			var got []string
			for i, sec := range c.lines {
				var ev format.Event
				line := fmt.Sprintf(`{"seq":%d,"timestamp":%q,"projection":"append","kind":"user","contents":"c"}`, i+1, at(sec))
				j.Judge([]byte(line), st, &a, &ev)
				got = append(got, ev.State)
			}
			assert.Equal(t, c.states, got)
			over, terminal := st.Over()
			assert.Equal(t, c.over, over)
			assert.Equal(t, c.over, terminal)
		})
	}
}

func TestSideOpenAndEnd(t *testing.T) {
	log := writeSide(t, t.TempDir(), "s", "", map[string]string{
		"a1.json": fmt.Sprintf(`{"attempt_id":"a1","started_at":%q}`, at(1))}, nil)
	f := testFormat(t, clock)
	st := f.NewState(format.Path{}).(*State)
	st.Load(log)
	assert.Equal(t, StatusRunning, st.Derived())
	assert.Equal(t, []string{`attempt "a1" started and never ended`}, st.Open())
	assert.Equal(t, "", st.EndReason())
	assert.False(t, f.EndWritten(log))
	assert.False(t, f.EndWritten("/nowhere/sessions/x.messages.jsonl"))
}

func TestReadSideUnknown(t *testing.T) {
	dir := t.TempDir()
	log := writeSide(t, dir, "s", `{"state":`, map[string]string{"a1.json": `[]`, "a2.json": `{"attempt_id":5}`, "a3.tmp": `{}`},
		map[string]string{"x.json": `{"token_id":"x","session_id":"other"}`, "y.json": `nope`})
	sd := ReadSide(log)
	assert.False(t, sd.Doc, "a torn document is unknown")
	assert.Empty(t, sd.Attempts, "attempt files that are no attempt are left out")
	assert.Empty(t, sd.Tokens, "another session's token is not this one's")
	assert.Equal(t, Side{}, ReadSide(filepath.Join(dir, "sessions", "x.jsonl")))
}

func TestErrorKindShipsAsRuntimeError(t *testing.T) {
	_, evs := run(t, nil, cur(1, "error", "append", ""), cur(2, "runtime_error", "append", ""))
	assert.Equal(t, "runtime_error", evs[0].EventType)
	assert.Zero(t, evs[0].Flags&format.UnknownType)
	assert.Equal(t, format.UnknownType, evs[1].Flags&format.UnknownType, "the label value is no kind the runtime writes")
}

func TestBeside(t *testing.T) {
	dir := t.TempDir()
	log := writeSide(t, dir, "s", `{}`, map[string]string{"a1.json": `{}`, "a2.json.123.tmp": `{}`}, map[string]string{
		"used.json":    fmt.Sprintf(`{"token_id":"used","session_id":"s","consumed_at":%q}`, at(3)),
		"revoked.json": fmt.Sprintf(`{"token_id":"revoked","session_id":"s","revoked_at":%q}`, at(3)),
		"old.json":     fmt.Sprintf(`{"token_id":"old","session_id":"s","expires_at":%q}`, at(5)),
		"live.json":    fmt.Sprintf(`{"token_id":"live","session_id":"s","expires_at":%q}`, at(50)),
		"other.json":   fmt.Sprintf(`{"token_id":"other","session_id":"x","consumed_at":%q}`, at(3)),
	})
	sess := filepath.Join(dir, "sessions")
	files, dirs := New().Beside(log, base.Add(10*time.Second))
	assert.ElementsMatch(t, []string{
		filepath.Join(sess, "attempts", "s", "a1.json"), filepath.Join(sess, "attempts", "s", "a2.json.123.tmp"),
		filepath.Join(sess, "resume_tokens", "used.json"), filepath.Join(sess, "resume_tokens", "revoked.json"),
		filepath.Join(sess, "resume_tokens", "old.json"),
	}, files, "an active token and another session's stay")
	assert.Equal(t, []string{filepath.Join(sess, "attempts", "s")}, dirs)
	files, dirs = New().Beside(filepath.Join(sess, "s.json"), base)
	assert.Nil(t, files)
	assert.Nil(t, dirs)
}

// A log named "..messages.jsonl" or "...messages.jsonl" has the session
// id "." or "..": attempts/<id> would be the attempts directory or the
// sessions directory itself, whose files are other sessions'. Nothing is
// beside it, and a symlinked attempts directory is never listed.
func TestBesideNeverLeavesTheSession(t *testing.T) {
	dir := t.TempDir()
	other := writeSide(t, dir, "s", `{}`, map[string]string{"a1.json": `{}`}, nil)
	require.NoError(t, os.WriteFile(other, []byte("{}\n"), 0o644))
	sess := filepath.Join(dir, "sessions")
	for _, id := range []string{".", ".."} {
		log := filepath.Join(sess, id+Suffix)
		files, dirs := New().Beside(log, base)
		assert.Empty(t, files, id)
		assert.Empty(t, dirs, id)
		assert.Nil(t, Companions(log), id)
		assert.Equal(t, Side{}, ReadSide(log), id)
		p, ok := New().Claim(log)
		assert.True(t, ok, id)
		assert.NotEmpty(t, p.Problem, id)
	}
	require.NoError(t, os.Symlink(filepath.Join(sess, AttemptsDir, "s"), filepath.Join(sess, AttemptsDir, "link")))
	files, dirs := New().Beside(filepath.Join(sess, "link"+Suffix), base)
	assert.Empty(t, files, "a symlinked attempts directory is not the session's own")
	assert.Empty(t, dirs)
}
