package claudecode

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

// faultCorpora are the test corpora with faults.
func faultCorpora(t *testing.T) map[string]*sample.Corpus {
	out := map[string]*sample.Corpus{}
	for name, c := range testCorpora(t) {
		if strings.Contains(string(c.Files[0].Data), `"type":"summary"`) && len(sessionsOf(c)) >= MinFaultSessions {
			out[name] = c
		}
	}
	require.Len(t, out, 4)
	return out
}

// TestFaultScenarios: each fault session carries its faults, whatever
// the seed or the models.
func TestFaultScenarios(t *testing.T) {
	for name, c := range faultCorpora(t) {
		t.Run(name, func(t *testing.T) {
			ss := sessionsOf(c)
			checkLegacy(t, ss[0])
			checkSubagents(t, ss[1])
			checkFork(t, ss[2][0], ss[3][0])
			checkDamaged(t, ss[4][0])
			checkCapturedLost(t, ss[5])
			checkCapturedCut(t, ss[6])
			checkContinued(t, ss[2][0], ss[7][0])
		})
	}
}

// TestEveryAnnotation: between them the fault sessions carry every
// annotation kind the truth knows, each in the session the package
// documentation names, and nothing else is annotated.
func TestEveryAnnotation(t *testing.T) {
	where := map[string][]int{
		AnnCorrupt: {4}, AnnSchemaInvalid: {4}, AnnUnknownType: {4}, AnnParentMissing: {4}, AnnUUIDRepeat: {4},
		AnnToolResultWithoutCall: {4, 5}, AnnSessionIDMismatch: {3}, AnnAgentIDMismatch: {1}, AnnUsageRegression: {0},
		AnnResponseReplayed: {0, 1}, AnnUnknownStopReason: {1}, sample.AnnCountedElsewhere: {7},
	}
	for name, c := range faultCorpora(t) {
		seen := map[string]bool{}
		for i, files := range sessionsOf(c) {
			for _, f := range files {
				for _, l := range f.Lines {
					for _, e := range l.Expect {
						seen[e] = true
						s, ok := where[e]
						require.True(t, ok, "%s: unknown kind %s", name, e)
						assert.Contains(t, s, i, "%s: %s on %s", name, e, l.Text)
					}
				}
			}
		}
		assert.Len(t, seen, len(where), "%s: %v", name, seen)
	}
}

func checkLegacy(t *testing.T, files []sample.File) {
	require.Len(t, files, 2, "the main transcript and the legacy agent file")
	main, legacy := files[0], files[1]
	assert.Equal(t, TypeSummary, main.Lines[0].Type)
	assert.Equal(t, TypeSummary, main.Lines[1].Type)
	assert.Contains(t, main.Lines[3].Text, `"version":"2.0.`)
	assert.NotContains(t, string(main.Data), `"type":"progress"`, "the 2.0 line writes no progress")

	require.True(t, legacyRE.MatchString(legacy.Rel), legacy.Rel)
	assert.Equal(t, main.SessionID, legacy.SessionID, "the session its lines name")
	for _, l := range legacy.Lines {
		assert.Contains(t, l.Text, `"isSidechain":true`)
		assert.Contains(t, l.Text, `"agentId":"`+legacy.AgentID+`"`)
		assert.Empty(t, l.Expect)
	}
	assert.Contains(t, legacy.Lines[0].Text, `"parentUuid":null`, "a subagent starts a conversation")
	assert.Contains(t, string(main.Data), `"agentId":"`+legacy.AgentID+`"`, "the Task result names the agent")

	reg := lineWith(t, main, AnnUsageRegression)
	assert.Equal(t, []string{AnnUsageRegression}, reg.Expect)
	assert.Equal(t, TypeAssistant, reg.Type)
	assert.False(t, reg.Counted, "only the output fell: nothing grew")
	assert.True(t, reg.Valid)

	var replays, answers int
	for i, l := range main.Lines {
		if !strings.Contains(l.Text, `"isSidechain":true`) {
			continue
		}
		assert.Equal(t, main.Lines[i-1].State, l.State, "a sidechain line does not move the session's state")
		switch {
		case slices.Contains(l.Expect, AnnResponseReplayed):
			replays++
			assert.False(t, l.Counted)
		case l.Counted:
			answers++
		}
	}
	assert.Positive(t, replays)
	assert.Positive(t, answers, "the side question's own answer counts")

	n := len(main.Lines)
	last, before := main.Lines[n-1], main.Lines[n-2]
	assert.Contains(t, last.Text, `"model":"<synthetic>"`)
	assert.Contains(t, last.Text, "No response requested.")
	assert.Empty(t, last.Model)
	assert.False(t, last.Counted)
	assert.Contains(t, before.Text, InterruptMarker+"]")
	assert.Equal(t, StateIdle, before.State)
	assert.Equal(t, StateIdle, last.State)
	assert.Nil(t, main.PartialTail)
}

