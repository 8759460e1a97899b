package claudecode

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContinuity(t *testing.T) {
	boundary := func(u, logical string) string {
		return line("system", u, "", `"subtype":"compact_boundary","logicalParentUuid":"`+logical+`"`)
	}
	for _, c := range []struct {
		name  string
		lines []string
		notes [][]string
	}{
		{"a chain", []string{prompt(uid(1), "", "a"), prompt(uid(2), uid(1), "b"), prompt(uid(3), uid(2), "c")}, [][]string{nil, nil, nil}},
		{"roots are fine", []string{prompt(uid(1), "", "a"), prompt(uid(2), "", "b")}, [][]string{nil, nil}},
		{"branches are fine", []string{prompt(uid(1), "", "a"), prompt(uid(2), uid(1), "b"), prompt(uid(3), uid(1), "c")}, [][]string{nil, nil, nil}},
		{"parent missing", []string{prompt(uid(1), "", "a"), prompt(uid(3), uid(2), "c")},
			[][]string{nil, {"parent_missing(" + uid(2) + ")"}}},
		{"a parent after its child", []string{prompt(uid(2), uid(1), "b"), prompt(uid(1), "", "a")},
			[][]string{{"parent_missing(" + uid(1) + ")"}, nil}},
		{"its own parent", []string{prompt(uid(1), uid(1), "a")}, [][]string{{"parent_missing(" + uid(1) + ")"}}},
		{"uuid repeat", []string{prompt(uid(1), "", "a"), prompt(uid(1), "", "a")}, [][]string{nil, {"uuid_repeat"}}},
		{"compaction names the line before", []string{prompt(uid(1), "", "a"), boundary(uid(2), uid(1)), prompt(uid(3), uid(2), "c")},
			[][]string{nil, nil, nil}},
		// An auto-compaction's logicalParentUuid names the last message
		// the runtime held, which it need not have written (a real
		// 2.1.39 transcript's does not appear in any file of its session).
		{"compaction names a message never written", []string{prompt(uid(1), "", "a"), boundary(uid(2), uid(9)), prompt(uid(3), uid(2), "c")},
			[][]string{nil, nil, nil}},
		{"the line after a compaction links to the boundary", []string{prompt(uid(1), "", "a"), boundary(uid(2), uid(1)), prompt(uid(3), uid(8), "c")},
			[][]string{nil, nil, {"parent_missing(" + uid(8) + ")"}}},
		{"progress lines are links", []string{prompt(uid(1), "", "a"),
			line("progress", uid(2), uid(1), `"data":{"type":"hook_progress"}`), prompt(uid(3), uid(2), "c")}, [][]string{nil, nil, nil}},
		{"fork copies are links", []string{strings.Replace(prompt(uid(1), "", "a"), sessionID, otherID, 1), prompt(uid(2), uid(1), "b")},
			[][]string{{"session_id_mismatch(" + otherID + ")"}, nil}},
		{"summaries name other files", []string{`{"type":"summary","summary":"s","leafUuid":"` + uid(77) + `"}`, prompt(uid(1), "", "a")},
			[][]string{nil, nil}},
		{"schema-invalid lines are links", []string{strings.Replace(prompt(uid(1), "", "a"), `"timestamp":"`+stamp+`"`, `"timestamp":1`, 1),
			prompt(uid(2), uid(1), "b")}, [][]string{nil, nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, _ := run(t, New(), mainPath, c.lines...)
			for i := range evs {
				assert.Equal(t, c.notes[i], formattest.Notes(&evs[i]), "line %d", i+1)
			}
		})
	}
}

func TestNoContinuityInStreamJSON(t *testing.T) {
	l := `{"type":"user","message":{"role":"user","content":"hi"},"uuid":"` + uid(1) + `","parentUuid":"` + uid(9) + `","session_id":"` + sessionID + `"}`
	evs, _ := run(t, New(), "/srv/captures/x/run.jsonl", stream["system"], l, l)
	for _, ev := range evs {
		assert.Zero(t, ev.NoteCount, formattest.Notes(&ev))
		assert.Equal(t, integrity.Valid, ev.Outcome, formattest.Violations(&ev))
	}
}

