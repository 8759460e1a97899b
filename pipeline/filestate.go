package pipeline

import (
	"sync"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/integrity"
)

// fileState is what the pipeline remembers of one journal file between
// chunks. Everything in it is derived from the file's content, so it is
// right whatever order chunks arrive in.
type fileState struct {
	mu sync.Mutex

	path         format.Path
	sessionStart string // the path's session time, RFC 3339

	// format is the file's journal format, detected once (detect); st is
	// its per-file state, fed lines in file order up to stateEnd (the
	// offset just past the last line fed; -1 when nothing was).
	format   format.Format
	st       format.State
	stateEnd int64
	// seqRule is the format's rule for seq, read once (seqUsed: it has one).
	seqRule integrity.SeqRule
	seqUsed bool

	// tenant is the file's Loki tenant; unplaced, when not "", says why
	// it has none (its lines are dead-lettered).
	tenant   string
	unplaced string

	agentID       string
	sessionID     string
	schemaVersion int64
	hasVersion    bool

	// models remembers the model of recent LLM requests by pairing key.
	models [8]stepModel
	next   int

	// ends maps the offset just past a line to the continuity state after
	// it, for the last lines of recent chunks.
	ends [16]endState
	endN int

	// runCost is the cost of the responses since the last line that ended
	// a run, kept in step with st (an all-lines state): what a line stating
	// the run's cost is compared with.
	runCost float64
	// runUnpriced: a response of the current run could not be priced, so
	// runCost is no sum to compare a stated cost with.
	runUnpriced bool

	// times are the event times known at the end of the last lines of
	// recent chunks: what a line without one after them takes.
	times [8]timeAt
	timeN int
	// restamp is the file's re-stamp base (see restamp), place the base
	// its lines without a time of their own are placed from (see placed);
	// each read from the ledger once.
	restamp, place fileBase
	lastUsed       uint64
}

type stepModel struct {
	step  int64
	model string
	set   bool
}

// timeAt is the time of the nearest line with one at or before the line
// ending at end.
type timeAt struct {
	end int64
	ts  time.Time
}

// putTime remembers ts as the time known at end.
func (f *fileState) putTime(end int64, ts time.Time) {
	f.times[f.timeN%len(f.times)] = timeAt{end: end, ts: ts}
	f.timeN++
}

// timeBefore returns the time known at the end of the line before off
// (one byte more for a CRLF line whose \r Fluent Bit strips).
func (f *fileState) timeBefore(off int64) (time.Time, bool) {
	for i := range min(f.timeN, len(f.times)) {
		if e := f.times[i]; e.end == off || e.end+1 == off {
			return e.ts, true
		}
	}
	return time.Time{}, false
}

type endState struct {
	end  int64
	prev integrity.Prev
}

// setFormat takes the detected format, its path and its seq rule.
func (f *fileState) setFormat(d registry.Detection) {
	f.format, f.path = d.Format, d.Path
	f.seqRule, f.seqUsed = d.Format.Seq().Integrity()
}

func (f *fileState) putModel(step int64, model string) {
	f.models[f.next%len(f.models)] = stepModel{step: step, model: model, set: true}
	f.next++
}

func (f *fileState) model(step int64) (string, bool) {
	for i := 1; i <= len(f.models); i++ {
		m := f.models[(f.next-i+2*len(f.models))%len(f.models)]
		if m.set && m.step == step {
			return m.model, true
		}
	}
	return "", false
}

func (f *fileState) putEnd(end int64, prev integrity.Prev) {
	for i := range f.ends {
		if f.ends[i].end == end && f.endN > i {
			f.ends[i].prev = prev
			return
		}
	}
	f.ends[f.endN%len(f.ends)] = endState{end: end, prev: prev}
	f.endN++
}

// prevAt returns the state after the line ending at off (allowing one byte
// for a CRLF line whose \r Fluent Bit strips).
func (f *fileState) prevAt(off int64) (integrity.Prev, bool) {
	n := min(f.endN, len(f.ends))
	for i := range n {
		if e := f.ends[i]; e.end == off || e.end+1 == off {
			return e.prev, true
		}
	}
	return integrity.Prev{}, false
}

// fileCache holds fileStates, bounded by evicting the least recently used.
type fileCache struct {
	mu    sync.Mutex
	max   int
	clock uint64
	m     map[string]*fileState
}

func newFileCache(max int) *fileCache {
	return &fileCache{max: max, m: make(map[string]*fileState)}
}

// get returns the state of path, creating it. path is only copied when the
// file is new.
func (c *fileCache) get(path []byte) *fileState {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if f, ok := c.m[string(path)]; ok {
		f.lastUsed = c.clock
		return f
	}
	if len(c.m) >= c.max {
		c.evict()
	}
	p := string(path)
	f := &fileState{lastUsed: c.clock, stateEnd: -1}
	c.m[p] = f
	return f
}

// evict drops the older half of the cache. A dropped file's state is
// rebuilt from disk when it shows up again.
func (c *fileCache) evict() {
	cut := c.clock - uint64(c.max/2)
	for k, f := range c.m {
		if f.lastUsed <= cut {
			delete(c.m, k)
		}
	}
}

// interner shares one string per distinct model name, so attributing a
// model to a line does not allocate.
type interner struct {
	mu sync.Mutex
	m  map[string]string
}

func (in *interner) get(b []byte) string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(in.m) < 4096 {
		in.m[s] = s
	}
	return s
}
