package registry

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/kinds"
)

// The conformance suite: what every registered format must do, checked
// on its generator's test corpus (its Kind's Fixture, every fault
// scenario), written to disk as its runtime lays it out. A format
// registered without a generator fails here.

// conformanceCorpus is a format's fixture corpus written under a
// temporary root, and a registry to detect its files with.
type conformanceCorpus struct {
	format format.Format
	kind   sample.Kind
	root   string
	corpus *sample.Corpus
	reg    *Registry
}

// eachFormat runs check for every registered format on its corpus.
func eachFormat(t *testing.T, check func(t *testing.T, c *conformanceCorpus)) {
	reg, err := New(DefaultConfig())
	require.NoError(t, err)
	for _, d := range Descriptors() {
		t.Run(d.Name, func(t *testing.T) {
			k, ok := kinds.Lookup(d.Name)
			require.True(t, ok, "format %s has no generator in internal/sample/kinds", d.Name)
			c, err := k.Fixture()
			require.NoError(t, err)
			root := filepath.Join(t.TempDir(), k.DemoRoot)
			require.NoError(t, c.WriteTo(root))
			check(t, &conformanceCorpus{format: reg.Lookup(d.Name), kind: k, root: root, corpus: c, reg: reg})
		})
	}
}

// path is where file f of the corpus lies.
func (c *conformanceCorpus) path(f sample.File) string {
	return filepath.Join(c.root, filepath.FromSlash(f.Rel))
}

// state returns a file's state as the pipeline starts it: for the path
// detection gave it, its side files loaded.
func (c *conformanceCorpus) state(p format.Path, path string) format.State {
	return format.StartState(c.format, p, path)
}

// lines are a file's lines without their newlines (a torn last line
// included).
func lines(f sample.File) [][]byte {
	out := bytes.SplitAfter(f.Data, []byte{'\n'})
	if len(out[len(out)-1]) == 0 {
		out = out[:len(out)-1]
	}
	for i := range out {
		out[i] = bytes.TrimSuffix(out[i], []byte{'\n'})
	}
	return out
}

// TestConformanceDetection: each file the generator writes where the
// runtime would is detected as its format, from its path and first line
// as the plugin does; a file found by its path is claimed without a
// problem.
func TestConformanceDetection(t *testing.T) {
	eachFormat(t, func(t *testing.T, c *conformanceCorpus) {
		for _, f := range c.corpus.Files {
			first := lines(f)[0]
			d := c.reg.Detect(c.path(f), first)
			require.Equal(t, c.format.Name(), d.Format.Name(), "%s (%s)", f.Rel, d.How)
			if d.How == "path" || d.How == "path-unconfirmed" {
				p, ok := c.format.Claim(c.path(f))
				assert.True(t, ok, f.Rel)
				assert.Empty(t, p.Problem, f.Rel)
			}
			if !f.Lines[0].Corrupt && d.How == "content" {
				assert.True(t, c.format.Sniff(first), "%s: found by content, so its first line is sniffed", f.Rel)
			}
		}
	})
}