func TestToolPairing(t *testing.T) {
	evs, st := run(t, New(), mainPath,
		prompt(uid(1), "", "go"),
		reply(uid(2), uid(1), "m1", "r1", toolUse("toolu_A", "Read")+","+toolUse("toolu_B", "Grep"), `"tool_use"`, ""),
		userBlocks(uid(3), uid(2), toolResult("toolu_B")),
		userBlocks(uid(4), uid(3), toolResult("toolu_X")+","+toolResult("toolu_A")),
		userBlocks(uid(5), uid(4), toolResult("toolu_A")),
		reply(uid(6), uid(5), "m2", "r2", toolUse("toolu_C", "Bash"), "null", ""),
		reply(uid(7), uid(6), "m3", "r3", `{"type":"tool_use","id":"toolu_D","input":{}}`, "null", ""),
	)
	assert.Equal(t, "Read", string(evs[1].ToolName), "the first tool_use names the line")
	assert.Equal(t, "toolu_A", string(evs[1].ToolCallID))
	assert.Equal(t, "Grep", string(evs[2].ToolName))
	assert.Equal(t, "toolu_X", string(evs[3].ToolCallID), "the first tool_result names the line")
	assert.Nil(t, evs[3].ToolName)
	assert.Equal(t, []string{"tool_result_without_call(toolu_X)"}, formattest.Notes(&evs[3]))
	assert.Nil(t, evs[4].ToolName, "answered twice: the name is gone")
	assert.Zero(t, evs[4].NoteCount, "but it was called")
	assert.Equal(t, []string{"tool_use toolu_C (Bash) was never answered", "tool_use toolu_D was never answered"}, st.Open())
}

func TestOpenToolsAreBounded(t *testing.T) {
	lines := []string{prompt(uid(1), "", "go")}
	for i := range maxOpenTools + 3 {
		lines = append(lines, reply(uid(10+i), uid(1), fmt.Sprintf("m%d", i), "r", toolUse(fmt.Sprintf("toolu_%d", i), "Bash"), "null", ""))
	}
	lines = append(lines, userBlocks(uid(5000), uid(1), toolResult(fmt.Sprintf("toolu_%d", maxOpenTools+1))))
	evs, st := run(t, New(), mainPath, lines...)
	assert.Zero(t, evs[len(evs)-1].NoteCount, "an untracked open one: called")
	assert.Equal(t, maxOpenTools, st.open.Len())
	open := st.Open()
	assert.Len(t, open, maxOpenTools+1)
	assert.Equal(t, "tool_use toolu_0 (Bash) was never answered", open[0])
	assert.Equal(t, "2 more tool_use ids were never answered", open[maxOpenTools])
}

