package claudecode

import (
	"fmt"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	sonnet = "claude-sonnet-4-5-20250929"
	haiku  = "claude-haiku-4-5-20251001"
)

// Lines of a capture made with --include-partial-messages, in the shapes
// CLI 2.1.44 writes (../shared/realdata/claude-code/stream-json).

func sjInit() string {
	return `{"type":"system","subtype":"init","cwd":"/w","model":"` + sonnet + `","tools":["Bash"],"session_id":"` + sessionID + `"}`
}

func sjEvent(parent, event string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"stream_event","event":` + event + `,"session_id":"` + sessionID + `","parent_tool_use_id":` + p + `}`
}

func sjStart(parent, id, model string, in, out, cw, cr int) string {
	return sjEvent(parent, fmt.Sprintf(`{"type":"message_start","message":{"model":"%s","id":"%s","type":"message","role":"assistant","content":[],"stop_reason":null,`+
		`"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":%d},"output_tokens":%d}}}`,
		model, id, in, cw, cr, cw, out))
}

func sjDelta(parent string, in, out, cw, cr int) string {
	return sjEvent(parent, fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},`+
		`"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}}`, in, cw, cr, out))
}

func sjAssistant(parent, id, model string, in, out, cw, cr int) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":"assistant","message":{"id":"%s","type":"message","role":"assistant","model":"%s","content":[{"type":"text","text":"x"}],"stop_reason":null,`+
		`"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":%d},"output_tokens":%d}},`+
		`"parent_tool_use_id":%s,"session_id":"%s"}`, id, model, in, cw, cr, cw, out, p, sessionID)
}

func sjResult(cost float64, h1 int, models string) string {
	return fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"%s","total_cost_usd":%g,`+
		`"usage":{"cache_creation":{"ephemeral_1h_input_tokens":%d}},"modelUsage":{%s}}`, sessionID, cost, h1, models)
}

func mu(model string, in, out, cr, cw int) string {
	return fmt.Sprintf(`"%s":{"inputTokens":%d,"outputTokens":%d,"cacheReadInputTokens":%d,"cacheCreationInputTokens":%d,"costUSD":0.1}`, model, in, out, cr, cw)
}

// byModel sums the usage the events ship, by model.
func byModel(t *testing.T, evs []format.Event) map[string]counters {
	t.Helper()
	out := map[string]counters{}
	for i, ev := range evs {
		require.Equal(t, integrity.Valid, ev.Outcome, "line %d: %v", i+1, ev.Violations)
		if ev.Usage.Has {
			require.NotEmpty(t, ev.Model, "line %d ships usage without a model", i+1)
			c := out[string(ev.Model)]
			u := countersOf(&ev.Usage)
			add(&c, &u)
			out[string(ev.Model)] = c
		}
	}
	return out
}

// TestPartialMessagesCountTheFinalUsage: the message_start snapshot, the
// assistant lines' (snapshot) usage and the message_delta's final usage
// of one response count once, at the final value; the message_delta line
// is the response's llm_response under its model.
func TestPartialMessagesCountTheFinalUsage(t *testing.T) {
	evs, _ := run(t, New(), "/captures/run.jsonl",
		sjInit(),
		sjStart("", "msg_1", sonnet, 3, 1, 3736, 17610),
		sjAssistant("", "msg_1", sonnet, 3, 1, 3736, 17610),
		sjAssistant("", "msg_1", sonnet, 3, 1, 3736, 17610),
		sjDelta("", 3, 192, 3736, 17610),
		sjEvent("", `{"type":"message_stop"}`),
	)
	got := byModel(t, evs)
	assert.Equal(t, counters{3 + 3736 + 17610, 192, 17610, 3736, 3736}, got[sonnet])
	assert.Equal(t, format.RoleLLMResponse, evs[1].Role, "message_start carries the response's first usage")
	assert.Equal(t, format.RoleLLMResponse, evs[4].Role)
	assert.Equal(t, sonnet, string(evs[4].Model), "message_delta names no model: its response's")
	assert.Equal(t, int64(191), evs[4].Usage.Output, "the growth past the snapshot")
	assert.False(t, evs[2].Usage.Has || evs[3].Usage.Has, "the assistant lines add nothing on top")
	assert.Zero(t, evs[4].NoteCount, "a delta without the cache's 5m/1h split is no regression of the one-hour writes")
	assert.Equal(t, format.RoleOther, evs[5].Role)
}

// TestDeltasBelongToTheirStream: a subagent's streaming events
// (parent_tool_use_id) interleaved with the main agent's: each
// message_delta counts under its own stream's response and model.
func TestDeltasBelongToTheirStream(t *testing.T) {
	evs, _ := run(t, New(), "/captures/run.jsonl",
		sjStart("", "msg_main", sonnet, 5, 1, 0, 100),
		sjStart("toolu_task", "msg_sub", haiku, 7, 1, 0, 50),
		sjDelta("", 5, 40, 0, 100),
		sjDelta("toolu_task", 7, 9, 0, 50),
	)
	got := byModel(t, evs)
	assert.Equal(t, counters{105, 40, 100, 0, 0}, got[sonnet])
	assert.Equal(t, counters{57, 9, 50, 0, 0}, got[haiku])
}

// TestOldDeltaCarriesOnlyOutput: the API once sent only output_tokens in
// message_delta; the prompt comes from message_start.
func TestOldDeltaCarriesOnlyOutput(t *testing.T) {
	evs, _ := run(t, New(), "/captures/run.jsonl",
		sjStart("", "msg_1", sonnet, 5, 1, 0, 100),
		sjEvent("", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":77}}`),
	)
	assert.Equal(t, counters{105, 77, 100, 0, 0}, byModel(t, evs)[sonnet])
	assert.Zero(t, evs[1].NoteCount, "missing counters are no regression")
}