// TestConformanceUnit: each file's claimed group is what its format's
// declared Unit says retention deletes together: the journal, its
// directory (then the format reads the group's state from its journals,
// and its corpus has a group that ended for good), or its session's main
// journal (whose session directory holds the member journals).
func TestConformanceUnit(t *testing.T) {
	eachFormat(t, func(t *testing.T, c *conformanceCorpus) {
		d, _ := Describe(c.format.Name())
		ended, mains := map[string]bool{}, 0
		for _, f := range c.corpus.Files {
			path := c.path(f)
			det := c.reg.Detect(path, lines(f)[0])
			if det.How != "path" && det.How != "path-unconfirmed" {
				continue // found by content, outside the layout: its own group whatever the unit
			}
			g := det.Path.Group
			switch d.Unit {
			case format.UnitFile:
				assert.Equal(t, path, g, "%s: %s", f.Rel, d.Unit)
			case format.UnitDirectory:
				require.Equal(t, filepath.Dir(path), g, "%s: %s", f.Rel, d.Unit)
				ge, ok := c.format.(format.GroupEnder)
				require.True(t, ok, "%s: a format whose unit is a directory reads its state (GroupEnder)", d.Name)
				st, err := ge.GroupEnd(g)
				require.NoError(t, err, f.Rel)
				ended[g] = st.Terminal
			case format.UnitSession:
				sd, ok := c.format.(format.SessionDir)
				require.True(t, ok, "%s: a format whose unit is a session names its directory (SessionDir)", d.Name)
				dir, isMain := sd.SessionDir(g)
				switch {
				case g == path && isMain:
					mains++
				case g != path:
					require.True(t, isMain, "%s: its group %s is a session's main journal", f.Rel, g)
					rel, err := filepath.Rel(dir, path)
					assert.True(t, err == nil && !strings.HasPrefix(rel, ".."), "%s: in its session's directory %s", f.Rel, dir)
				}
			}
		}
		switch d.Unit {
		case format.UnitDirectory:
			assert.True(t, slices.Contains(slices.Collect(maps.Values(ended)), true), "a group that ended for good")
		case format.UnitSession:
			assert.Positive(t, mains, "a main journal with its session directory")
		}
	})
}

// TestConformanceJudgeAllocatesNothing: once its buffers have grown,
// judging a line allocates nothing (a state's own growth aside: judged
// without one).
func TestConformanceJudgeAllocatesNothing(t *testing.T) {
	eachFormat(t, func(t *testing.T, c *conformanceCorpus) {
		j := c.format.NewJudge()
		a := integrity.NewArena(1 << 16)
		var ev format.Event
		var all [][]byte
		for _, f := range c.corpus.Files {
			all = append(all, lines(f)...)
		}
		judgeAll := func() {
			for _, l := range all {
				a.Reset(1 << 16)
				j.Judge(l, nil, a, &ev)
			}
		}
		judgeAll()
		allocs := testing.AllocsPerRun(3, judgeAll)
		assert.Zero(t, allocs, "allocations judging %d lines", len(all))
	})
}

// snapshot is what a state says after a line: its derived state,
// whether the session is over, what is open.
func snapshot(st format.State) string {
	if st == nil {
		return ""
	}
	over, terminal := st.Over()
	return fmt.Sprintf("derived=%q over=%t terminal=%t open=%q", st.Derived(), over, terminal, st.Open())
}

// judged is the rendering of each line's event, judged in order into a
// new state of the file, with the state's snapshot after it; with
// judgeEach, each line by a judge of its own (as the pipeline's pooled
// judges take a file's lines across flushes), otherwise by one.
func (c *conformanceCorpus) judged(f sample.File, ls [][]byte, judgeEach bool) []string {
	path := c.path(f)
	d := c.reg.Detect(path, lines(f)[0])
	st := c.state(d.Path, path)
	j := c.format.NewJudge()
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	out := make([]string, len(ls))
	for i, l := range ls {
		if judgeEach {
			j = c.format.NewJudge()
		}
		a.Reset(1 << 16)
		j.Judge(l, st, a, &ev)
		out[i] = formattest.Render(&ev, formattest.Style{AlwaysTypeName: true, CacheWrite1h: true, EndReason: true}) + " | " + snapshot(st)
	}
	return out
}

// TestConformanceRestartJudgesAlike: a file judged again from its start
// in a new state (a restart, a retry replaying the file) gets the same
// events and states, line for line: nothing the first judgement left
// behind (a package's cache, a shared map) makes the second differ, and
// no annotation appears only on the second pass.
func TestConformanceRestartJudgesAlike(t *testing.T) {
	eachFormat(t, func(t *testing.T, c *conformanceCorpus) {
		for _, f := range c.corpus.Files {
			ls := lines(f)
			assert.Equal(t, c.judged(f, ls, false), c.judged(f, ls, false), f.Rel)
		}
	})
}

