package claudecode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

// isCapture tells a stream-json capture from a transcript: it starts
// with the headless run's init line.
func isCapture(f sample.File) bool {
	return len(f.Lines) > 0 && strings.HasPrefix(f.Lines[0].Text, `{"type":"system","subtype":"init",`)
}

// isUsageEvent tells whether a line is a stream_event stating a
// response's usage (message_start or message_delta).
func isUsageEvent(text string) bool {
	return strings.HasPrefix(text, `{"type":"stream_event","event":{"type":"message_start"`) ||
		strings.HasPrefix(text, `{"type":"stream_event","event":{"type":"message_delta"`)
}

// streamLine is a capture line as written (the members the tests read).
type streamLine struct {
	Type   string `json:"type"`
	Parent string `json:"parent_tool_use_id"`
	Event  struct {
		Type    string `json:"type"`
		Message struct {
			ID    string   `json:"id"`
			Model string   `json:"model"`
			Usage apiUsage `json:"usage"`
		} `json:"message"`
		Usage apiUsage `json:"usage"`
	} `json:"event"`
	Message struct {
		ID    string   `json:"id"`
		Usage apiUsage `json:"usage"`
	} `json:"message"`
	ModelUsage map[string]struct {
		In    int64 `json:"inputTokens"`
		Out   int64 `json:"outputTokens"`
		Read  int64 `json:"cacheReadInputTokens"`
		Write int64 `json:"cacheCreationInputTokens"`
	} `json:"modelUsage"`
}

type apiUsage struct {
	In    int64 `json:"input_tokens"`
	Out   int64 `json:"output_tokens"`
	Write int64 `json:"cache_creation_input_tokens"`
	Read  int64 `json:"cache_read_input_tokens"`
}

func decodeStream(t *testing.T, text string) streamLine {
	t.Helper()
	var l streamLine
	require.NoError(t, json.Unmarshal([]byte(text), &l), text)
	return l
}

// TestCapturesCountTheRunsReport: in every capture that ends with its
// result line, the tokens the truth ships add up, per model, to the
// run's own report (modelUsage: the responses at their final usage and
// the helper calls no other line shows); assistant lines, which hold the
// message_start snapshot, ship nothing.
func TestCapturesCountTheRunsReport(t *testing.T) {
	n := 0
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			if !isCapture(f) || f.PartialTail != nil {
				continue
			}
			n++
			got := map[string][2]int64{}
			for _, l := range f.Lines {
				if l.Type == TypeAssistant {
					assert.False(t, l.Counted, "%s %s: an assistant line holds the snapshot", name, f.Rel)
				}
				if l.Counted {
					s := got[l.Model]
					got[l.Model] = [2]int64{s[0] + l.PromptTokens, s[1] + l.CompletionTokens}
				}
			}
			last := f.Lines[len(f.Lines)-1]
			require.Equal(t, TypeResult, last.Type, f.Rel)
			want := map[string][2]int64{}
			for m, u := range decodeStream(t, last.Text).ModelUsage {
				want[m] = [2]int64{u.In + u.Read + u.Write, u.Out}
			}
			assert.Equal(t, want, got, "%s %s", name, f.Rel)
			assert.True(t, last.Counted, "%s %s: the helper's usage ships on the result", name, f.Rel)
			assert.Equal(t, HelperModel, last.Model, "%s %s", name, f.Rel)
			assert.Equal(t, StateIdle, last.State)
		}
	}
	assert.Positive(t, n)
}

// TestCaptureDeltasSumToFinal: per response of a capture, the tokens the
// truth ships on its message_start and message_delta add up to its
// final usage (the message_delta's), the output's first snapshot
// included once.
func TestCaptureDeltasSumToFinal(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			if !isCapture(f) {
				continue
			}
			open := map[string]string{} // stream → response
			shipped, final := map[string][2]int64{}, map[string][2]int64{}
			for _, l := range f.Lines {
				if !isUsageEvent(l.Text) {
					continue
				}
				sl := decodeStream(t, l.Text)
				if sl.Event.Type == "message_start" {
					open[sl.Parent] = sl.Event.Message.ID
				} else {
					u := sl.Event.Usage
					final[open[sl.Parent]] = [2]int64{u.In + u.Read + u.Write, u.Out}
				}
				s := shipped[open[sl.Parent]]
				shipped[open[sl.Parent]] = [2]int64{s[0] + l.PromptTokens, s[1] + l.CompletionTokens}
				assert.True(t, l.Counted, "%s %s: %.100s", name, f.Rel, l.Text)
			}
			assert.Equal(t, final, shipped, "%s %s", name, f.Rel)
		}
	}
}

// TestCapturesInTheDefaultCorpus: the default corpus holds captures with
// subagents streaming beside the main agent, a clean one among them.
func TestCapturesInTheDefaultCorpus(t *testing.T) {
	c, err := Generate(DefaultConfig())
	require.NoError(t, err)
	var captures, nested int
	for _, f := range c.Files {
		if !isCapture(f) {
			continue
		}
		captures++
		if strings.Contains(string(f.Data), `"parent_tool_use_id":"toolu_`) {
			nested++
		}
	}
	assert.GreaterOrEqual(t, captures, 2)
	assert.Positive(t, nested)
}

// checkCapturedLost: session 5's capture; its two subagents' streams
// interleave, the lost tool_use line's result answers an unknown call,
// the result tops up the helper model.
func checkCapturedLost(t *testing.T, files []sample.File) {
	require.Len(t, files, 1, "a capture is one file")
	f := files[0]
	require.True(t, isCapture(f), f.Rel)
	assert.True(t, mainRE.MatchString(f.Rel), "saved where its transcript would be: %s", f.Rel)
	assert.Equal(t, "success", f.EndReason)
	var parents []string
	for i, l := range f.Lines {
		p := decodeStream(t, l.Text).Parent
		if p != "" && (len(parents) == 0 || parents[len(parents)-1] != p) {
			parents = append(parents, p)
		}
		if p != "" {
			assert.Equal(t, f.Lines[i-1].State, l.State, "a subagent's line does not move the state: %.100s", l.Text)
		}
	}
	distinct := map[string]bool{}
	for _, p := range parents {
		distinct[p] = true
	}
	assert.Len(t, distinct, 2, "two subagents")
	assert.Greater(t, len(parents), 2, "their streams interleave")
	lost := lineWith(t, f, AnnToolResultWithoutCall)
	assert.Equal(t, TypeUser, lost.Type)
	assert.Equal(t, StateThinking, lost.State)
	last := f.Lines[len(f.Lines)-1]
	assert.Equal(t, TypeResult, last.Type)
	assert.Equal(t, HelperModel, last.Model)
	assert.True(t, last.Counted)
}

// checkCapturedCut: session 6's capture dies writing its result: the
// run's report, and the helper's usage, never reach the file.
func checkCapturedCut(t *testing.T, files []sample.File) {
	require.Len(t, files, 1)
	f := files[0]
	require.True(t, isCapture(f), f.Rel)
	assert.True(t, strings.HasPrefix(string(f.PartialTail), `{"type":"result"`), "%s", f.PartialTail)
	assert.Empty(t, f.EndReason)
	for _, l := range f.Lines {
		assert.NotEqual(t, TypeResult, l.Type)
		assert.Empty(t, l.Expect, l.Text)
	}
	assert.Equal(t, StateIdle, f.Lines[len(f.Lines)-1].State, "the answer was written")
}