func TestDerivedState(t *testing.T) {
	asst := func(blocks, stop string) string { return reply(uid(90), uid(1), "m", "r", blocks, stop, "") }
	user := func(u string) string { return strings.Replace(u, `"uuid":"`+uid(2)+`"`, `"uuid":"`+uid(91)+`"`, 1) }
	side := func(l string) string {
		return strings.Replace(l, `"isSidechain":false`, `"isSidechain":true,"agentId":"a7f3e21"`, 1)
	}
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"nothing", nil, StateIdle},
		{"only lines that are not meaningful", []string{valid["summary"], valid["progress"], valid["system"], valid["attachment"],
			valid["file-history-snapshot"], valid["queue-operation"], valid["custom-title"], `{"type":"x-new"}`, "not json"}, StateIdle},
		{"a prompt", []string{prompt(uid(2), "", "fix it")}, StateThinking},
		{"tool_use block", []string{asst(toolUse("t", "Bash"), "null")}, StateActing},
		{"stop_reason tool_use", []string{asst(textBlock, `"tool_use"`)}, StateActing},
		{"end_turn", []string{asst(textBlock, `"end_turn"`)}, StateIdle},
		{"end_turn with a tool_use block", []string{asst(toolUse("t", "Bash"), `"end_turn"`)}, StateActing},
		{"stop_sequence", []string{asst(thinkBlock, `"stop_sequence"`)}, StateIdle},
		{"max_tokens", []string{asst(thinkBlock, `"max_tokens"`)}, StateIdle},
		{"refusal", []string{asst(textBlock, `"refusal"`)}, StateIdle},
		{"an unknown stop_reason", []string{asst(thinkBlock, `"new_reason"`)}, StateIdle},
		{"null, a text block", []string{asst(textBlock, "null")}, StateIdle},
		{"null, thinking only", []string{asst(thinkBlock, "null")}, StateThinking},
		{"null, redacted thinking", []string{asst(`{"type":"redacted_thinking","data":"x"}`, "null")}, StateThinking},
		{"null, no blocks", []string{asst("", "null")}, StateThinking},
		{"pause_turn", []string{asst(textBlock, `"pause_turn"`)}, StateThinking},
		{"text then tool_use", []string{asst(textBlock, "null"), asst(toolUse("t", "Bash"), "null")}, StateActing},
		{"tool result", []string{asst(toolUse("t", "Bash"), "null"), userBlocks(uid(3), uid(90), toolResult("t"))}, StateThinking},
		{"interrupted", []string{prompt(uid(2), "", "go"), userBlocks(uid(3), uid(2), `{"type":"text","text":"[Request interrupted by user]"}`)}, StateIdle},
		{"interrupted for tool use", []string{asst(toolUse("t", "Bash"), "null"),
			userBlocks(uid(3), uid(90), `{"type":"text","text":"[Request interrupted by user for tool use]"}`)}, StateIdle},
		{"interrupted beside a tool result", []string{asst(toolUse("t", "Bash"), "null"),
			userBlocks(uid(3), uid(90), toolResult("t")+`,{"type":"text","text":"[Request interrupted by user for tool use]"}`)}, StateIdle},
		{"interrupted, string content", []string{prompt(uid(2), "", "go"), prompt(uid(3), uid(2), "[Request interrupted by user]")}, StateIdle},
		{"interrupted, escaped", []string{prompt(uid(2), "", "go"),
			strings.Replace(prompt(uid(3), uid(2), "X"), `"content":"X"`, `"content":"\u005bRequest interrupted by user]"`, 1)}, StateIdle},
		{"a prompt starting with an escape", []string{asst(textBlock, `"end_turn"`), prompt(uid(3), uid(2), "\n[Request interrupted by user")}, StateThinking},
		{"isMeta", []string{asst(textBlock, `"end_turn"`), strings.Replace(prompt(uid(3), uid(2), "Caveat"), `"type":"user"`, `"type":"user","isMeta":true`, 1)}, StateIdle},
		{"isCompactSummary", []string{asst(textBlock, `"end_turn"`),
			strings.Replace(prompt(uid(3), uid(2), "This session is being continued"), `"type":"user"`, `"type":"user","isCompactSummary":true`, 1)}, StateIdle},
		{"slash command", []string{asst(textBlock, `"end_turn"`), prompt(uid(3), uid(2), "<command-name>/clear</command-name>")}, StateIdle},
		{"command output", []string{asst(textBlock, `"end_turn"`), prompt(uid(3), uid(2), "<local-command-stdout></local-command-stdout>")}, StateIdle},
		{"command caveat block", []string{asst(textBlock, `"end_turn"`),
			userBlocks(uid(3), uid(2), `{"type":"text","text":"<local-command-caveat>Caveat</local-command-caveat>"}`)}, StateIdle},
		{"an image prompt", []string{asst(textBlock, `"end_turn"`), userBlocks(uid(3), uid(2), `{"type":"image","source":{}}`)}, StateThinking},
		{"a sidechain end_turn in the main file", []string{prompt(uid(2), "", "go"), side(asst(textBlock, `"end_turn"`))}, StateThinking},
		{"a sidechain prompt in the main file", []string{asst(textBlock, `"end_turn"`), side(user(prompt(uid(2), "", "go")))}, StateIdle},
		{"system lines are skipped", []string{asst(toolUse("t", "Bash"), "null"), formattest.Mutate(t, valid["system"], "subtype", "stop_hook_summary")}, StateActing},
		{"a schema-invalid line counts as far as read", []string{prompt(uid(2), "", "go"),
			strings.Replace(asst(textBlock, `"end_turn"`), `"model":"claude-sonnet-4-5-20250929",`, "", 1)}, StateIdle},
		{"a synthetic line", []string{prompt(uid(2), "", "go"), formattest.Mutate(t, asst(textBlock, "null"), "message.model", "<synthetic>")}, StateIdle},
		{"result", []string{stream["user"], valid["result"]}, StateIdle},
		{"stream-json subagent lines are skipped", []string{stream["system"], formattest.Mutate(t, stream["user"], "parent_tool_use_id", nil),
			formattest.Mutate(t, stream["assistant"], "parent_tool_use_id", "toolu_1")}, StateThinking},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, st := run(t, New(), mainPath, c.lines...)
			assert.Equal(t, c.want, st.Derived())
			over, terminal := st.Over()
			assert.Equal(t, c.want == StateIdle, over)
			assert.Equal(t, over, terminal)
			if len(evs) > 0 && evs[len(evs)-1].Outcome != integrity.Corrupt {
				assert.Equal(t, c.want, evs[len(evs)-1].State)
			}
		})
	}
}

func TestSubagentFileDerivesFromItsOwnLines(t *testing.T) {
	side := func(l string) string {
		return strings.Replace(l, `"isSidechain":false`, `"isSidechain":true,"agentId":"a7f3e21"`, 1)
	}
	evs, st := run(t, New(), agentPath, side(prompt(uid(1), "", "find it")), side(reply(uid(2), uid(1), "m", "r", textBlock, `"end_turn"`, "")))
	assert.Equal(t, []string{StateThinking, StateIdle}, states(evs))
	assert.Equal(t, StateIdle, st.Derived())
	for _, ev := range evs {
		assert.Equal(t, "a7f3e21", string(ev.AgentID))
		assert.Equal(t, sessionID, string(ev.SessionID))
		assert.Zero(t, ev.NoteCount)
	}
}

