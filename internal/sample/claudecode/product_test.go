package claudecode

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/internal/sample"
)

// TestProductAgrees judges every line of the test corpora with the
// product's code as the pipeline does (registry detection under the
// corpus root, the format's State with its side files loaded, its judge)
// and compares the verdicts with the truth the generator computed on its
// own: outcome, type, annotation kinds, derived state, model, the usage
// shipped (the growth over what the response already counted), session
// and agent ids, and whether the session is over (idle).
func TestProductAgrees(t *testing.T) {
	for name, c := range testCorpora(t) {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "projects")
			require.NoError(t, c.WriteTo(root))
			cfg := registry.DefaultConfig()
			cfg.Roots = map[string][]string{FormatName: {root}}
			reg, err := registry.New(cfg)
			require.NoError(t, err)
			for _, f := range c.Files {
				productFile(t, reg, filepath.Join(root, filepath.FromSlash(f.Rel)), f)
			}
		})
	}
}

func productFile(t *testing.T, reg *registry.Registry, path string, f sample.File) {
	t.Helper()
	first, _, _ := bytes.Cut(f.Data, []byte{'\n'})
	d := reg.Detect(path, first)
	require.Equal(t, FormatName, d.Format.Name(), f.Rel)
	assert.Empty(t, d.Path.Problem, f.Rel)
	st := d.Format.NewState(d.Path)
	if sf, ok := st.(format.SideFiles); ok {
		sf.Load(path)
	}
	j := d.Format.NewJudge()
	var a integrity.Arena
	var ev format.Event
	for i, l := range f.Lines {
		a.Reset(0)
		j.Judge([]byte(l.Text), st, &a, &ev)
		if l.Bill != "" {
			// One bill on the node: the format counts it in every file, with
			// the key the pipeline claims it by; a copy's counted_elsewhere
			// is the pipeline's.
			assert.NotZero(t, ev.Bill, "billed: %s", l.Text)
			l = asCounted(l)
		}
		where := fmt.Sprintf("%s line %d (offset %d): %.160s", f.Rel, i, l.Offset, l.Text)
		assert.ElementsMatch(t, l.Expect, kindsShipped(&ev), "annotations of %s", where)
		assert.Equal(t, l.Corrupt, ev.Outcome == integrity.Corrupt, "corrupt: %s", where)
		assert.Equal(t, l.Valid, ev.Outcome == integrity.Valid && ev.Flags&format.UnknownType == 0, "valid: %s %v", where, ev.Violations)
		assert.Equal(t, l.State, ev.State, "state of %s", where)
		if !l.Corrupt {
			typ := ev.EventType
			if typ == "" {
				typ = string(ev.TypeName)
			}
			assert.Equal(t, l.Type, typ, "type: %s", where)
		}
		// The pipeline prices a valid line's usage under its model whatever
		// its role: a result line's top-up is a session_end.
		counted := ev.Usage.Has && ev.Outcome == integrity.Valid && len(ev.Model) > 0
		if ev.Role == format.RoleLLMResponse && ev.Outcome == integrity.Valid || counted {
			assert.Equal(t, l.Model, string(ev.Model), "model: %s", where)
		}
		assert.Equal(t, l.Counted, counted, "counted: %s", where)
		if counted {
			assert.Contains(t, []format.Role{format.RoleLLMResponse, format.RoleSessionEnd}, ev.Role, "role: %s", where)
		}
		if ev.Ends {
			assert.Equal(t, f.EndReason, string(ev.EndReason), "end reason: %s", where)
		}
		if counted && l.Counted {
			assert.Equal(t, format.Usage{Input: l.PromptTokens, Output: l.CompletionTokens, CacheRead: l.CacheReadTokens,
				CacheWrite: l.CacheWriteTokens, CacheWrite1h: l.CacheWrite1hTokens, Has: true}, ev.Usage, "usage: %s", where)
		}
		if !l.Corrupt && f.SessionID != "" {
			assert.Equal(t, f.SessionID, string(ev.SessionID), "session: %s", where)
		}
		if !l.Corrupt && f.AgentID != "" && !containsKind(l.Expect, AnnAgentIDMismatch) {
			assert.Equal(t, f.AgentID, string(ev.AgentID), "agent: %s", where)
		}
	}
	if len(f.Lines) > 0 {
		last := f.Lines[len(f.Lines)-1]
		assert.Equal(t, last.State, st.Derived(), "%s: derived state", f.Rel)
		over, _ := st.Over()
		assert.Equal(t, last.State == StateIdle, over, "%s: over when idle", f.Rel)
	}
}

// asCounted is the truth of a copy of a billed response had its journal
// shipped first: counted, without counted_elsewhere.
func asCounted(l sample.Line) sample.Line {
	l.Counted = true
	l.Expect = slices.DeleteFunc(slices.Clone(l.Expect), func(k string) bool { return k == sample.AnnCountedElsewhere })
	return l
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
		out = append(out, "duplicate_key")
	}
	for _, n := range ev.Notes[:ev.NoteCount] {
		out = append(out, n.Kind)
	}
	return out
}

func containsKind(list []string, kind string) bool {
	for _, k := range list {
		if k == kind {
			return true
		}
	}
	return false
}
