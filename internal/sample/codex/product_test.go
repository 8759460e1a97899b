package codex

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/codex"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/internal/sample"
)

// TestProductAgrees judges every complete line of generated corpora with
// the product's format (format/codex: Claim under the corpus root, a
// State per file, its judge) and compares the verdicts with the truth
// the generator computed on its own: outcome, event type, annotation
// kinds, derived state, model, the usage shipped, the session, the bill
// of each response (the same in every file that holds it), and whether
// the session is over.
func TestProductAgrees(t *testing.T) {
	for _, cfg := range []Config{FixtureConfig(), {Seed: 7, Sessions: 40, Start: FixtureConfig().Start, Models: DefaultModels, Faults: true}} {
		c, err := Generate(cfg)
		require.NoError(t, err)
		f := codex.New()
		bills := map[string]uint64{}
		owners := map[uint64]string{}
		for _, file := range c.Files {
			path := filepath.Join("/home/dev/.codex", filepath.FromSlash(file.Rel))
			p, ok := f.Claim(path)
			require.True(t, ok, path)
			require.Equal(t, file.SessionID, p.SessionID)
			st := f.NewState(p)
			texts := make([]string, len(file.Lines))
			for i, l := range file.Lines {
				texts[i] = l.Text
			}
			evs := formattest.JudgeLines(f.NewJudge(), st, texts...)
			for i, l := range file.Lines {
				ev := &evs[i]
				where := file.Rel + ": " + l.Text
				if l.Corrupt {
					require.Equal(t, integrity.Corrupt, ev.Outcome, where)
					continue
				}
				assert.Equal(t, slices.Contains(l.Expect, sample.AnnSchemaInvalid), ev.Outcome == integrity.SchemaInvalid, where)
				assert.Equal(t, slices.Contains(l.Expect, sample.AnnUnknownType), ev.Flags&format.UnknownType != 0, where)
				assert.NotEqual(t, integrity.Corrupt, ev.Outcome, where)
				assert.Equal(t, l.Type, ev.EventType, where)
				assert.Equal(t, l.State, ev.State, where)
				assert.Equal(t, file.SessionID, string(ev.SessionID), where)
				var notes []string
				for _, e := range l.Expect {
					if e != sample.AnnSchemaInvalid && e != sample.AnnUnknownType && e != sample.AnnCountedElsewhere {
						notes = append(notes, e)
					}
				}
				var got []string
				for _, n := range ev.Notes[:ev.NoteCount] {
					got = append(got, n.Kind)
				}
				slices.Sort(notes)
				slices.Sort(got)
				assert.Equal(t, notes, got, where)
				assert.Equal(t, l.Model, string(ev.Model), "%s: model", where)
				if l.Counted || l.Bill != "" {
					require.True(t, ev.Usage.Has, where)
					assert.Equal(t, format.Usage{Input: l.PromptTokens, CacheRead: l.CacheReadTokens, Output: l.CompletionTokens, Has: true}, ev.Usage, where)
					assert.Equal(t, l.Model, string(ev.Model), where)
					if b, ok := bills[l.Bill]; ok {
						assert.Equal(t, b, ev.Bill, "%s: bill %s", where, l.Bill)
					}
					bills[l.Bill] = ev.Bill
					if o, ok := owners[ev.Bill]; ok {
						assert.Equal(t, l.Bill, o, "%s: two responses, one bill", where)
					}
					owners[ev.Bill] = l.Bill
				} else {
					assert.False(t, ev.Usage.Has, where)
				}
			}
			over, _ := st.Over()
			last := file.Lines[len(file.Lines)-1]
			assert.Equal(t, last.State == StateIdle, over, file.Rel)
			assert.Equal(t, len(file.PartialTail) > 0, len(st.Open()) > 0, file.Rel)
		}
	}
}