func checkSubagents(t *testing.T, files []sample.File) {
	require.Len(t, files, 4, "the main transcript, two Task subagents, a /btw subagent")
	main := files[0]
	assert.Equal(t, []string{TypeQueueOperation, TypeQueueOperation, TypeAttachment}, []string{main.Lines[0].Type, main.Lines[1].Type, main.Lines[2].Type})
	var progress int
	for _, l := range main.Lines {
		if l.Type == TypeProgress && strings.Contains(l.Text, `"type":"agent_progress"`) {
			progress++
			assert.Contains(t, l.Text, `"usage":{`, "the subagent's message, usage included")
			assert.False(t, l.Counted)
			assert.Empty(t, l.Model)
		}
	}
	assert.Positive(t, progress)
	subs := files[1:]
	for _, f := range subs {
		require.True(t, subagentRE.MatchString(f.Rel), f.Rel)
		assert.Equal(t, main.SessionID, f.SessionID)
	}
	mismatch := lineWith(t, subs[1], AnnAgentIDMismatch)
	assert.Equal(t, []string{AnnAgentIDMismatch}, mismatch.Expect)
	assert.NotContains(t, mismatch.Text, `"agentId":"`+subs[1].AgentID+`"`)
	assert.True(t, mismatch.Counted, "a resumed agent's answer counts")

	btw := subs[2]
	assert.NotContains(t, btw.Lines[0].Text, `"parentUuid":null`)
	assert.Empty(t, btw.Lines[0].Expect, "its parent is in the main transcript")
	replay := lineWith(t, btw, AnnResponseReplayed)
	assert.False(t, replay.Counted)
	var u lineUsage
	require.NoError(t, json.Unmarshal([]byte(replay.Text), &u))
	assert.Contains(t, string(main.Data), `"id":"`+u.Message.ID+`"`, "the replayed response is the main transcript's")
	assert.NotContains(t, string(main.Data), `"requestId":"`+u.RequestID+`"`, "under another requestId")
	answer := btw.Lines[slices.IndexFunc(btw.Lines, func(l sample.Line) bool { return l.Offset == replay.Offset })+1:]
	assert.True(t, slices.ContainsFunc(answer, func(l sample.Line) bool { return l.Counted }), "the side question's answer counts")
	assert.Contains(t, string(main.Data), `"stop_reason":"end_turn"`)

	boundary := -1
	for i, l := range main.Lines {
		if strings.Contains(l.Text, `"subtype":"compact_boundary"`) {
			boundary = i
		}
	}
	require.Positive(t, boundary)
	assert.True(t, strings.HasPrefix(main.Lines[boundary].Text, `{"parentUuid":null,"logicalParentUuid":"`))
	assert.Empty(t, main.Lines[boundary].Expect)
	assert.Contains(t, main.Lines[boundary+1].Text, `"isCompactSummary":true`)
	assert.Equal(t, main.Lines[boundary-2].State, main.Lines[boundary+2].State, "compaction and commands do not move the state")

	last := lastOf(main, TypeAssistant)
	assert.Equal(t, []string{AnnUnknownStopReason}, last.Expect)
	assert.Equal(t, StateIdle, last.State)
	assert.True(t, last.Valid)
}