// TestConformanceStateRebuilt: a file's state is all a format remembers
// of it. A state kept incrementally across flushes, its lines judged by
// whichever judge the pipeline's pool hands out (here a new one for each
// line), says after every line what a state rebuilt from the file's start
// by one judge says (a retry, a restart), and the lines' events are the
// same: a judge keeps nothing of a file. For a format whose state needs
// only the first line and the chunk's lines (ScopeFirstLine), one fed the
// first line and then the file's last lines ends where one fed every line
// does.
func TestConformanceStateRebuilt(t *testing.T) {
	eachFormat(t, func(t *testing.T, c *conformanceCorpus) {
		for _, f := range c.corpus.Files {
			ls := lines(f)
			rebuilt := c.judged(f, ls, false)
			assert.Equal(t, rebuilt, c.judged(f, ls, true), "%s: judged line by line by new judges", f.Rel)
			if c.format.Scope() != format.ScopeFirstLine {
				continue
			}
			for k := 2; k < len(ls); k += max(1, len(ls)/5) {
				part := c.judged(f, slices.Concat(ls[:1], ls[k:]), true)
				assert.Equal(t, stateOf(rebuilt[len(rebuilt)-1]), stateOf(part[len(part)-1]),
					"%s: the first line, then from line %d", f.Rel, k)
			}
		}
	})
}

// stateOf is the state part of a judged line.
func stateOf(judged string) string {
	_, st, _ := strings.Cut(judged, " | ")
	return st
}

// TestConformanceWithdraw: a state that counts usage once per file
// (format.Withdrawer) loses at most, and never counts twice, what a
// withdrawn line counted: with any one line judged, withdrawn (the
// pipeline will not ship it: too long, cut, outside Loki's window) and
// left out, the usage the file's other lines ship is at least the whole
// file's less that line's, and at most the whole file's (a later line of
// its response counts it instead). A line that counted nothing (a
// corrupt one) changes nothing.
func TestConformanceWithdraw(t *testing.T) {
	eachFormat(t, func(t *testing.T, c *conformanceCorpus) {
		if _, ok := c.format.NewState(format.Path{}).(format.Withdrawer); !ok {
			return
		}
		checked := 0
		for _, f := range c.corpus.Files {
			ls := lines(f)
			whole, own := c.shipped(f, ls, -1)
			for i := range ls { // lines without usage too: a corrupt one must undo nothing
				without, _ := c.shipped(f, ls, i)
				for k, name := range []string{"input", "output", "cache read", "cache write"} {
					w, o, got := counters(whole)[k], counters(own[i])[k], counters(without)[k]
					assert.LessOrEqual(t, got, w, "%s line %d withdrawn: %s counted twice", f.Rel, i, name)
					assert.GreaterOrEqual(t, got, w-o, "%s line %d withdrawn: %s lost beyond the line's own", f.Rel, i, name)
				}
				if own[i].Has {
					checked++
				}
			}
		}
		assert.Positive(t, checked, "no line with usage in the corpus")
	})
}

// shipped judges ls in order into a new state of f and returns the usage
// the lines ship together, line withdrawn (-1: none) left out, and each
// line's own.
func (c *conformanceCorpus) shipped(f sample.File, ls [][]byte, withdrawn int) (sum format.Usage, own []format.Usage) {
	path := c.path(f)
	d := c.reg.Detect(path, lines(f)[0])
	st := c.state(d.Path, path)
	j := c.format.NewJudge()
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	own = make([]format.Usage, len(ls))
	for i, l := range ls {
		a.Reset(1 << 16)
		j.Judge(l, st, a, &ev)
		own[i] = ev.Usage
		if i == withdrawn {
			st.(format.Withdrawer).Withdraw()
			continue
		}
		sum.Input += ev.Usage.Input
		sum.Output += ev.Usage.Output
		sum.CacheRead += ev.Usage.CacheRead
		sum.CacheWrite += ev.Usage.CacheWrite
	}
	return sum, own
}

func counters(u format.Usage) [4]int64 { return [4]int64{u.Input, u.Output, u.CacheRead, u.CacheWrite} }
