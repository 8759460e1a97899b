package codelia

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	codeliafmt "github.com/journalship/journalship/format/codelia"
	"github.com/journalship/journalship/internal/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFaultScenarios: each fault run carries its faults, in every corpus
// with faults, whatever the seed or the models.
func TestFaultScenarios(t *testing.T) {
	all := testCorpora(t)
	for _, name := range []string{"fixture", "seed7", "seed-3", "one-model", "midnight"} {
		c := all[name]
		require.NotNil(t, c, name)
		require.GreaterOrEqual(t, len(c.Files), MinFaultRuns)
		t.Run(name, func(t *testing.T) {
			checkCrashed(t, c.Files[0])
			checkRetries(t, c.Files[0], c.Files[1])
			checkInterleaved(t, c.Files[2])
			checkNewer(t, c.Files[3])
			checkCancelled(t, c.Files[4])
			checkResumed(t, c.Files[5])
		})
	}
}

// TestEveryAnnotation: the fault runs carry, between them, every
// annotation the format has, and the neutral ones a Codelia file can get.
func TestEveryAnnotation(t *testing.T) {
	c, err := Generate(FixtureConfig())
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, f := range c.Files[:MinFaultRuns] {
		for _, l := range f.Lines {
			for _, e := range l.Expect {
				kind, _, _ := strings.Cut(e, ":")
				seen[kind] = true
			}
		}
	}
	want := append(codeliafmt.New().Annotations(), AnnCorrupt, AnnSchemaInvalid, AnnUnknownType, AnnBestEffort)
	for _, k := range want {
		assert.True(t, seen[k], "no line expects %s", k)
	}
	for _, f := range c.Files[MinFaultRuns:] {
		for _, l := range f.Lines {
			assert.Empty(t, l.Expect, "clean run %s", f.Rel)
		}
	}
}

func checkCrashed(t *testing.T, f sample.File) {
	require.NotNil(t, f.PartialTail, "the run crashed mid-append")
	assert.True(t, strings.HasPrefix(string(f.PartialTail), `{"type":"llm`), "while writing a response: %q", f.PartialTail)
	assert.Empty(t, f.EndReason)
	assert.False(t, hasType(f, typeRunEnd), "no run.end")
	assert.Equal(t, typeLLMRequest, f.Lines[len(f.Lines)-1].Type, "the last complete line is the unanswered request")
	assert.Equal(t, 1, unanswered(f))
	assert.Equal(t, 1, count(f, AnnCorrupt), "the tool call torn by its output")
	torn := lineWith(t, f, AnnCorrupt)
	assert.True(t, strings.HasPrefix(torn.Text, `{"type":"a`), "a prefix of the agent.event (at least 10 bytes)")
	assert.Contains(t, torn.Text, `{"type":"tool.output"`)
	l := lineWith(t, f, AnnUnknownStatus+":rate_limited")
	assert.True(t, l.Valid, "an unknown status is valid")
	assert.Equal(t, "other", l.State)
	assert.NotEmpty(t, f.SessionID)
}

func checkRetries(t *testing.T, crashed, f sample.File) {
	assert.Equal(t, crashed.SessionID, f.SessionID, "the run after the crash continues its session")
	first := firstOf(f, typeLLMRequest)
	assert.Equal(t, lastRequestSeq(crashed)+1, first.Seq, "the session's numbering goes on")
	gap := lineWith(t, f, AnnRequestSeqGap)
	assert.Equal(t, typeLLMRequest, gap.Type)
	assert.Equal(t, []string{AnnRequestSeqGap + ":" + itoa(gap.Seq-1)}, gap.Expect, "one lost pair")
	rep := lineWith(t, f, AnnRequestSeqRepeat)
	assert.Equal(t, []string{AnnRequestSeqRepeat + ":after " + itoa(rep.Seq)}, rep.Expect)
	retry := lineWith(t, f, AnnUnknownType)
	assert.Equal(t, "llm.retry", retry.Type)
	assert.True(t, retry.Valid, "an unknown type is shipped as valid")
	inv := lineWith(t, f, AnnSchemaInvalid)
	assert.Equal(t, typeLLMResponse, inv.Type)
	assert.False(t, inv.Counted, "an invalid response's tokens are not counted")
	assert.NotContains(t, inv.Text, "total_tokens")
	orphan := lineWith(t, f, AnnResponseWithoutRequest)
	assert.Equal(t, typeLLMResponse, orphan.Type)
	assert.True(t, orphan.Counted, "a continuation is billed too")
	ext := firstOf(f, "x.acme.policy_check")
	assert.Empty(t, ext.Expect, "a namespaced type is not annotated")
	assert.True(t, ext.Valid)
	assert.Equal(t, "completed", f.EndReason)
}