// checkContinued: session 7 starts with session 2's conversation written
// again under its own id; the responses copied are one bill with the
// original's: the original counts them (its path sorts first), the
// copies expect counted_elsewhere and hold what they would ship.
func checkContinued(t *testing.T, orig, cont sample.File) {
	assert.Less(t, orig.Rel, cont.Rel, "the original sorts first")
	origBills := map[string]bool{}
	for _, l := range orig.Lines {
		if l.Bill != "" {
			assert.True(t, l.Counted, "the original counts %s", l.Bill)
			origBills[l.Bill] = true
		}
	}
	require.NotEmpty(t, origBills, "the original's responses are billed")
	copies := 0
	for _, l := range cont.Lines {
		assert.NotContains(t, l.Expect, AnnSessionIDMismatch, "written under its own id")
		if l.Bill == "" {
			continue
		}
		copies++
		assert.True(t, origBills[l.Bill], "a copy of an original response")
		assert.False(t, l.Counted)
		assert.Equal(t, []string{sample.AnnCountedElsewhere}, l.Expect)
		assert.Positive(t, l.PromptTokens+l.CompletionTokens, "what it ships when it counts")
	}
	assert.Positive(t, copies)
	assert.Contains(t, string(cont.Data), `"sessionId":"`+cont.SessionID+`"`)
}

func checkFork(t *testing.T, orig, fork sample.File) {
	assert.Less(t, fork.Rel, orig.Rel, "the fork sorts first")
	assert.GreaterOrEqual(t, orig.SessionID[0], byte('8'))
	assert.Equal(t, strings.Split(orig.Rel, "/")[0], strings.Split(fork.Rel, "/")[0], "same project")
	origText := map[string]bool{}
	for _, l := range orig.Lines {
		origText[l.Text] = true
		assert.Empty(t, l.Expect, "the original is clean")
	}
	copied := 0
	for _, l := range fork.Lines {
		if !slices.Contains(l.Expect, AnnSessionIDMismatch) {
			break
		}
		copied++
		assert.Equal(t, []string{AnnSessionIDMismatch}, l.Expect)
		assert.True(t, origText[l.Text], "a byte-identical copy: %s", l.Text)
		assert.False(t, l.Counted)
		assert.True(t, l.Valid)
	}
	assert.Greater(t, copied, 5)
	own := fork.Lines[copied:]
	require.NotEmpty(t, own)
	counted := 0
	for _, l := range own {
		assert.Empty(t, l.Expect, l.Text)
		if l.Counted {
			counted++
		}
	}
	assert.Positive(t, counted)

	// The original is resumed in place: a break, then an upgraded CLI.
	var prev time.Time
	var gap time.Duration
	versions := map[bool]bool{}
	for _, l := range orig.Lines {
		_, m := decodeOrdered(t, l.Text)
		if ts, ok := m["timestamp"].(string); ok {
			at, _ := time.Parse(time.RFC3339Nano, ts)
			if !prev.IsZero() {
				gap = max(gap, at.Sub(prev))
			}
			prev = at
		}
		if v, ok := m["version"].(string); ok {
			versions[versionBefore(v, 2, 1, 97)] = true
		}
	}
	assert.GreaterOrEqual(t, gap, 18*time.Minute)
	assert.Len(t, versions, 2, "both eras in one file")
}

