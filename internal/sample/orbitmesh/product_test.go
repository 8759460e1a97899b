package orbitmesh

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/orbitmesh"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/internal/sample"
)

// TestProductAgrees judges every line of several corpora with the
// product's code the way the pipeline does (registry detection, the
// format's State with its side files loaded, its judge, the format's seq
// rule applied with integrity's judge, the annotations and details as
// pipeline annotsOf, annotList and addDetails ship them) and compares the
// verdicts with the truth computed by construction.
func TestProductAgrees(t *testing.T) {
	for name, cfg := range crossConfigs() {
		t.Run(name, func(t *testing.T) {
			c, truth, err := GenerateWithTruth(cfg)
			require.NoError(t, err)
			root := t.TempDir()
			require.NoError(t, c.WriteTo(root))
			// The clock of Derived: after the corpus, before any 4 h approval
			// deadline or resume token expiry; line statuses use each line's
			// own time.
			reg := newRegistry(t, cfg.Start.Add(80*time.Minute))
			for i, f := range c.Files {
				checkFile(t, reg, filepath.Join(root, filepath.FromSlash(f.Rel)), f, truth[i])
			}
			checkSideFiles(t, reg, root, c.Side)
		})
	}
}

// crossConfigs are the fixture, the default, and a sweep of seeds with
// and without faults.
func crossConfigs() map[string]Config {
	out := map[string]Config{
		"fixture": FixtureConfig(),
		"default": DefaultConfig(),
		"clean":   testConfig(11, 30, false),
	}
	for seed := int64(-4); seed < 16; seed++ {
		out[fmt.Sprintf("seed%d", seed)] = testConfig(seed, MinFaultSessions+int(seed&3), seed&1 == 0)
	}
	return out
}

func newRegistry(t *testing.T, now time.Time) *registry.Registry {
	t.Helper()
	cfg := registry.DefaultConfig()
	cfg.Now = func() time.Time { return now }
	reg, err := registry.New(cfg)
	require.NoError(t, err)
	return reg
}

// checkFile replays f as the pipeline does and compares line by line,
// then the session's status now, whether it is over and how it ended.
func checkFile(t *testing.T, reg *registry.Registry, path string, f sample.File, s Session) {
	t.Helper()
	first, _, _ := bytes.Cut(f.Data, []byte{'\n'})
	d := reg.Detect(path, first)
	require.Equal(t, FormatName, d.Format.Name(), f.Rel)
	assert.Equal(t, "path", d.How, f.Rel)
	assert.Empty(t, d.Path.Problem, f.Rel)
	assert.Equal(t, f.SessionID, d.Path.SessionID, f.Rel)
	assert.Equal(t, f.RunID, d.Path.RunID, f.Rel)
	assert.Equal(t, f.JobID, d.Path.JobID, f.Rel)
	assert.Equal(t, f.Pod, d.Path.Pod, f.Rel)

	st := d.Format.NewState(d.Path)
	sf, ok := st.(format.SideFiles)
	require.True(t, ok, "the orbitmesh state reads side files")
	sf.Load(path)
	r := d.Format.Seq()
	require.True(t, r.Used)
	rule := integrity.SeqRule{Start: r.Start, HasStart: r.HasStart, Gaps: r.Gaps}
	j := d.Format.NewJudge()
	prev := integrity.Prev{Known: true, AtStart: true}
	var a integrity.Arena
	var ev format.Event
	var ends []End
	for i, l := range f.Lines {
		a.Reset(0)
		j.Judge([]byte(l.Text), st, &a, &ev)
		jd := rule.Judge(prev, ev.Seq, ev.HasSeq)
		prev = prev.After(ev.Seq, ev.HasSeq)
		where := fmt.Sprintf("%s line %d (offset %d): %.200s", f.Rel, i, l.Offset, l.Text)
		assert.Equal(t, l.Expect, shipped(&ev, jd, d.Path), "annotations of %s", where)
		assert.Equal(t, l.State, ev.State, "state of %s", where)
		checkEvent(t, l, &ev, l.RunID, where)
		if ev.Ends && s.Shape == ShapeRuntime {
			ends = append(ends, End{Line: i, Reason: string(ev.EndReason), Terminal: ev.Terminal})
		}
	}
	where := f.Rel + " (" + s.Scenario + ")"
	assert.Equal(t, s.Ends, ends, "%s: the lines that end an attempt", where)
	assert.Equal(t, s.Final, st.Derived(), "%s: the status now", where)
	over, terminal := st.Over()
	assert.Equal(t, s.Over, over, "%s: over", where)
	assert.Equal(t, over, terminal, where)
	assert.Equal(t, s.Over, f.EndReason != "", where)
	assert.Equal(t, s.EndReason, f.EndReason, where)
	if er, ok := st.(format.EndReasoner); ok && s.Shape == ShapeRuntime {
		assert.Equal(t, s.EndReason, er.EndReason(), "%s: end reason", where)
	}
	if s.Shape == ShapeRuntime {
		sd := orbitmesh.ReadSide(path)
		assert.Equal(t, s.DocReadable, sd.Doc, "%s: the session document", where)
		assert.Len(t, sd.Attempts, s.Attempts, where)
		assert.Len(t, sd.Tokens, s.Tokens, where)
	}
}

