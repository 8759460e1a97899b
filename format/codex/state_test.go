package codex

import (
	"fmt"
	"math"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func usageOf(in, cached, out int64) format.Usage {
	return format.Usage{Input: in, CacheRead: cached, Output: out, Has: true}
}

func TestTokensCountEachResponseOnce(t *testing.T) {
	evs, st := run(t, New(), mainPath,
		meta(sessionID),
		tokenCountNull, // rate limits before the first response
		turnContext("gpt-5-codex"),
		tokenCount([4]int64{1000, 0, 50, 20}, [4]int64{1000, 0, 50, 20}),
		tokenCount([4]int64{1000, 0, 50, 20}, [4]int64{1000, 0, 50, 20}), // a rate-limit repeat
		turnContext("gpt-5.3-codex"),
		tokenCount([4]int64{2200, 900, 80, 20}, [4]int64{1200, 900, 30, 0}),
		tokenCount([4]int64{2200, 900, 80, 20}, [4]int64{0, 0, 0, 0}), // a compaction's estimate
		tokenCount([4]int64{3400, 1800, 100, 20}, [4]int64{1200, 900, 20, 0}),
	)
	var got []format.Usage
	var models []string
	for _, ev := range evs {
		require.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
		if ev.Usage.Has {
			got = append(got, ev.Usage)
			models = append(models, string(ev.Model))
			assert.Equal(t, format.RoleLLMResponse, ev.Role)
			assert.NotZero(t, ev.Bill)
		} else if ev.EventType == "token_count" {
			assert.Equal(t, format.RoleStatus, ev.Role)
		}
		assert.Zero(t, ev.NoteCount, formattest.Notes(&ev))
	}
	assert.Equal(t, []format.Usage{usageOf(1000, 0, 50), usageOf(1200, 900, 30), usageOf(1200, 900, 20)}, got)
	assert.Equal(t, []string{"gpt-5-codex", "gpt-5.3-codex", "gpt-5.3-codex"}, models)
	assert.Equal(t, "gpt-5.3-codex", st.Model())
}

func TestTokensTwoEqualResponsesCountTwice(t *testing.T) {
	evs, _ := run(t, New(), mainPath, turnContext("gpt-5"),
		tokenCount([4]int64{100, 0, 10, 0}, [4]int64{100, 0, 10, 0}),
		tokenCount([4]int64{200, 0, 20, 0}, [4]int64{100, 0, 10, 0}))
	assert.Equal(t, usageOf(100, 0, 10), evs[2].Usage, "the totals grew: a response, though the same as the last")
	assert.NotEqual(t, evs[1].Bill, evs[2].Bill)
}

func TestTokensReset(t *testing.T) {
	evs, _ := run(t, New(), mainPath, turnContext("gpt-5-codex"),
		tokenCount([4]int64{5000, 4000, 100, 0}, [4]int64{5000, 4000, 100, 0}),
		// A CLI before 0.78 resumed: the totals restarted at the response.
		tokenCount([4]int64{300, 0, 7, 0}, [4]int64{300, 0, 7, 0}),
		tokenCount([4]int64{700, 200, 9, 0}, [4]int64{400, 200, 2, 0}),
		// The context window filled: totals replaced, no usage.
		event(`{"type":"token_count","info":{"total_token_usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":258400},"last_token_usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":12},"model_context_window":258400}}`),
		// The next response adds to the filled totals.
		formattest.Mutate(t, tokenCount([4]int64{9000, 8000, 300, 0}, [4]int64{9000, 8000, 300, 0}),
			"payload.info.total_token_usage.total_tokens", 258400+9300),
	)
	assert.Equal(t, usageOf(300, 0, 7), evs[2].Usage)
	assert.Equal(t, []string{"usage_reset(input 5000 → 300)"}, formattest.Notes(&evs[2]))
	assert.Equal(t, usageOf(400, 200, 2), evs[3].Usage)
	assert.False(t, evs[4].Usage.Has)
	assert.Equal(t, []string{"usage_reset(input 700 → 0)"}, formattest.Notes(&evs[4]))
	assert.Equal(t, usageOf(9000, 8000, 300), evs[5].Usage)
	assert.Empty(t, formattest.Notes(&evs[5]), "grown from the filled totals by its last usage")
}

func TestTokensInconsistentAndBaseline(t *testing.T) {
	evs, _ := run(t, New(), mainPath, turnContext("gpt-5"),
		// Copied or lost history: the first totals exceed the response.
		tokenCount([4]int64{5000, 0, 100, 0}, [4]int64{1000, 0, 20, 0}),
		// A line lost between: the totals grew by two responses.
		tokenCount([4]int64{7000, 0, 140, 0}, [4]int64{1000, 0, 20, 0}),
	)
	assert.Equal(t, usageOf(1000, 0, 20), evs[1].Usage)
	assert.Equal(t, []string{"usage_baseline"}, formattest.Notes(&evs[1]))
	assert.Equal(t, usageOf(2000, 0, 40), evs[2].Usage)
	assert.Equal(t, []string{"usage_inconsistent"}, formattest.Notes(&evs[2]))
}

func TestTokensCachedClampedAndModelUnknown(t *testing.T) {
	evs, _ := run(t, New(), mainPath, tokenCount([4]int64{10, 50, 1, 0}, [4]int64{10, 50, 1, 0}))
	assert.Equal(t, usageOf(10, 10, 1), evs[0].Usage)
	assert.Equal(t, []string{"model_unknown"}, formattest.Notes(&evs[0]))
	assert.Empty(t, evs[0].Model)
}

func TestTokensSchemaInvalidAdvancesNothing(t *testing.T) {
	bad := formattest.Mutate(t, tokenCount([4]int64{300, 0, 30, 0}, [4]int64{200, 0, 20, 0}), "payload.info.last_token_usage.input_tokens", "200")
	evs, _ := run(t, New(), mainPath, turnContext("gpt-5"),
		tokenCount([4]int64{100, 0, 10, 0}, [4]int64{100, 0, 10, 0}), bad,
		tokenCount([4]int64{300, 0, 30, 0}, [4]int64{200, 0, 20, 0}))
	assert.Equal(t, integrity.SchemaInvalid, evs[2].Outcome)
	assert.False(t, evs[2].Usage.Has)
	assert.Equal(t, usageOf(200, 0, 20), evs[3].Usage)
}

func TestWithdraw(t *testing.T) {
	f := New()
	p, _ := f.Claim(mainPath)
	st := f.NewState(p).(*State)
	j := f.NewJudge()
	lines := []string{turnContext("gpt-5"),
		tokenCount([4]int64{100, 0, 10, 0}, [4]int64{100, 0, 10, 0}),
		tokenCount([4]int64{300, 0, 30, 0}, [4]int64{200, 0, 20, 0}),
		tokenCount([4]int64{600, 0, 60, 0}, [4]int64{300, 0, 30, 0})}
	var got []format.Usage
	for i, l := range lines {
		ev := formattest.JudgeLine(j, st, l)
		if i == 2 {
			st.Withdraw() // too long to ship
			st.Withdraw() // a second call undoes nothing more
			continue
		}
		got = append(got, ev.Usage)
	}
	assert.Equal(t, usageOf(500, 0, 50), got[2], "the next line ships what the withdrawn one counted")
	st.Withdraw()
	ev := formattest.JudgeLine(j, st, lines[3])
	assert.Equal(t, usageOf(500, 0, 50), ev.Usage, "withdrawing the last line: it ships again")
}

// TestWithdrawNoBaseOrReset: a withdrawn token_count that found no base
// (the file's first) or reset the totals is counted by the next one, with
// what grew between (a schema-invalid token_count's response): the base
// becomes the withdrawn line's totals less what it shipped, not the base
// it found.
func TestWithdrawNoBaseOrReset(t *testing.T) {
	// Its response counts in the totals, but the line ships nothing.
	bad := formattest.Mutate(t, tokenCount([4]int64{300, 0, 30, 0}, [4]int64{200, 0, 20, 0}),
		"payload.info.total_token_usage.output_tokens", "30")
	for _, c := range []struct {
		name      string
		lines     []string
		withdrawn int          // the line withdrawn
		want      format.Usage // what the last line ships
	}{
		{"first, then a schema-invalid one", []string{
			tokenCount([4]int64{100, 0, 10, 0}, [4]int64{100, 0, 10, 0}), bad,
			tokenCount([4]int64{600, 0, 60, 0}, [4]int64{300, 0, 30, 0})}, 0, usageOf(600, 0, 60)},
		{"first, past history counted elsewhere", []string{
			tokenCount([4]int64{5000, 0, 100, 0}, [4]int64{1000, 0, 20, 0}),
			tokenCount([4]int64{6000, 0, 120, 0}, [4]int64{1000, 0, 20, 0})}, 0, usageOf(2000, 0, 40)},
		{"a reset", []string{
			tokenCount([4]int64{5000, 0, 100, 0}, [4]int64{5000, 0, 100, 0}),
			tokenCount([4]int64{300, 0, 7, 0}, [4]int64{300, 0, 7, 0}),
			tokenCount([4]int64{700, 0, 9, 0}, [4]int64{400, 0, 2, 0})}, 1, usageOf(700, 0, 9)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := New().Claim(mainPath)
			st := New().NewState(p).(*State)
			j := New().NewJudge()
			formattest.JudgeLine(j, st, turnContext("gpt-5"))
			var ev format.Event
			for i, l := range c.lines {
				ev = formattest.JudgeLine(j, st, l)
				if i == c.withdrawn {
					require.True(t, ev.Usage.Has)
					st.Withdraw()
				}
			}
			assert.Equal(t, c.want, ev.Usage)
		})
	}
}