func TestSessionAndAgentIDs(t *testing.T) {
	fork := strings.Replace(prompt(uid(1), "", "a"), sessionID, otherID, 1)
	t.Run("main transcript", func(t *testing.T) {
		evs, _ := run(t, New(), mainPath, fork, valid["summary"], prompt(uid(2), uid(1), "b"))
		assert.Equal(t, []string{"session_id_mismatch(" + otherID + ")"}, formattest.Notes(&evs[0]))
		for _, ev := range evs {
			assert.Equal(t, sessionID, string(ev.SessionID), "the path's session")
			assert.Nil(t, ev.AgentID)
		}
	})
	t.Run("subagent transcript", func(t *testing.T) {
		other := strings.Replace(prompt(uid(2), "", "b"), `"isSidechain":false`, `"isSidechain":true,"agentId":"b0b"`, 1)
		evs, _ := run(t, New(), agentPath, fork, other, valid["file-history-snapshot"])
		assert.Equal(t, []string{"session_id_mismatch(" + otherID + ")"}, formattest.Notes(&evs[0]))
		assert.Equal(t, "a7f3e21", string(evs[0].AgentID), "the file name's agent")
		assert.Equal(t, []string{"agent_id_mismatch(b0b)"}, formattest.Notes(&evs[1]))
		assert.Equal(t, "b0b", string(evs[1].AgentID), "the line's own")
		assert.Equal(t, "a7f3e21", string(evs[2].AgentID))
		assert.Equal(t, sessionID, string(evs[2].SessionID))
	})
	t.Run("legacy agent file: the lines name the session", func(t *testing.T) {
		path := root + "/" + project + "/agent-a7f3e21.jsonl"
		evs, _ := run(t, New(), path, valid["file-history-snapshot"], fork, prompt(uid(2), uid(1), "b"), valid["summary"])
		assert.Nil(t, evs[0].SessionID, "none known yet")
		assert.Equal(t, otherID, string(evs[1].SessionID))
		assert.Equal(t, sessionID, string(evs[2].SessionID), "each line its own")
		assert.Equal(t, otherID, string(evs[3].SessionID), "else the file's first")
		for _, ev := range evs {
			assert.Zero(t, ev.NoteCount, formattest.Notes(&ev))
			assert.Equal(t, "a7f3e21", string(ev.AgentID))
		}
	})
	t.Run("stream-json: the lines' session", func(t *testing.T) {
		path := root + "/" + project + "/" + otherID + ".jsonl"
		evs, _ := run(t, New(), path, stream["system"], stream["assistant"])
		for _, ev := range evs {
			assert.Equal(t, sessionID, string(ev.SessionID))
			assert.Zero(t, ev.NoteCount)
			assert.True(t, ev.Usage.Has || ev.EventType == "system", "counted")
		}
	})
}

func TestDialectIsTheFirstReadableLine(t *testing.T) {
	_, st := run(t, New(), mainPath, "not json", valid["summary"], stream["system"])
	assert.True(t, st.decided)
	assert.False(t, st.stream)
	for _, first := range []string{stream["system"], valid["result"], valid["stream_event"], stream["user"]} {
		_, st = run(t, New(), mainPath, "", first, valid["user"])
		assert.True(t, st.stream, first)
	}
	evs, _ := run(t, New(), mainPath, stream["system"], valid["user"])
	assert.Equal(t, []string{"session_id: required field missing"}, formattest.Violations(&evs[1]), "a stream-json file's lines are judged as stream-json")
	assert.True(t, evs[1].HasTime, "a readable timestamp is still read")
}

// response is an assistant line of response id under requestId req with
// the given output and cache counts.
func response(n int, id, req string, in, out, cc, cr int) string {
	return reply(uid(n), "", id, req, textBlock, "null", usageOf(in, out, cc, cr))
}