// checkEvent compares what the judge learned of a line with its truth.
func checkEvent(t *testing.T, l sample.Line, ev *format.Event, runID, where string) {
	t.Helper()
	assert.Equal(t, l.Corrupt, ev.Outcome == integrity.Corrupt, "corrupt: %s", where)
	assert.Equal(t, l.Valid, ev.Outcome == integrity.Valid && ev.Flags&format.UnknownType == 0, "valid: %s", where)
	typ := ev.EventType
	if typ == "" {
		typ = string(ev.TypeName)
	}
	assert.Equal(t, l.Type, typ, "type: %s", where)
	seq := int64(-1)
	if ev.HasSeq {
		seq = ev.Seq
	}
	assert.Equal(t, l.Seq, seq, "seq: %s", where)
	assert.Equal(t, l.Model, string(ev.Model), "model: %s", where)
	assert.Equal(t, runID, string(ev.RunID), "run_id: %s", where)
	counted := ev.Usage.Has && ev.Outcome == integrity.Valid && len(ev.Model) > 0
	assert.Equal(t, l.Counted, counted, "counted: %s", where)
	if counted {
		u := ev.Usage
		assert.Equal(t, []int64{l.PromptTokens, l.CompletionTokens, l.CacheReadTokens, l.CacheWriteTokens, l.CacheWrite1hTokens},
			[]int64{u.Input, u.Output, u.CacheRead, u.CacheWrite, u.CacheWrite1h}, "tokens: %s", where)
	}
	assert.Equal(t, l.Counted, ev.Role == format.RoleLLMResponse, "role: %s", where)
}

// shipped renders the annotations the pipeline ships for a line, in the
// order of its annotations metadata, each "kind" or "kind:detail" when a
// detail is shipped under the metadata key kind (pipeline annotsOf,
// annotList, addDetails). timestamp_* annotations depend on the clock
// and the line's place in a chunk, not on the line: they are left out.
func shipped(ev *format.Event, jd integrity.Judgement, p format.Path) []string {
	var out []string
	add := func(kind, detail string) {
		if detail != "" {
			kind += ":" + detail
		}
		out = append(out, kind)
	}
	switch ev.Outcome {
	case integrity.Corrupt:
		add("corrupt", "") // detail under corrupt_reason
	case integrity.SchemaInvalid:
		add("schema_invalid", "") // detail under violations
	}
	for _, fl := range []struct {
		flag format.Flags
		kind string
	}{{format.UnknownType, "unknown_type"}, {format.BestEffort, "best_effort"}, {format.DuplicateKey, "duplicate_key"}} {
		if ev.Flags&fl.flag != 0 {
			add(fl.kind, "")
		}
	}
	switch jd.Verdict {
	case integrity.SeqGap, integrity.SeqRepeat, integrity.SeqRegression:
		add(jd.Verdict.String(), string(jd.Detail(nil)))
	}
	if p.Problem != "" {
		add("path_mismatch", "") // detail under path_problem
	}
	for _, n := range ev.Notes[:ev.NoteCount] {
		add(n.Kind, string(n.Detail))
	}
	return out
}

// checkSideFiles: snapshots and token indexes are no journal of any
// format; detection falls back to the unknown format.
func checkSideFiles(t *testing.T, reg *registry.Registry, root string, side []sample.SideFile) {
	t.Helper()
	require.NotEmpty(t, side)
	for _, s := range side {
		path := filepath.Join(root, filepath.FromSlash(s.Rel))
		for _, f := range reg.Formats() {
			_, ok := f.Claim(path)
			assert.False(t, ok, "%s claims %s", f.Name(), s.Rel)
		}
		first, _, _ := bytes.Cut(s.Data, []byte{'\n'})
		d := reg.Detect(path, first)
		assert.Equal(t, "fallback", d.How, s.Rel)
		assert.Equal(t, registry.Unknown.Name(), d.Format.Name(), s.Rel)
	}
}
