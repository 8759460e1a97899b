package codelia

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/journalship/journalship/format"
	codeliafmt "github.com/journalship/journalship/format/codelia"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/internal/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is where the cross-check pretends the corpus lies.
const root = "/home/dev/.codelia/"

// TestJudgeAgrees feeds every file, line by line, to the product's judge,
// detected as the shipper detects it, and compares what would be shipped
// with the truth: the annotation kinds and details, outcome, type, seq,
// derived state, model, tokens, ids, and whether the run is over.
func TestJudgeAgrees(t *testing.T) {
	reg, err := registry.New(registry.DefaultConfig())
	require.NoError(t, err)
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			t.Run(name+"/"+f.Rel, func(t *testing.T) { judgeFile(t, reg, f) })
		}
	}
}

func judgeFile(t *testing.T, reg *registry.Registry, f sample.File) {
	require.NotEmpty(t, f.Lines)
	d := reg.Detect(root+f.Rel, []byte(f.Lines[0].Text))
	require.Equal(t, codeliafmt.Name, d.Format.Name())
	if f.Lines[0].Corrupt {
		assert.Equal(t, "path-unconfirmed", d.How, "a torn first line: the layout decides")
	} else {
		assert.Equal(t, "path", d.How)
	}
	assert.Empty(t, d.Path.Problem)
	require.False(t, d.Format.Seq().Used, "no generic seq annotations to expect")
	st := d.Format.NewState(d.Path)
	j := d.Format.NewJudge()
	var a integrity.Arena
	var ev format.Event
	fileSession := ""
	for i, l := range f.Lines {
		a.Reset(0)
		j.Judge([]byte(l.Text), st, &a, &ev)
		where := fmt.Sprintf("%s line %d: %s", f.Rel, i, l.Text[:min(100, len(l.Text))])
		if ev.Role == format.RoleSessionStart && ev.Outcome != integrity.Corrupt && len(ev.SessionID) > 0 {
			fileSession = string(ev.SessionID) // pipeline learnSession
		}
		assert.Equal(t, l.Expect, shipped(&ev), where)
		assert.Equal(t, l.Corrupt, ev.Outcome == integrity.Corrupt, where)
		assert.Equal(t, l.Valid, ev.Outcome == integrity.Valid, "%s: %v", where, ev.Violations)
		assert.Equal(t, l.State, ev.State, where)
		if !l.Corrupt {
			typ := ev.EventType
			if typ == "" {
				typ = string(ev.TypeName)
			}
			assert.Equal(t, l.Type, typ, where)
		}
		seq := int64(-1)
		if ev.HasSeq {
			seq = ev.Seq
		}
		assert.Equal(t, l.Seq, seq, where)
		if ev.Role == format.RoleLLMRequest || ev.Role == format.RoleLLMResponse {
			assert.Equal(t, l.Model, string(ev.Model), where)
		}
		counted := ev.Role == format.RoleLLMResponse && ev.Usage.Has && ev.Outcome == integrity.Valid
		assert.Equal(t, l.Counted, counted, where)
		if counted {
			assert.Equal(t, format.Usage{Input: l.PromptTokens, Output: l.CompletionTokens,
				CacheRead: l.CacheReadTokens, CacheWrite: l.CacheWriteTokens, Has: true}, ev.Usage, where)
		}
		assert.Equal(t, f.SessionID, cmp.Or(string(ev.SessionID), fileSession), "%s: session_id", where)
		runID := cmp.Or(string(ev.RunID), d.Path.RunID)
		if slices.ContainsFunc(l.Expect, hasKind(AnnRunIDMismatch)) {
			assert.NotEqual(t, f.RunID, runID, where)
		} else {
			assert.Equal(t, f.RunID, runID, "%s: run_id", where)
		}
		assert.Empty(t, ev.JobID, where)
		assert.Empty(t, ev.AgentID, where)
	}
	over, terminal := st.Over()
	assert.Equal(t, endsRun(f), over, "%s: over", f.Rel)
	assert.Equal(t, over, terminal)
	assert.Len(t, st.Open(), unanswered(f), "%s: %v", f.Rel, st.Open())
}

// shipped is the annotation list the pipeline ships for ev (annotsOf and
// the format's notes, in annotList's order), each note with the detail it
// ships under the metadata key of its kind.
func shipped(ev *format.Event) []string {
	var out []string
	switch ev.Outcome {
	case integrity.Corrupt:
		out = append(out, "corrupt")
	case integrity.SchemaInvalid:
		out = append(out, "schema_invalid")
	}
	for _, fl := range []struct {
		flag format.Flags
		name string
	}{{format.UnknownType, "unknown_type"}, {format.BestEffort, "best_effort"}, {format.DuplicateKey, "duplicate_key"}} {
		if ev.Flags&fl.flag != 0 {
			out = append(out, fl.name)
		}
	}
	for _, n := range ev.Notes[:ev.NoteCount] {
		if len(n.Detail) > 0 {
			out = append(out, n.Kind+":"+string(n.Detail))
		} else {
			out = append(out, n.Kind)
		}
	}
	return out
}

func hasKind(kind string) func(string) bool {
	return func(e string) bool { return e == kind || len(e) > len(kind) && e[:len(kind)+1] == kind+":" }
}

// endsRun tells whether the truth's lines end the run: a run.end, or a
// run.status whose value is terminal.
func endsRun(f sample.File) bool {
	return slices.ContainsFunc(f.Lines, func(l sample.Line) bool {
		return l.Type == typeRunEnd ||
			l.Type == typeRunStatus && slices.Contains([]string{"completed", "error", "cancelled"}, l.State)
	})
}

// unanswered counts the truth's llm.requests no later response answers.
func unanswered(f sample.File) int {
	open := map[int64]bool{}
	for _, l := range f.Lines {
		switch l.Type {
		case typeLLMRequest:
			open[l.Seq] = true
		case typeLLMResponse:
			delete(open, l.Seq)
		}
	}
	return len(open)
}

// TestSideFilesNotJournals: the registry claims no snapshot, and detection
// falls back to the unknown format (the plugin tails *.jsonl only).
func TestSideFilesNotJournals(t *testing.T) {
	reg, err := registry.New(registry.DefaultConfig())
	require.NoError(t, err)
	c, err := Generate(FixtureConfig())
	require.NoError(t, err)
	require.NotEmpty(t, c.Side)
	for _, s := range c.Side {
		path := root + s.Rel
		for _, fm := range registry.All() {
			_, ok := fm.Claim(path)
			assert.False(t, ok, "%s claims %s", fm.Name(), s.Rel)
			assert.False(t, fm.Sniff(s.Data), "%s sniffs %s", fm.Name(), s.Rel)
		}
		first, _, _ := bytes.Cut(s.Data, []byte{'\n'})
		d := reg.Detect(path, first)
		assert.Equal(t, registry.Unknown.Name(), d.Format.Name(), s.Rel)
		assert.Equal(t, "fallback", d.How)
	}
}
