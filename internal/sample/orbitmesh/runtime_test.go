package orbitmesh

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

// runtimeFaults generates corpora with faults and their truth.
func runtimeFaults(t *testing.T) map[string]struct {
	c     *sample.Corpus
	truth []Session
} {
	t.Helper()
	out := map[string]struct {
		c     *sample.Corpus
		truth []Session
	}{}
	for name, cfg := range map[string]Config{"fixture": FixtureConfig(), "seed7": testConfig(7, 9, true), "seed-3": testConfig(-3, 12, true)} {
		c, truth, err := GenerateWithTruth(cfg)
		require.NoError(t, err, name)
		out[name] = struct {
			c     *sample.Corpus
			truth []Session
		}{c, truth}
	}
	return out
}

// attemptsOf decodes the attempt files of session id.
func attemptsOf(t *testing.T, c *sample.Corpus, id string) []attemptJSON {
	t.Helper()
	var out []attemptJSON
	for _, s := range c.Side {
		if strings.HasPrefix(s.Rel, "sessions/"+AttemptsDirName+"/"+id+"/") {
			var a attemptJSON
			require.NoError(t, json.Unmarshal(s.Data, &a), s.Rel)
			out = append(out, a)
		}
	}
	return out
}

// TestShapes: the fault sessions 0 to 4 are the plan's, 5 to 8 the
// runtime's; clean sessions are mostly the runtime's.
func TestShapes(t *testing.T) {
	_, truth, err := GenerateWithTruth(testConfig(4, 200, true))
	require.NoError(t, err)
	runtime := 0
	for i, s := range truth {
		switch {
		case i < planFaults:
			assert.Equal(t, ShapePlan, s.Shape)
		case i < MinFaultSessions:
			assert.Equal(t, ShapeRuntime, s.Shape)
		case s.Shape == ShapeRuntime:
			runtime++
		}
	}
	assert.InDelta(t, 0.75, float64(runtime)/float64(len(truth)-MinFaultSessions), 0.1)
}

func TestCrashedRuntimeSession(t *testing.T) {
	for name, g := range runtimeFaults(t) {
		f, s := g.c.Files[5], g.truth[5]
		assert.Equal(t, ProviderClaude, s.Provider, name)
		require.NotEmpty(t, f.PartialTail, name)
		assert.True(t, strings.HasPrefix(string(f.PartialTail), `{"seq":`), "the tail is the start of a record")
		assert.False(t, s.Over, name)
		assert.Empty(t, f.EndReason)
		assert.Equal(t, StatusRunning, s.Final)
		a := attemptsOf(t, g.c, f.SessionID)
		require.Len(t, a, 1, name)
		assert.Empty(t, a[0].TerminalReason+a[0].EndedAt, "%s: no recovery has marked the attempt", name)
		var starts, deltas int
		for _, l := range f.Lines {
			if l.Counted && l.PromptTokens > 0 {
				starts++
			} else if l.Counted {
				deltas++
			}
		}
		assert.Equal(t, 2, starts, "%s: two responses started", name)
		assert.Equal(t, 1, deltas, "%s: the stream was cut before the second's message_delta", name)
	}
}

func TestRecoveredRuntimeSession(t *testing.T) {
	for name, g := range runtimeFaults(t) {
		f, s := g.c.Files[6], g.truth[6]
		assert.True(t, s.Over, name)
		assert.Equal(t, ReasonInterrupted, f.EndReason)
		assert.Equal(t, StatusInterruptedStartup, s.Final)
		assert.False(t, s.DocReadable, "%s: the document is half-written", name)
		last := f.Lines[len(f.Lines)-1]
		assert.Contains(t, last.Text, "[recovery] startup recovery: interrupted while running")
		assert.Equal(t, StatusInterruptedStartup, last.State)
		assert.Equal(t, []End{{Line: len(f.Lines) - 1, Reason: ReasonInterrupted, Terminal: true}}, s.Ends, name)
		gaps := 0
		for _, l := range f.Lines {
			for _, e := range l.Expect {
				assert.True(t, gapRE.MatchString(e), e)
				gaps++
			}
		}
		assert.Equal(t, 1, gaps, "%s: one line lost", name)
		a := attemptsOf(t, g.c, f.SessionID)
		require.Len(t, a, 2)
		assert.Equal(t, a[0].BootID, a[1].BootID, "%s: both attempts ran under the boot that died", name)
	}
}

func TestSuspendedRuntimeSession(t *testing.T) {
	for name, g := range runtimeFaults(t) {
		f, s := g.c.Files[7], g.truth[7]
		assert.Equal(t, ProviderACP, s.Provider)
		assert.Equal(t, ReasonCompleted, f.EndReason, name)
		require.Len(t, s.Ends, 2, name)
		resumed := f.Lines[s.Ends[0].Line]
		assert.Contains(t, resumed.Text, "[resume] Resume token accepted")
		assert.Equal(t, End{Line: s.Ends[0].Line, Reason: ReasonInterrupted, Terminal: true}, s.Ends[0], "the suspended attempt ended, its token consumed")
		assert.Equal(t, StatusIdle, resumed.State)
		assert.Equal(t, 1, s.Tokens)
		a := attemptsOf(t, g.c, f.SessionID)
		require.Len(t, a, 2)
		assert.Equal(t, "tool_result", a[0].WaitKind)
		assert.NotEmpty(t, a[0].ResumeTokenID)
		for _, l := range f.Lines {
			assert.False(t, l.Counted, "an ACP agent's usage names no model: %s", l.Text)
		}
	}
}

func TestCancelledRuntimeSession(t *testing.T) {
	for name, g := range runtimeFaults(t) {
		f, s := g.c.Files[8], g.truth[8]
		assert.Equal(t, ReasonCancelled, f.EndReason, name)
		last := f.Lines[len(f.Lines)-1]
		assert.Equal(t, "Run cancelled by user", gjsonContents(t, last.Text))
		assert.Equal(t, []End{{Line: len(f.Lines) - 1, Reason: ReasonCancelled, Terminal: true}}, s.Ends)
		counted := 0
		for _, l := range f.Lines {
			if l.Counted {
				counted++
				assert.Positive(t, l.PromptTokens, "the initial usage stays counted")
			}
		}
		assert.Equal(t, 1, counted, name)
	}
}

// TestTokensByModel: a Claude provider's responses count under their own
// models, the session's and the Task subagents'.
func TestTokensByModel(t *testing.T) {
	c, err := Generate(testConfig(9, 40, false))
	require.NoError(t, err)
	tokens := c.TokensByModel()
	assert.Contains(t, tokens, DefaultModels[1])
	assert.Contains(t, tokens, HelperModel)
	for m, v := range tokens {
		assert.Positive(t, v[0], m)
		assert.Positive(t, v[1], m)
	}
	assert.NotEmpty(t, c.CacheTokensByModel()[DefaultModels[1]])
}

func gjsonContents(t *testing.T, line string) string {
	var r logRecord
	require.NoError(t, json.Unmarshal([]byte(line), &r))
	return r.Contents
}