// TestWithdrawCorruptLine: withdrawing a line that counted nothing (a
// corrupt one, cut short) undoes nothing: the token_count before it
// shipped, and the next one ships only its own growth.
func TestWithdrawCorruptLine(t *testing.T) {
	p, _ := New().Claim(mainPath)
	st := New().NewState(p).(*State)
	j := New().NewJudge()
	formattest.JudgeLine(j, st, turnContext("gpt-5"))
	formattest.JudgeLine(j, st, tokenCount([4]int64{100, 0, 10, 0}, [4]int64{100, 0, 10, 0}))
	for _, cut := range []string{`{"timestamp":"` + stamp + `","type":"event_msg","payl`, `{"timestamp":"` + stamp + `"}`} {
		ev := formattest.JudgeLine(j, st, cut)
		require.Equal(t, integrity.Corrupt, ev.Outcome)
		st.Withdraw()
	}
	ev := formattest.JudgeLine(j, st, tokenCount([4]int64{300, 0, 30, 0}, [4]int64{200, 0, 20, 0}))
	assert.Equal(t, usageOf(200, 0, 20), ev.Usage, "the first token_count is not counted again")
}

// TestForkBills: a fork copies its parent's lines after the parent's
// session_meta; each copied response has the bill it has in the parent's
// file, and the fork's own responses others.
func TestForkBills(t *testing.T) {
	parentPath := mainPath
	childID := "019c8a70-dda7-7f33-98ea-f30553347322"
	childPath := root + "/sessions/2026/02/23/rollout-2026-02-23T13-19-38-" + childID + ".jsonl"
	parent := []string{meta(sessionID), turnContext("gpt-5"),
		tokenCount([4]int64{100, 0, 10, 0}, [4]int64{100, 0, 10, 0}),
		tokenCount([4]int64{300, 0, 30, 0}, [4]int64{200, 0, 20, 0})}
	pEvs, _ := run(t, New(), parentPath, parent...)
	child := append([]string{meta(childID)}, parent...)
	child = append(child, turnContext("gpt-5"), tokenCount([4]int64{700, 0, 70, 0}, [4]int64{400, 0, 40, 0}))
	cEvs, _ := run(t, New(), childPath, child...)
	assert.Equal(t, []string{"session_id_mismatch(" + sessionID + ")"}, formattest.Notes(&cEvs[1]))
	assert.Equal(t, childID, string(cEvs[3].SessionID))
	for i := 2; i < 4; i++ {
		require.True(t, pEvs[i].Usage.Has)
		assert.Equal(t, pEvs[i].Usage, cEvs[i+1].Usage)
		assert.Equal(t, pEvs[i].Bill, cEvs[i+1].Bill, "a copied response is one bill")
	}
	own := cEvs[len(cEvs)-1]
	assert.Equal(t, usageOf(400, 0, 40), own.Usage)
	assert.NotEqual(t, pEvs[3].Bill, own.Bill)
}