// TestDeltaWithoutStartCountsNothing: nothing names the response.
func TestDeltaWithoutStartCountsNothing(t *testing.T) {
	evs, _ := run(t, New(), "/captures/run.jsonl", sjDelta("", 5, 40, 0, 100))
	assert.Equal(t, integrity.Valid, evs[0].Outcome)
	assert.False(t, evs[0].Usage.Has)
}

// TestResultTopsUpWhatOnlyItReports: a Haiku call inside the run shows
// only in the result's modelUsage; the result line ships it under that
// model, and the main model, already counted in full, gets nothing more.
func TestResultTopsUpWhatOnlyItReports(t *testing.T) {
	evs, _ := run(t, New(), "/captures/run.jsonl",
		sjInit(),
		sjStart("", "msg_1", sonnet, 3, 1, 3736, 17610),
		sjDelta("", 3, 192, 3736, 17610),
		sjResult(0.05, 3736, mu(sonnet, 3, 192, 17610, 3736)+","+mu(haiku, 2893, 101, 0, 0)),
	)
	res := evs[3]
	assert.Equal(t, format.RoleSessionEnd, res.Role)
	assert.Equal(t, haiku, string(res.Model))
	assert.Equal(t, format.Usage{Input: 2893, Output: 101, Has: true}, res.Usage)
	assert.True(t, res.HasCost)
	got := byModel(t, evs)
	assert.Equal(t, counters{2893, 101, 0, 0, 0}, got[haiku])
	assert.Equal(t, counters{3 + 3736 + 17610, 192, 17610, 3736, 3736}, got[sonnet])
}

// TestResultTopsUpAShortModel: without partial messages an older CLI's
// assistant lines carry a snapshot: the result ships what the run reports
// beyond it (the one-hour writes by the usage's split), and counting
// starts again for the next run of the same capture.
func TestResultTopsUpAShortModel(t *testing.T) {
	evs, _ := run(t, New(), "/captures/run.jsonl",
		sjAssistant("", "msg_1", sonnet, 3, 1, 0, 100),
		sjResult(0.05, 40, mu(sonnet, 3, 90, 100, 40)),
		sjAssistant("", "msg_2", sonnet, 3, 5, 0, 100),
		sjResult(0.05, 0, mu(sonnet, 3, 5, 100, 0)),
	)
	assert.Equal(t, format.Usage{Input: 40, Output: 89, CacheWrite: 40, CacheWrite1h: 40, Has: true}, evs[1].Usage)
	assert.False(t, evs[3].Usage.Has, "the second run's lines showed all it reports")
}