func checkDamaged(t *testing.T, f sample.File) {
	require.NotNil(t, f.PartialTail)
	assert.True(t, strings.HasPrefix(string(f.PartialTail), `{"parentUuid":"`), "%s", f.PartialTail)
	last := f.Lines[len(f.Lines)-1]
	assert.Equal(t, TypeAssistant, last.Type)
	assert.Contains(t, last.Text, `"type":"tool_use"`)
	assert.Equal(t, StateActing, last.State, "an unanswered call")

	var corrupt []sample.Line
	for i, l := range f.Lines {
		if l.Corrupt {
			corrupt = append(corrupt, l)
			assert.Empty(t, l.State, "nothing is learned of a corrupt line")
			if i+1 < len(f.Lines) && !f.Lines[i+1].Corrupt && f.Lines[i+1].Type == TypeProgress {
				assert.Equal(t, f.Lines[i-1].State, f.Lines[i+1].State, "the state goes on past a corrupt line")
			}
		}
	}
	require.Len(t, corrupt, 3)
	assert.True(t, strings.HasPrefix(corrupt[0].Text, `{"parentUu`), "a progress line's start…")
	assert.Contains(t, corrupt[0].Text, `"type":"bash_progress"`, "…then the next progress line")
	assert.Equal(t, `"[object Object]"`, corrupt[1].Text)
	assert.True(t, strings.HasPrefix(corrupt[2].Text, `{"sessionId":"`))
	i := slices.IndexFunc(f.Lines, func(l sample.Line) bool { return l.Text == corrupt[0].Text })
	assert.Equal(t, []string{AnnParentMissing}, f.Lines[i+1].Expect, "the torn line swallowed the result's parent")

	lost := lineWith(t, f, AnnToolResultWithoutCall)
	assert.Equal(t, []string{AnnParentMissing, AnnToolResultWithoutCall}, lost.Expect)
	assert.Equal(t, StateThinking, lost.State)

	rep := lineWith(t, f, AnnUUIDRepeat)
	j := slices.IndexFunc(f.Lines, func(l sample.Line) bool { return l.Offset == rep.Offset })
	assert.Equal(t, f.Lines[j-1].Text, rep.Text, "written twice")
	assert.False(t, rep.Counted)
	assert.Equal(t, []string{AnnUUIDRepeat}, rep.Expect)

	unknown := lineWith(t, f, AnnUnknownType)
	assert.Equal(t, TypeUnknown, unknown.Type)
	assert.False(t, unknown.Valid)

	var invalid []string
	for _, l := range f.Lines {
		if slices.Contains(l.Expect, AnnSchemaInvalid) {
			assert.Equal(t, []string{AnnSchemaInvalid}, l.Expect)
			assert.False(t, l.Counted)
			_, m := decodeOrdered(t, l.Text)
			msg := m["message"].(map[string]any)
			usage := msg["usage"].(map[string]any)
			switch {
			case msg["model"] == nil:
				invalid = append(invalid, "no model")
				assert.Empty(t, l.Model)
			case msg["id"] == nil:
				invalid = append(invalid, "no id")
			default:
				_, isString := usage["output_tokens"].(string)
				assert.True(t, isString, l.Text)
				invalid = append(invalid, "string output")
			}
		}
	}
	assert.ElementsMatch(t, []string{"no model", "no id", "string output"}, invalid)

	nullModel := slices.IndexFunc(f.Lines, func(l sample.Line) bool { return strings.Contains(l.Text, `"model":null`) })
	require.Positive(t, nullModel)
	assert.True(t, f.Lines[nullModel].Counted, "journalship counts it; ccusage drops it")

	apiErr := slices.IndexFunc(f.Lines, func(l sample.Line) bool { return strings.Contains(l.Text, `"isApiErrorMessage":true`) })
	require.Positive(t, apiErr)
	assert.Empty(t, f.Lines[apiErr].Model)
	assert.False(t, f.Lines[apiErr].Counted)
	assert.Equal(t, StateIdle, f.Lines[apiErr].State)

	refused := slices.IndexFunc(f.Lines, func(l sample.Line) bool { return strings.Contains(l.Text, InterruptMarker+" for tool use]") })
	require.Positive(t, refused)
	assert.Equal(t, StateIdle, f.Lines[refused].State)
	assert.Contains(t, f.Lines[refused-1].Text, "The user doesn't want to proceed")
	assert.Equal(t, StateThinking, f.Lines[refused-1].State)

	models := map[string]bool{}
	for _, l := range f.Lines {
		if l.Counted {
			models[l.Model] = true
		}
	}
	if !strings.Contains(string(f.Data), "<command-args>"+lastOf(f, TypeAssistant).Model) {
		return // one model only: /model has nothing to switch to
	}
	assert.Len(t, models, 2, "/model switched")
}

// lineWith returns the file's first line expecting kind e.
func lineWith(t *testing.T, f sample.File, e string) sample.Line {
	t.Helper()
	for _, l := range f.Lines {
		if slices.Contains(l.Expect, e) {
			return l
		}
	}
	require.Failf(t, "missing annotation", "%s: no line expects %s", f.Rel, e)
	return sample.Line{}
}

func lastOf(f sample.File, typ string) sample.Line {
	for i := len(f.Lines) - 1; i >= 0; i-- {
		if f.Lines[i].Type == typ {
			return f.Lines[i]
		}
	}
	return sample.Line{}
}