func TestUsageDeltas(t *testing.T) {
	u := func(in, out, cr, cw int64) format.Usage {
		return format.Usage{Input: in, Output: out, CacheRead: cr, CacheWrite: cw, Has: true}
	}
	for _, c := range []struct {
		name  string
		lines []string
		want  []format.Usage
		notes [][]string
	}{
		{"output grows", []string{response(1, "m", "r", 3, 1, 100, 1000), response(2, "m", "r", 3, 9, 100, 1000), response(3, "m", "r", 3, 310, 100, 1000)},
			[]format.Usage{u(1103, 1, 1000, 100), u(0, 8, 0, 0), u(0, 301, 0, 0)}, [][]string{nil, nil, nil}},
		{"same usage twice: nothing the second time", []string{response(1, "m", "r", 3, 97, 0, 0), response(2, "m", "r", 3, 97, 0, 0)},
			[]format.Usage{u(3, 97, 0, 0), {}}, [][]string{nil, nil}},
		{"regression", []string{response(1, "m", "r", 3, 310, 0, 0), response(2, "m", "r", 3, 9, 0, 0)},
			[]format.Usage{u(3, 310, 0, 0), {}}, [][]string{nil, {"usage_regression(output 310 → 9)"}}},
		{"regression of two, growth of one", []string{response(1, "m", "r", 3, 310, 50, 500), response(2, "m", "r", 3, 400, 40, 400)},
			[]format.Usage{u(553, 310, 500, 50), u(0, 90, 0, 0)},
			[][]string{nil, {"usage_regression(input 553 → 443, cache_read 500 → 400, cache_write 50 → 40)"}}},
		{"another response", []string{response(1, "m1", "r1", 3, 10, 0, 0), response(2, "m2", "r2", 3, 10, 0, 0)},
			[]format.Usage{u(3, 10, 0, 0), u(3, 10, 0, 0)}, [][]string{nil, nil}},
		{"replay under another requestId", []string{response(1, "m", "r1", 3, 10, 0, 0), response(2, "m", "r2", 3, 20, 0, 0)},
			[]format.Usage{u(3, 10, 0, 0), {}}, [][]string{nil, {"response_replayed"}}},
		{"a first line without requestId", []string{strings.Replace(response(1, "m", "r1", 3, 10, 0, 0), `"requestId":"r1",`, "", 1),
			response(2, "m", "r2", 3, 20, 0, 0), response(3, "m", "r3", 3, 30, 0, 0)},
			[]format.Usage{u(3, 10, 0, 0), u(0, 10, 0, 0), {}}, [][]string{nil, nil, {"response_replayed"}}},
		{"all zero: the first line ships", []string{response(1, "m", "r", 0, 0, 0, 0), response(2, "m", "r", 0, 0, 0, 0)},
			[]format.Usage{{Has: true}, {}}, [][]string{nil, nil}},
		{"a schema-invalid line does not advance", []string{
			strings.Replace(response(1, "m", "r", 3, 10, 0, 0), `"model":"claude-sonnet-4-5-20250929",`, "", 1), response(2, "m", "r", 3, 10, 0, 0)},
			[]format.Usage{{}, u(3, 10, 0, 0)}, [][]string{nil, nil}},
		{"synthetic lines count nothing", []string{strings.Replace(response(1, "m", "r", 3, 10, 0, 0), "claude-sonnet-4-5-20250929", "<synthetic>", 1),
			response(2, "m", "r", 3, 10, 0, 0)},
			[]format.Usage{{}, u(3, 10, 0, 0)}, [][]string{nil, nil}},
		{"fork copies count nothing", []string{strings.Replace(response(1, "m", "r", 3, 10, 0, 0), sessionID, otherID, 1), response(2, "m", "r", 3, 10, 0, 0)},
			[]format.Usage{{}, u(3, 10, 0, 0)}, [][]string{{"session_id_mismatch(" + otherID + ")"}, nil}},
		{"a line without usage", []string{reply(uid(1), "", "m", "r", textBlock, "null", ""), response(2, "m", "r", 3, 10, 0, 0)},
			[]format.Usage{{}, u(3, 10, 0, 0)}, [][]string{nil, nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, _ := run(t, New(), mainPath, c.lines...)
			for i := range evs {
				assert.Equal(t, c.want[i], evs[i].Usage, "line %d", i+1)
				assert.Equal(t, c.notes[i], formattest.Notes(&evs[i]), "line %d", i+1)
			}
		})
	}
}

func TestOneHourCacheDeltas(t *testing.T) {
	split := func(n, cc, m5, h1 int) string {
		return reply(uid(n), "", "m", "r", textBlock, "null",
			fmt.Sprintf(`{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":%d,"ephemeral_1h_input_tokens":%d}}`, cc, m5, h1))
	}
	evs, _ := run(t, New(), mainPath, split(1, 100, 100, 0), split(2, 100, 0, 100))
	assert.Equal(t, format.Usage{Input: 101, Output: 1, CacheWrite: 100, Has: true}, evs[0].Usage)
	assert.Equal(t, format.Usage{CacheWrite1h: 100, Has: true}, evs[1].Usage, "each counter on its own: summed, the response is 100 written, 100 of them for an hour")
	assert.Empty(t, formattest.Notes(&evs[1]))
}

// TestUsageWithoutState: judged without its file's state (the pipeline
// could not rebuild it), a line cannot tell what its response's other
// lines counted: it ships no usage and says so, never the whole usage of
// every split line (2 lines of one response would count it twice).
func TestUsageWithoutState(t *testing.T) {
	for i := range 2 {
		ev := judgeStateless(response(i, "m", "r", 3, 10, 0, 0))
		assert.False(t, ev.Usage.Has, "no usage without the state")
		assert.Equal(t, []string{"usage_unverified"}, formattest.Notes(&ev))
		assert.NotEmpty(t, ev.Model, "the response is still read")
	}
}