func TestPairing(t *testing.T) {
	evs, st := run(t, New(), mainPath, meta(sessionID), turnContext("gpt-5"),
		call("call_a", "exec_command"), call("call_b", "shell"), output("call_b"), output("call_x"), call("call_a", "exec_command"),
		item(`{"type":"custom_tool_call","call_id":"call_p","name":"apply_patch","input":"x"}`),
		item(`{"type":"custom_tool_call_output","call_id":"call_p","output":"ok"}`),
		event(`{"type":"patch_apply_end","call_id":"call_p","success":true}`))
	assert.Equal(t, "exec_command", string(evs[2].ToolName))
	assert.Equal(t, "call_a", string(evs[2].ToolCallID))
	assert.Equal(t, "shell", string(evs[4].ToolName), "an output names its call's tool")
	assert.Equal(t, []string{"tool_result_without_call(call_x)"}, formattest.Notes(&evs[5]))
	assert.Equal(t, []string{"call_id_repeat(call_a)"}, formattest.Notes(&evs[6]))
	assert.Equal(t, "apply_patch", string(evs[8].ToolName))
	assert.Equal(t, "call_p", string(evs[9].ToolCallID))
	assert.Equal(t, []string{"call call_a (exec_command) was never answered"}, st.Open())
	assert.Equal(t, StateActing, st.Derived())
	over, _ := st.Over()
	assert.False(t, over, "a call is running")
}

