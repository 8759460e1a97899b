package gosession

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/gosession"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/internal/sample"
)

// detect picks a file's format and what its path says, as the pipeline
// does.
type detect func(t *testing.T, path string, first []byte) (format.Format, format.Path)

// newDetect detects with the registry, go-session restricted to root,
// when the registry has the format; else (the format not registered yet)
// with the format's own Claim and Sniff.
func newDetect(t *testing.T, root string) detect {
	if registry.Lookup(FormatName) != nil {
		cfg := registry.DefaultConfig()
		cfg.Roots = map[string][]string{FormatName: {root}}
		reg, err := registry.New(cfg)
		require.NoError(t, err)
		return func(t *testing.T, path string, first []byte) (format.Format, format.Path) {
			d := reg.Detect(path, first)
			return d.Format, d.Path
		}
	}
	f := gosession.New()
	return func(t *testing.T, path string, first []byte) (format.Format, format.Path) {
		p, ok := f.Claim(path)
		require.True(t, ok, path)
		assert.True(t, f.Sniff(first), "%s: first line", path)
		return f, p
	}
}

// TestProductAgrees judges every line of the test corpora with the
// product's code as the pipeline does (detection under the corpus root,
// the format's State with its side files loaded, its judge) and compares
// the verdicts with the truth the generator computed on its own:
// outcome, type, annotation kinds, derived state, model, session id; then
// whether the session is over, the calls left open, and what
// ReadMetadata and Checkpoints read of the side files.
func TestProductAgrees(t *testing.T) {
	for name, c := range testCorpora(t) {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "sessions")
			require.NoError(t, c.WriteTo(root))
			det := newDetect(t, root)
			bySession := map[string]Session{}
			for _, s := range c.sessions {
				bySession[s.ID] = s
				productSideFiles(t, filepath.Join(root, s.Dir), s)
			}
			for _, f := range c.Files {
				productFile(t, det, filepath.Join(root, filepath.FromSlash(f.Rel)), f, bySession[f.SessionID])
			}
		})
	}
}

func productFile(t *testing.T, det detect, path string, f sample.File, s Session) {
	t.Helper()
	first, _, _ := bytes.Cut(f.Data, []byte{'\n'})
	ft, p := det(t, path, first)
	require.Equal(t, FormatName, ft.Name(), f.Rel)
	assert.Empty(t, p.Problem, f.Rel)
	assert.Equal(t, f.SessionID, p.SessionID, f.Rel)
	st := ft.NewState(p)
	sf, ok := st.(format.SideFiles)
	require.True(t, ok, "the format reads side files")
	sf.Load(path)
	j := ft.NewJudge()
	var a integrity.Arena
	var ev format.Event
	for i, l := range f.Lines {
		a.Reset(0)
		j.Judge([]byte(l.Text), st, &a, &ev)
		where := fmt.Sprintf("%s line %d (offset %d): %.160q", f.Rel, i, l.Offset, l.Text)
		assert.ElementsMatch(t, l.Expect, kindsShipped(&ev), "annotations of %s %v", where, ev.Violations)
		assert.Equal(t, l.Corrupt, ev.Outcome == integrity.Corrupt, "corrupt: %s", where)
		assert.Equal(t, l.Valid, ev.Outcome == integrity.Valid && ev.Flags&format.UnknownType == 0, "valid: %s %v", where, ev.Violations)
		assert.Equal(t, l.State, ev.State, "state of %s", where)
		if l.Corrupt {
			continue
		}
		typ := ev.EventType
		if typ == "" {
			typ = TypeOther // the pipeline ships a type outside EventTypes as other
		}
		assert.Equal(t, l.Type, typ, "type: %s", where)
		assert.Equal(t, l.Model, string(ev.Model), "model: %s", where)
		assert.Equal(t, f.SessionID, string(ev.SessionID), "session: %s", where)
	}
	over, terminal := st.Over()
	assert.Equal(t, s.Over, over, "%s (%s): over", f.Rel, s.Scenario)
	assert.Equal(t, over, terminal)
	assert.Equal(t, f.EndReason != "", over, f.Rel)
	if strings.HasSuffix(f.Rel, "/transcript.jsonl") {
		assert.Empty(t, st.Derived(), "%s: no state", f.Rel)
		return
	}
	assert.Equal(t, s.State, st.Derived(), "%s (%s): derived state", f.Rel, s.Scenario)
	open := st.Open()
	require.Len(t, open, len(s.Unanswered), "%s (%s): open calls %v", f.Rel, s.Scenario, open)
	for i, id := range s.Unanswered {
		assert.Contains(t, open[i], "tool call "+id+" ", "%s: in the order issued", f.Rel)
	}
}

// productSideFiles compares ReadMetadata and Checkpoints with the
// session's truth.
func productSideFiles(t *testing.T, dir string, s Session) {
	t.Helper()
	where := s.ID + " (" + s.Scenario + ")"
	m, ok := gosession.ReadMetadata(dir, 0)
	require.Equal(t, s.MetadataReadable, ok, where)
	assert.Equal(t, ok, m.Read, where)
	if ok {
		assert.Equal(t, []any{s.ID, s.ParentID, s.Model, s.AgentName, s.CWD, s.ExitReason, int64(s.TurnCount)},
			[]any{m.SessionID, m.ParentSessionID, m.Model, m.AgentName, m.Cwd, m.ExitReason, m.TurnCount}, where)
		assert.True(t, m.HasTurnCount && m.HasTotalCost && m.HasCreatedAt && m.HasUpdatedAt, where)
		assert.Equal(t, s.TotalCostUSD, m.TotalCostUSD, where)
		assert.True(t, s.CreatedAt.Equal(m.CreatedAt) && s.UpdatedAt.Equal(m.UpdatedAt), where)
		assert.False(t, m.IDMismatch(s.ID), where)
	}
	cps, err := gosession.Checkpoints(dir)
	require.NoError(t, err, where)
	require.Len(t, cps, len(s.Checkpoints), where)
	for i, want := range s.Checkpoints {
		got := cps[i]
		assert.Equal(t, want.ID, got.ID, where)
		assert.True(t, got.HasTime && want.Time.Equal(got.Time), "%s: %s at %v, want %v", where, got.ID, got.Time, want.Time)
		assert.Equal(t, want.Files, got.Files, where)
		assert.Equal(t, filepath.Join(dir, "checkpoints", want.Dir, "manifest.json"), got.Manifest, where)
	}
}

// kindsShipped lists the annotation kinds the pipeline ships for ev
// (annotsOf, then the format's notes), without details: the truth names
// kinds only.
func kindsShipped(ev *format.Event) []string {
	var out []string
	switch ev.Outcome {
	case integrity.Corrupt:
		out = append(out, AnnCorrupt)
	case integrity.SchemaInvalid:
		out = append(out, AnnSchemaInvalid)
	}
	if ev.Flags&format.UnknownType != 0 {
		out = append(out, AnnUnknownType)
	}
	if ev.Flags&format.DuplicateKey != 0 {
		out = append(out, AnnDuplicateKey)
	}
	for _, n := range ev.Notes[:ev.NoteCount] {
		out = append(out, n.Kind)
	}
	return out
}