// TestWithdraw: a line the pipeline will not ship (too long) gives back
// what it counted, and the response's next line ships it; withdrawing
// twice, or after a line that counted nothing, changes nothing.
func TestWithdraw(t *testing.T) {
	f := New()
	p, _ := f.Claim(mainPath)
	st := f.NewState(p).(*State)
	evs := judgeAll(st, f, response(1, "m", "r", 3, 300, 100, 1000))
	assert.Equal(t, int64(300), evs[0].Usage.Output)
	st.Withdraw()
	st.Withdraw()
	evs = judgeAll(st, f, response(2, "m", "r", 3, 310, 100, 1000))
	assert.Equal(t, format.Usage{Input: 1103, Output: 310, CacheRead: 1000, CacheWrite: 100, Has: true}, evs[0].Usage,
		"the whole usage: the withdrawn line counted nothing")
	// A later line that grows the response, withdrawn: the growth comes
	// back with the line after it.
	evs = judgeAll(st, f, response(3, "m", "r", 3, 320, 100, 1000))
	assert.Equal(t, int64(10), evs[0].Usage.Output)
	st.Withdraw()
	evs = judgeAll(st, f, response(4, "m", "r", 3, 330, 100, 1000))
	assert.Equal(t, format.Usage{Output: 20, Has: true}, evs[0].Usage)
	// After a line that counted nothing (a user line), nothing to undo.
	judgeAll(st, f, response(5, "m", "r", 3, 330, 100, 1000))
	st.Withdraw()
	evs = judgeAll(st, f, response(6, "m", "r", 3, 330, 100, 1000))
	assert.False(t, evs[0].Usage.Has, "the response stays counted at 330")
}

// TestWithdrawCorruptLine: withdrawing a line that counted nothing
// because it is corrupt (cut short) undoes nothing: the line before it
// shipped its growth, which the response's next line does not ship again.
func TestWithdrawCorruptLine(t *testing.T) {
	f := New()
	p, _ := f.Claim(mainPath)
	st := f.NewState(p).(*State)
	judgeAll(st, f, response(1, "m", "r", 3, 300, 100, 1000), response(2, "m", "r", 3, 310, 100, 1000))
	for _, cut := range []string{`{"type":"assistant","message":{"id":"m","us`, `{"parentUuid":null}`} {
		evs := judgeAll(st, f, cut)
		require.Equal(t, integrity.Corrupt, evs[0].Outcome)
		st.Withdraw()
	}
	evs := judgeAll(st, f, response(3, "m", "r", 3, 320, 100, 1000))
	assert.Equal(t, format.Usage{Output: 10, Has: true}, evs[0].Usage, "the growth past 310 only")
}

func TestEmbeddedProgressUsageIsNeverRead(t *testing.T) {
	l := line("progress", uid(2), "", `"data":{"type":"agent_progress","message":{"type":"assistant","message":{"id":"m","model":"claude-haiku-4-5","usage":{"input_tokens":900,"output_tokens":70}}}}`)
	ev := judgeOne(l)
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.False(t, ev.Usage.Has)
	assert.Nil(t, ev.Model)
}