// TestResultReportingLessAddsNothing: a run reporting less than its lines
// showed is not evened out (the pipeline's cost check sees it).
func TestResultReportingLessAddsNothing(t *testing.T) {
	evs, _ := run(t, New(), "/captures/run.jsonl",
		sjStart("", "msg_1", sonnet, 3, 1, 0, 100),
		sjDelta("", 3, 50, 0, 100),
		sjResult(0.05, 0, mu(sonnet, 3, 10, 100, 0)),
	)
	assert.False(t, evs[2].Usage.Has)
}

// TestWithdrawnStreamLineIsToppedUp: a message_delta the pipeline does
// not ship gives its usage back; the result then ships it.
func TestWithdrawnStreamLineIsToppedUp(t *testing.T) {
	f := New()
	st := f.NewState(format.Path{}).(*State)
	judgeAll(st, f, sjStart("", "msg_1", sonnet, 3, 1, 0, 100), sjDelta("", 3, 50, 0, 100))
	st.Withdraw()
	evs := judgeAll(st, f, sjResult(0.05, 0, mu(sonnet, 3, 50, 100, 0)))
	assert.Equal(t, format.Usage{Output: 49, Has: true}, evs[0].Usage)
}

// TestWithdrawnLineLeavesTheHelperToppedUp: with a line of the main
// model withdrawn, both models fall short of the run's report; the result
// ships the helper model's usage, which no line shows, not the withdrawn
// line's (which its line alone counted). Withdrawing only loses that line.
func TestWithdrawnLineLeavesTheHelperToppedUp(t *testing.T) {
	f := New()
	st := f.NewState(format.Path{}).(*State)
	judgeAll(st, f, sjStart("", "msg_1", sonnet, 3, 1, 0, 100), sjDelta("", 3, 50, 0, 100))
	st.Withdraw()
	evs := judgeAll(st, f, sjResult(0.05, 0, mu(sonnet, 3, 50, 100, 0)+","+mu(haiku, 2893, 101, 0, 0)))
	assert.Equal(t, haiku, string(evs[0].Model))
	assert.Equal(t, format.Usage{Input: 2893, Output: 101, Has: true}, evs[0].Usage)
}

// TestStreamEventsSchema: the usage-bearing events are checked like an
// assistant line's usage; other events pass.
func TestStreamEventsSchema(t *testing.T) {
	bad := map[string]string{
		"message_start without message": sjEvent("", `{"type":"message_start"}`),
		"negative output":               sjDelta("", 3, -1, 0, 0),
		"message_start without id":      sjEvent("", `{"type":"message_start","message":{"model":"m","usage":{"input_tokens":1,"output_tokens":1}}}`),
	}
	for name, l := range bad {
		assert.Equal(t, integrity.SchemaInvalid, judgeOne(l).Outcome, name)
	}
	assert.Equal(t, integrity.Valid, judgeOne(sjEvent("", `{"type":"ping"}`)).Outcome)
	ev := judgeStateless(sjDelta("", 3, 50, 0, 100))
	assert.True(t, ev.HasNote(NoteUsageUnverified), "without the state nothing tells what the response counted")
	assert.False(t, ev.Usage.Has)
}

// TestCaptureLinesAllocateNothing: judging a partial-message capture's
// lines, the result's top-up included, allocates nothing once the
// state's buffers grew.
func TestCaptureLinesAllocateNothing(t *testing.T) {
	lines := captureLines()
	f := New()
	j := f.NewJudge()
	st := f.NewState(format.Path{})
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	judgeRun := func() {
		for _, l := range lines {
			a.Reset(1 << 16)
			j.Judge(l, st, a, &ev)
		}
	}
	judgeRun()
	assert.Zero(t, testing.AllocsPerRun(20, judgeRun))
}

func captureLines() [][]byte {
	var out [][]byte
	for _, l := range []string{sjInit(), sjStart("", "msg_1", sonnet, 3, 1, 3736, 17610), sjEvent("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`),
		sjAssistant("", "msg_1", sonnet, 3, 1, 3736, 17610), sjDelta("", 3, 192, 3736, 17610),
		sjResult(0.05, 3736, mu(sonnet, 3, 192, 17610, 3736)+","+mu(haiku, 2893, 101, 0, 0))} {
		out = append(out, []byte(l))
	}
	return out
}