func TestPairingBounded(t *testing.T) {
	f, _ := NewWith(Config{MaxTrackedIDs: 1})
	evs, st := run(t, f, mainPath, call("c1", "x"), call("c2", "y"), output("c2"), output("c9"))
	assert.Empty(t, formattest.Notes(&evs[2]))
	assert.Equal(t, "y", string(evs[2].ToolName), "answered from the open list")
	assert.Empty(t, formattest.Notes(&evs[3]), "past the bound a miss proves nothing")
	assert.Equal(t, []string{"call c1 (x) was never answered"}, st.Open())
}

// TestOpenPastTheList: calls past the list's bound are counted, and one
// of them answered is no longer.
func TestOpenPastTheList(t *testing.T) {
	var lines []string
	id := func(i int) string {
		return "c" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
	}
	for i := range maxOpenCalls + 2 {
		lines = append(lines, call(id(i), "x"))
	}
	_, st := run(t, New(), mainPath, lines...)
	open := st.Open()
	assert.Len(t, open, maxOpenCalls+1)
	assert.Equal(t, "2 more calls were never answered", open[maxOpenCalls])

	_, st = run(t, New(), mainPath, append(lines, output(id(maxOpenCalls+1)))...)
	open = st.Open()
	assert.Len(t, open, maxOpenCalls+1)
	assert.Equal(t, "1 more calls were never answered", open[maxOpenCalls])
}