// writeLayout writes a main transcript and returns the path its subagent
// file would have (not written).
func writeLayout(t *testing.T, main string) string {
	dir := t.TempDir()
	path := filepath.Join(dir, project, sessionID, "subagents", "agent-a7f3e21.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	m, ok := MainTranscript(path)
	require.True(t, ok)
	require.NoError(t, os.WriteFile(m, []byte(main), 0o644))
	return path
}

func loaded(t *testing.T, f *Format, path string) *State {
	p, ok := f.Claim(path)
	require.True(t, ok)
	st := f.NewState(p).(*State)
	st.Load(path)
	return st
}

func TestReplaysOfTheMainTranscript(t *testing.T) {
	main := strings.Join([]string{prompt(uid(1), "", "go"), response(2, "msg_main", "req_main", 3, 50, 0, 0), valid["summary"], "torn {"}, "\n") + "\n"
	path := writeLayout(t, main)
	f := New()
	st := loaded(t, f, path)
	side := func(l string) string { return strings.Replace(l, `"isSidechain":false`, `"isSidechain":true`, 1) }
	evs := judgeAll(st, f,
		side(strings.Replace(response(10, "msg_main", "req_main", 3, 50, 0, 0), `"parentUuid":null`, `"parentUuid":"`+uid(2)+`"`, 1)),
		side(response(11, "msg_own", "req_own", 3, 20, 0, 0)),
		side(prompt(uid(12), uid(99), "x")),
		side(prompt(uid(2), "", "x")),
	)
	assert.Equal(t, []string{"response_replayed"}, formattest.Notes(&evs[0]), "counted in the main transcript; its parent is known there")
	assert.False(t, evs[0].Usage.Has)
	assert.True(t, evs[1].Usage.Has)
	assert.Zero(t, evs[1].NoteCount)
	assert.Equal(t, []string{"parent_missing(" + uid(99) + ")"}, formattest.Notes(&evs[2]))
	assert.Zero(t, evs[3].NoteCount, "a uuid of the main transcript is no repeat in this file")
}

func TestLoadIsDefensive(t *testing.T) {
	f := New()
	t.Run("no main transcript", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), project, sessionID, "subagents", "agent-a7f3e21.jsonl")
		st := loaded(t, f, path)
		assert.Nil(t, st.mainResponses)
		assert.Nil(t, st.uuids)
	})
	t.Run("a directory in its place", func(t *testing.T) {
		path := writeLayout(t, "")
		m, _ := MainTranscript(path)
		require.NoError(t, os.Remove(m))
		require.NoError(t, os.Mkdir(m, 0o755))
		st := loaded(t, f, path)
		assert.Nil(t, st.mainResponses)
	})
	t.Run("a main transcript or legacy file loads nothing", func(t *testing.T) {
		path := writeLayout(t, response(2, "msg_main", "r", 1, 1, 0, 0)+"\n")
		m, _ := MainTranscript(path)
		assert.Nil(t, loaded(t, f, m).mainResponses)
		legacy := filepath.Join(filepath.Dir(m), "agent-x.jsonl")
		assert.Nil(t, loaded(t, f, legacy).mainResponses)
	})
	t.Run("half-written last line, garbage, long lines", func(t *testing.T) {
		long := response(3, "msg_long", "r", 1, 1, 0, 0)
		long = strings.Replace(long, `"text":"Done."`, `"text":"`+strings.Repeat("x", 200<<10)+`"`, 1)
		main := "\x00garbage\n" + long + "\n" + response(4, "msg_torn", "r", 1, 1, 0, 0)
		st := loaded(t, f, writeLayout(t, main))
		assert.Contains(t, st.mainResponses, hash([]byte("msg_long")))
		assert.NotContains(t, st.mainResponses, hash([]byte("msg_torn")), "not whole")
	})
	t.Run("a line over maxSideLine is skipped, not buffered whole", func(t *testing.T) {
		huge := strings.Replace(response(3, "msg_huge", "r", 1, 1, 0, 0), `"text":"Done."`, `"text":"`+strings.Repeat("x", maxSideLine+1)+`"`, 1)
		main := huge + "\n" + response(4, "msg_after", "r", 1, 1, 0, 0) + "\n"
		st := loaded(t, f, writeLayout(t, main))
		assert.NotContains(t, st.mainResponses, hash([]byte("msg_huge")))
		assert.Contains(t, st.mainResponses, hash([]byte("msg_after")), "the next line is read")
	})
	t.Run("MaxMainScan", func(t *testing.T) {
		main := response(2, "msg_a", "r", 1, 1, 0, 0) + "\n" + response(3, "msg_b", "r", 1, 1, 0, 0) + "\n"
		path := writeLayout(t, main)
		small, err := NewWith(Config{MaxTrackedIDs: 100, MaxMainScan: int64(strings.Index(main, "\n") + 10)})
		require.NoError(t, err)
		st := loaded(t, small, path)
		assert.Len(t, st.mainResponses, 1)
		none, err := NewWith(Config{MaxTrackedIDs: 100, MaxMainScan: 0})
		require.NoError(t, err)
		assert.Nil(t, loaded(t, none, path).mainResponses)
	})
}

func TestMemoryIsBounded(t *testing.T) {
	f, err := NewWith(Config{MaxTrackedIDs: 3, MaxMainScan: 1 << 20})
	require.NoError(t, err)
	var lines []string
	for i := 1; i <= 6; i++ {
		lines = append(lines, reply(uid(i), "", fmt.Sprintf("m%d", i), "r", toolUse(fmt.Sprintf("toolu_%d", i), "Bash"), "null", usageOf(1, 1, 0, 0)))
	}
	lines = append(lines,
		prompt(uid(10), uid(99), "parent unknown, but the set is full"),
		prompt(uid(1), "", "a tracked uuid repeats"),
		userBlocks(uid(11), "", toolResult("toolu_zz")),
		response(12, "m6", "r", 1, 1, 0, 0),
	)
	evs, st := run(t, f, mainPath, lines...)
	assert.Len(t, st.uuids, 3)
	assert.Len(t, st.tools, 3)
	assert.Len(t, st.responses, 3)
	assert.Equal(t, 3, st.open.Len())
	assert.Equal(t, []string{"continuity_unverified"}, formattest.Notes(&evs[3]), "once, when the first id is not tracked")
	for i := 4; i < len(evs); i++ {
		if i == 7 {
			assert.Equal(t, []string{"uuid_repeat"}, formattest.Notes(&evs[i]), "still true")
			continue
		}
		assert.Zero(t, evs[i].NoteCount, "line %d: %v", i+1, formattest.Notes(&evs[i]))
	}
	assert.Equal(t, format.Usage{Input: 1, Output: 1, Has: true}, evs[len(evs)-1].Usage, "an untracked response ships its whole usage again")
	assert.Equal(t, "3 more tool_use ids were never answered", st.Open()[3])
}