func checkInterleaved(t *testing.T, f sample.File) {
	assert.True(t, f.Lines[0].Corrupt, "the header is torn by run.start")
	assert.True(t, strings.HasPrefix(f.Lines[0].Text, `{"type":"h`), "a prefix of the header (at least 10 bytes)")
	assert.Contains(t, f.Lines[0].Text, `{"type":"run.start"`)
	assert.Equal(t, []string{AnnHeaderMissing}, f.Lines[1].Expect)
	assert.Empty(t, f.SessionID, "prompt mode: no session")
	foreign := lineWith(t, f, AnnRunIDMismatch)
	assert.Equal(t, []string{AnnRunIDMismatch + ":" + f.RunID}, foreign.Expect)
	assert.NotContains(t, foreign.Text, f.RunID)
	end := f.Lines[len(f.Lines)-1]
	assert.Equal(t, []string{AnnUnknownOutcome + ":interrupted"}, end.Expect)
	assert.Equal(t, "interrupted", f.EndReason)
	assert.Equal(t, "other", end.State)
}

func checkNewer(t *testing.T, f sample.File) {
	assert.Equal(t, []string{AnnBestEffort, AnnSchemaVersionUnknown + ":2"}, f.Lines[0].Expect)
	outputs := 0
	for _, l := range f.Lines[1:] {
		assert.Equal(t, []string{AnnBestEffort}, l.Expect, l.Text)
		assert.True(t, l.Valid)
		if l.Type == typeToolOutput {
			outputs++
			assert.NotContains(t, l.Text, "result_raw", "version 2 output, schema-invalid in v1")
		}
	}
	assert.Positive(t, outputs)
	assert.Equal(t, "completed", f.EndReason)
	assert.True(t, slices.ContainsFunc(f.Lines, func(l sample.Line) bool { return l.Counted }), "best-effort responses still count")
}

func checkCancelled(t *testing.T, f sample.File) {
	m := relPattern.FindStringSubmatch(f.Rel)
	require.NotNil(t, m)
	assert.NotEqual(t, f.RunID, m[4], "misfiled under another run_id")
	h := f.Lines[0]
	require.Len(t, h.Expect, 2)
	assert.Equal(t, AnnFileNameMismatch+":"+m[4], h.Expect[0])
	assert.True(t, strings.HasPrefix(h.Expect[1], AnnDateMismatch+":"), h.Expect[1])
	assert.NotEqual(t, m[1]+"-"+m[2]+"-"+m[3], strings.TrimPrefix(h.Expect[1], AnnDateMismatch+":"))
	rep := lineWith(t, f, AnnEventSeqRepeat)
	assert.Equal(t, []string{AnnEventSeqRepeat + ":after " + itoa(rep.Seq)}, rep.Expect)
	last := f.Lines[len(f.Lines)-1]
	assert.Equal(t, typeRunStatus, last.Type)
	assert.Equal(t, "cancelled", last.State)
	assert.False(t, hasType(f, typeRunEnd), "terminal status, no run.end")
	assert.Equal(t, "cancelled", f.EndReason, "the terminal status ends the run")
	aborted := f.Lines[len(f.Lines)-2]
	assert.Equal(t, typeLLMResponse, aborted.Type)
	assert.True(t, aborted.Valid)
	assert.False(t, aborted.Counted, "usage null")
	assert.NotEmpty(t, aborted.Model, "the request's model")
}

func checkResumed(t *testing.T, f sample.File) {
	assert.Equal(t, []string{AnnUnknownInputType + ":parts"}, f.Lines[1].Expect)
	second := lineWith(t, f, AnnHeaderMisplaced)
	assert.Equal(t, typeHeader, second.Type)
	assert.Equal(t, "awaiting_ui", second.State, "resumed while waiting for the user")
	reg := lineWith(t, f, AnnRequestSeqRegression)
	assert.Equal(t, int64(1), reg.Seq, "numbering starts over")
	ev := lineWith(t, f, AnnEventSeqRegression)
	assert.Equal(t, int64(0), ev.Seq)
	assert.Equal(t, "completed", f.EndReason)
	assert.Zero(t, unanswered(f))
}

// lineWith returns the file's first line expecting e ("kind" matches any
// detail).
func lineWith(t *testing.T, f sample.File, e string) sample.Line {
	t.Helper()
	for _, l := range f.Lines {
		if slices.ContainsFunc(l.Expect, func(x string) bool { return x == e || strings.HasPrefix(x, e+":") }) {
			return l
		}
	}
	require.Failf(t, "missing annotation", "%s: no line expects %s", f.Rel, e)
	return sample.Line{}
}

// count counts the lines expecting kind e.
func count(f sample.File, e string) int {
	n := 0
	for _, l := range f.Lines {
		if slices.ContainsFunc(l.Expect, hasKind(e)) {
			n++
		}
	}
	return n
}

func firstOf(f sample.File, typ string) sample.Line {
	for _, l := range f.Lines {
		if l.Type == typ {
			return l
		}
	}
	return sample.Line{Seq: -2}
}

func hasType(f sample.File, typ string) bool { return firstOf(f, typ).Seq != -2 }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