func TestDerivedState(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"a turn of 0.100 and later",
			[]string{meta(sessionID), valid["task_started"], turnContext("gpt-5"), valid["user_message"], call("c1", "exec_command"),
				valid["token_count"], output("c1"), message("assistant", "commentary"), message("assistant", "final_answer"), valid["task_complete"]},
			[]string{"idle", "thinking", "thinking", "thinking", "acting", "acting", "thinking", "thinking", "idle", "idle"}},
		{"parallel calls",
			[]string{call("c1", "a"), call("c2", "b"), output("c1"), output("c2")},
			[]string{"acting", "acting", "acting", "thinking"}},
		{"a turn of 0.40: no task events",
			[]string{turnContext("gpt-5-codex"), message("user", ""), valid["agent_reasoning"], valid["agent_message"], valid["token_count"],
				valid["reasoning"], message("assistant", "")},
			[]string{"thinking", "thinking", "thinking", "idle", "idle", "thinking", "idle"}},
		{"an aborted turn's items after the abort",
			[]string{turnContext("gpt-5-codex"), valid["agent_reasoning"], valid["turn_aborted"], valid["reasoning"], call("c1", "apply_patch"),
				output("c1"), call("c2", "shell"), turnContext("gpt-5-codex"), message("user", "")},
			[]string{"thinking", "thinking", "idle", "idle", "idle", "idle", "idle", "thinking", "thinking"}},
		{"a call left by an aborted turn",
			[]string{call("c1", "shell"), valid["turn_aborted"], valid["user_message"], message("assistant", "")},
			[]string{"acting", "idle", "thinking", "idle"}},
		{"the final message while a call runs",
			[]string{call("c1", "shell"), message("assistant", "")},
			[]string{"acting", "acting"}},
		{"not meaningful",
			[]string{meta(sessionID), valid["token_count"], valid["entered_review_mode"], env("future", `{}`), `{"record_type":"state"}`},
			[]string{"idle", "idle", "idle", "idle", "idle"}},
		{"compaction",
			[]string{valid["compacted"], valid["context_compacted"], valid["task_complete"]},
			[]string{"thinking", "thinking", "idle"}},
		{"legacy dialect",
			[]string{`{"id":"` + otherID + `","timestamp":"2025-09-10T18:58:38.331Z","instructions":null}`, `{"record_type":"state"}`,
				`{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}`,
				`{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}`,
				`{"type":"function_call_output","call_id":"c1","output":"ok"}`,
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}`},
			[]string{"idle", "idle", "thinking", "acting", "thinking", "idle"}},
	} {
		evs, st := run(t, New(), mainPath, c.lines...)
		assert.Equal(t, c.want, states(evs), c.name)
		for i := range evs {
			assert.NotEqual(t, integrity.Corrupt, evs[i].Outcome, "%s line %d", c.name, i+1)
		}
		over, terminal := st.Over()
		assert.Equal(t, c.want[len(c.want)-1] == StateIdle, over, c.name)
		assert.Equal(t, over, terminal)
	}
}

func TestLegacyDialect(t *testing.T) {
	evs, st := run(t, New(), mainPath,
		`{"id":"`+sessionID+`","timestamp":"2025-09-10T18:58:38.331Z","instructions":"# AGENTS.md","git":{"branch":"main"}}`,
		`{"record_type":"state"}`,
		`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"x"}`,
		`{"type":"local_shell_call","id":"lsh_1","call_id":"c1","status":"completed","action":{"type":"exec","command":["ls"]}}`,
		`{"type":"function_call_output","call_id":"c1","output":"ok"}`,
		`{"type":"fancy_item"}`,
		// An envelope line in a legacy file is still read as one.
		valid["user_message"])
	assert.Equal(t, "session_meta", evs[0].EventType)
	assert.True(t, evs[0].HasTime)
	assert.Equal(t, format.RoleSessionStart, evs[0].Role)
	assert.Equal(t, "state", evs[1].EventType)
	assert.False(t, evs[1].HasTime)
	assert.Equal(t, "local_shell", string(evs[3].ToolName))
	assert.Equal(t, "local_shell", string(evs[4].ToolName))
	assert.Equal(t, format.UnknownType, evs[5].Flags, "the legacy dialect is frozen")
	assert.Equal(t, "user_message", evs[6].EventType)
	for i, ev := range evs {
		assert.Equal(t, integrity.Valid, ev.Outcome, "line %d: %v", i+1, formattest.Violations(&ev))
		assert.Equal(t, sessionID, string(ev.SessionID))
	}
	assert.True(t, st.legacy())
}

func TestEnvelopeFileRefusesBareItems(t *testing.T) {
	evs, _ := run(t, New(), mainPath, meta(sessionID), `{"type":"message","role":"user","content":[]}`)
	assert.Equal(t, format.UnknownType, evs[1].Flags)
	assert.Equal(t, "message", string(evs[1].TypeName))
}

func TestSessionWithoutPathSession(t *testing.T) {
	st := New().NewState(format.Path{Format: Name}).(*State)
	evs := formattest.JudgeLines(New().NewJudge(), st, turnContext("gpt-5"), meta(otherID), message("user", ""))
	assert.Empty(t, evs[0].SessionID)
	assert.Equal(t, otherID, string(evs[1].SessionID))
	assert.Equal(t, otherID, string(evs[2].SessionID))
	assert.Zero(t, evs[1].NoteCount)
}

// TestWithdrawNeverShipsNegativeUsage: a withdrawn token_count whose last
// usage exceeds its totals (hostile or garbled counters) leaves no base
// below zero, so the next token_count's growth can neither go negative
// nor wrap around: negative tokens would price to a negative cost, which
// the cost counter refuses with a panic.
func TestWithdrawNeverShipsNegativeUsage(t *testing.T) {
	usage := func(in, cached, out int64) string {
		return fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":0}`, in, cached, out)
	}
	tc := func(total, last string) string {
		return event(`{"type":"token_count","info":{"total_token_usage":` + total + `,"last_token_usage":` + last + `}}`)
	}
	const huge = math.MaxInt64
	for _, c := range []struct {
		name      string
		withdrawn string
	}{
		{"first", tc(usage(0, 0, 0), usage(1, 0, 1))},
		{"reset", tc(usage(0, 0, 0), usage(1, 0, 1))},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := New().Claim(mainPath)
			st := New().NewState(p).(*State)
			j := New().NewJudge()
			formattest.JudgeLine(j, st, turnContext("gpt-5"))
			if c.name == "reset" {
				formattest.JudgeLine(j, st, tc(usage(50, 0, 5), usage(50, 0, 5)))
			}
			ev := formattest.JudgeLine(j, st, c.withdrawn)
			require.True(t, ev.Usage.Has)
			st.Withdraw()
			ev = formattest.JudgeLine(j, st, tc(usage(huge, huge, 1), usage(1, 0, 1)))
			require.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
			u := ev.Usage
			assert.True(t, u.Input >= 0 && u.CacheRead >= 0 && u.CacheRead <= u.Input && u.Output >= 0,
				"usage %+v", u)
		})
	}
}

// TestZeroTimeIsNoTime: a line stamped 0001-01-01T00:00:00Z (Go's zero
// time: no time was set) has no time of its own, whether its type is
// known (the time is judged) or not (it is only read).
func TestZeroTimeIsNoTime(t *testing.T) {
	for _, typ := range []string{"event_msg", "token_usage_record"} {
		ev := judgeOne(`{"timestamp":"0001-01-01T00:00:00Z","type":"` + typ + `","payload":{"type":"task_started"}}`)
		assert.NotEqual(t, integrity.Corrupt, ev.Outcome, typ)
		assert.False(t, ev.HasTime, "%s: %v", typ, ev.Time)
	}
}