// TestLoadKeepsWhatAMainTranscriptHolds: the subagents of one session
// learn the same facts of their main transcript, read once while it is
// unchanged and again once it changed (grown, or rewritten in place).
func TestLoadKeepsWhatAMainTranscriptHolds(t *testing.T) {
	f, err := NewWith(Config{MaxTrackedIDs: 3, MaxMainScan: DefaultConfig().MaxMainScan})
	require.NoError(t, err)
	lines := []string{prompt(uid(1), "", "go"), response(2, "msg_a", "req_a", 3, 50, 0, 0), response(3, "msg_b", "req_b", 3, 50, 0, 0), prompt(uid(5), "", "more")}
	path := writeLayout(t, strings.Join(lines, "\n")+"\n")
	main, _ := MainTranscript(path)
	sibling := filepath.Join(filepath.Dir(path), "agent-b8e4f32.jsonl")

	first := loaded(t, f, path)
	fi, err := os.Stat(main)
	require.NoError(t, err)
	key, ok := first.factsKey(main, fi)
	require.True(t, ok)
	_, kept := mainFacts.get(key)
	require.True(t, kept, "the read is kept")
	second := loaded(t, f, sibling)
	assert.Equal(t, first.uuids, second.uuids)
	assert.Equal(t, first.mainResponses, second.mainResponses)
	assert.True(t, second.uuidsFull, "the bound is reached the same way")

	grown := append(lines, response(4, "msg_c", "req_c", 3, 50, 0, 0))
	require.NoError(t, os.WriteFile(main, []byte(strings.Join(grown, "\n")+"\n"), 0o644))
	assert.Contains(t, loaded(t, f, sibling).mainResponses, hash([]byte("msg_c")), "a grown file is read again")

	same := strings.Replace(strings.Join(grown, "\n")+"\n", "msg_c", "msg_d", 1)
	require.NoError(t, os.WriteFile(main, []byte(same), 0o644))
	later := fi.ModTime().Add(time.Hour)
	require.NoError(t, os.Chtimes(main, later, later))
	st := loaded(t, f, sibling)
	assert.Contains(t, st.mainResponses, hash([]byte("msg_d")), "a file rewritten to the same size is read again")
	assert.NotContains(t, st.mainResponses, hash([]byte("msg_c")))
}

// TestFactsCacheIsBounded: the newest reads are kept, one per main
// transcript, and a read of too many facts is not.
func TestFactsCacheIsBounded(t *testing.T) {
	c := &factsCache{byKey: map[string]factsEntry{}}
	for i := range mainFactsKept + 5 {
		c.put(factsKey{path: strconv.Itoa(i)}, []sideFact{{h: uint64(i)}})
		c.put(factsKey{path: strconv.Itoa(i), size: 1}, []sideFact{{h: uint64(i)}})
	}
	assert.Len(t, c.byKey, mainFactsKept)
	assert.Len(t, c.order, mainFactsKept)
	_, ok := c.get(factsKey{path: "4"})
	assert.False(t, ok, "the oldest are gone")
	_, ok = c.get(factsKey{path: strconv.Itoa(mainFactsKept + 4)})
	assert.False(t, ok, "the read that replaced it is another")
	facts, ok := c.get(factsKey{path: strconv.Itoa(mainFactsKept + 4), size: 1})
	assert.True(t, ok)
	assert.Equal(t, []sideFact{{h: uint64(mainFactsKept + 4)}}, facts)
	c.put(factsKey{path: "huge"}, make([]sideFact, maxKeptFacts+1))
	_, ok = c.get(factsKey{path: "huge"})
	assert.False(t, ok)
}

// TestLoadKeepsNoReadOverTheBound: a main transcript of more facts than
// maxKeptFacts is learnt as before, and its read is not kept (nor held
// whole while it is read).
func TestLoadKeepsNoReadOverTheBound(t *testing.T) {
	var lines []string
	for i := range maxKeptFacts/2 + 1 { // a uuid and a response each
		lines = append(lines, response(i+1, fmt.Sprintf("msg_%d", i), "r", 1, 1, 0, 0))
	}
	path := writeLayout(t, strings.Join(lines, "\n")+"\n")
	main, _ := MainTranscript(path)
	f := New()
	st := loaded(t, f, path)
	assert.Contains(t, st.mainResponses, hash([]byte(fmt.Sprintf("msg_%d", maxKeptFacts/2))))
	fi, err := os.Stat(main)
	require.NoError(t, err)
	key, ok := st.factsKey(main, fi)
	require.True(t, ok)
	_, kept := mainFacts.get(key)
	assert.False(t, kept)
	opened, err := os.Open(main)
	require.NoError(t, err)
	defer opened.Close()
	facts, whole := st.scanMain(opened)
	assert.Nil(t, facts)
	assert.False(t, whole)
}
