package pipeline

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/pricing"
)

// process judges every record and fills the batch and the dead letters.
func (p *Pipeline) process(ctx context.Context, w *work) {
	w.groups(func(path []byte, idx []int) {
		if len(path) == 0 {
			p.processOrphans(w, idx)
			return
		}
		f := p.files.get(path)
		f.mu.Lock()
		defer f.mu.Unlock()
		p.processFile(ctx, w, f, idx)
	})
}

// processOrphans handles records without a path (Path_Key not set): they
// are validated and shipped, but have no file context or continuity; the
// format is the one the first line's content says.
func (p *Pipeline) processOrphans(w *work, idx []int) {
	f := &fileState{stateEnd: -1}
	f.setFormat(p.formats.Detect("", w.recs[idx[0]].Line))
	f.path.Problem = "record has no path (set Path_Key on the tail input)"
	// No rule places a record without a path: the fallback tenant's, or
	// dead-lettered (no_tenant), never sent without a tenant. Said once
	// a flush by checkRecordKeys, not here.
	if t, err := p.tenants.Of(""); err != nil {
		f.unplaced = f.path.Problem + ": no tenant rule places it, and Tenant_Fallback is not set"
	} else {
		f.tenant = t
	}
	j := w.judge(f.format)
	for _, i := range idx {
		p.judgeLine(w, f, j, i, integrity.Prev{})
	}
}

func (p *Pipeline) processFile(ctx context.Context, w *work, f *fileState, idx []int) {
	path := unsafe.String(&w.recs[idx[0]].Path[0], len(w.recs[idx[0]].Path))
	p.detect(f, path, &w.recs[idx[0]])
	j := w.judge(f.format)
	var cur integrity.Prev
	prevEnd := int64(-1)
	w.lastTS, w.tsEnd = time.Time{}, -1
	for _, i := range idx {
		r := &w.recs[i]
		p.followState(w, f, j, path, r)
		prev := integrity.Prev{}
		if f.seqUsed {
			prev = p.prevOf(ctx, w, f, j, path, r, cur, prevEnd)
		}
		cur = p.judgeLine(w, f, j, i, prev)
		if r.HasOffset {
			prevEnd = r.Offset + lineLen(r) + 1
			if f.st != nil && f.stateEnd >= 0 {
				f.stateEnd = prevEnd
			}
		}
	}
	if prevEnd >= 0 && f.seqUsed {
		f.putEnd(prevEnd, cur)
	}
	if w.tsEnd >= 0 {
		f.putTime(w.tsEnd, w.lastTS)
	}
}

// detect picks the file's format once, from its path and first line, and
// starts its state. The first line is the chunk's when the chunk starts
// the file, else read from disk; when neither is at hand, the chunk's
// first line stands in for content detection.
func (p *Pipeline) detect(f *fileState, path string, first *chunk.Record) {
	if f.format != nil {
		return
	}
	var line []byte
	switch {
	case first.HasOffset && first.Offset == 0:
		line = first.Line
	case first.HasOffset:
		l, err := p.reader.FirstLine(path)
		if err != nil {
			p.deps.Logger.Debugf("file=%s: cannot read the first line: %v", path, err)
		}
		line = l
	}
	sniff := line
	if sniff == nil {
		sniff = first.Line
	}
	// path may point into the chunk (unsafe.String): what the Path keeps of
	// it must outlive the flush.
	d := p.formats.Detect(strings.Clone(path), sniff)
	f.setFormat(d)
	p.placeFile(f, path)
	if !f.path.Started.IsZero() {
		f.sessionStart = f.path.Started.Format("2006-01-02T15:04:05Z07:00")
	}
	if d.How == "fallback" {
		p.deps.Logger.Warnf("file=%s: no journal format claims it; shipped as format=%s, each line checked as JSON", path, f.format.Name())
	}
	f.st = p.newState(f, path)
	f.stateEnd = -1
	if f.st == nil || f.format.Scope() != format.ScopeFirstLine || line == nil || first.Offset == 0 {
		return
	}
	// The state of a first-line format is what its first line says.
	var a integrity.Arena
	var ev format.Event
	f.format.NewJudge().Judge(line, f.st, &a, &ev)
	p.learnSession(f, &ev)
}

// placeFile finds the file's tenant once. A file no rule places is
// logged once; its lines go to the dead letters.
func (p *Pipeline) placeFile(f *fileState, path string) {
	t, err := p.tenants.Of(path)
	f.tenant, f.unplaced = strings.Clone(t), "" // path may point into the chunk
	if err != nil {
		f.unplaced = err.Error()
		p.deps.Logger.Warnf("file=%s: %v: its lines go to the dead letters (reason %s)", path, err, dlNoTenant.name)
	}
}

// followState keeps an all-lines state in step with the file: when r does
// not continue where the state stopped (a retry, a restart, another
// worker's chunk), the state is rebuilt from the file's start up to r.
// When that cannot be done the lines are judged without state (its
// annotations are then left out rather than made up).
func (p *Pipeline) followState(w *work, f *fileState, j format.Judge, path string, r *chunk.Record) {
	if f.format.Scope() != format.ScopeAllLines || !r.HasOffset {
		return
	}
	if f.st != nil && f.stateEnd >= 0 && (f.stateEnd == r.Offset || f.stateEnd+1 == r.Offset) {
		return // in step (allowing the \r Fluent Bit strips from a CRLF line)
	}
	f.st, f.stateEnd, f.runCost, f.runUnpriced = p.newState(f, path), -1, 0, false
	if r.Offset == 0 {
		f.stateEnd = 0
		return
	}
	var a integrity.Arena
	var ev format.Event
	var it item
	err := p.reader.Replay(path, r.Offset, r.Line, func(line []byte) {
		a.Reset(0)
		j.Judge(line, f.st, &a, &ev)
		if ev.Role == format.RoleSessionStart {
			p.learnSession(f, &ev)
		}
		// The run's cost so far, as judgeLine would have summed it; a line
		// too long to ship counted nothing there.
		it = item{tenant: f.tenant}
		if ev.Role != format.RoleLLMRequest && len(ev.Model) > 0 && ev.Usage.Has && ev.Outcome == integrity.Valid {
			it.model, it.usage = p.models.get(ev.Model), ev.Usage
			p.price(&it)
		}
		if len(line) > p.cfg.MaxLineBytes {
			p.withdraw(f, &it)
		}
		p.accrue(f, &ev, &it)
	})
	if err != nil {
		p.deps.Logger.Debugf("file=%s offset=%d: cannot rebuild the %s state: %v", path, r.Offset, f.format.Name(), err)
		f.st = nil
		return
	}
	f.stateEnd = r.Offset
}

// newState starts the file's format state, with the side files it reads.
func (p *Pipeline) newState(f *fileState, path string) format.State {
	return format.StartState(f.format, f.path, path)
}

// learnSession remembers what a session's start says of the whole file.
func (p *Pipeline) learnSession(f *fileState, ev *format.Event) {
	if ev.Role != format.RoleSessionStart || ev.Outcome == integrity.Corrupt {
		return
	}
	// Interned (apart from model names, which must stay interned however
	// many sessions come): a file of many sessions allocates nothing per
	// start.
	if len(ev.AgentID) > 0 && string(ev.AgentID) != f.agentID {
		f.agentID = p.ids.get(ev.AgentID)
	}
	if len(ev.SessionID) > 0 && string(ev.SessionID) != f.sessionID {
		f.sessionID = p.ids.get(ev.SessionID)
	}
	if ev.HasSchemaVersion {
		f.schemaVersion, f.hasVersion = ev.SchemaVersion, true
	}
}

// prevOf finds the sequenced line before r: in this chunk, in memory of
// earlier chunks, on disk, then in the ledger.
func (p *Pipeline) prevOf(ctx context.Context, w *work, f *fileState, j format.Judge, path string, r *chunk.Record, cur integrity.Prev, prevEnd int64) integrity.Prev {
	if !r.HasOffset {
		return cur // no offsets: only adjacency within the chunk is assumed
	}
	if r.Offset == 0 {
		return integrity.Prev{Known: true, AtStart: true}
	}
	if prevEnd >= 0 && r.Offset-prevEnd >= 0 && r.Offset-prevEnd <= 1 {
		return cur
	}
	if prev, ok := f.prevAt(r.Offset); ok {
		return prev
	}
	b, err := p.reader.Lookbehind(path, r.Offset, r.Line, -1, j)
	if err == nil && b.RequestModel != "" {
		// The nearest request's model, for a response of its pair among
		// the first lines of the chunk.
		f.putModel(b.RequestStep, p.models.get([]byte(b.RequestModel)))
	}
	if err == nil && b.SeqKnown {
		return integrity.Prev{Known: true, AtStart: b.AtStart, Seq: b.PrevSeq}
	}
	if err != nil {
		p.deps.Logger.Debugf("file=%s offset=%d: look-behind failed: %v", path, r.Offset, err)
	}
	if p.deps.Ledger != nil {
		if rg, ok, lerr := p.deps.Ledger.Covering(ctx, path, r.Offset); lerr == nil && ok && rg.LastSeq >= 0 {
			return integrity.Prev{Known: true, Seq: rg.LastSeq}
		}
	}
	w.unver++
	return integrity.Prev{}
}

// judgeLine validates one line, judges its continuity, enriches it and adds
// it to the batch (or the dead letters). It returns the continuity state
// after the line.
func (p *Pipeline) judgeLine(w *work, f *fileState, j format.Judge, i int, prev integrity.Prev) integrity.Prev {
	r, it, ev := &w.recs[i], &w.items[i], &w.ev
	if r.Problem != "" {
		// Its line was read (only its path or offset is unusable): the
		// dead letter keeps it, so it is redacted as any line is.
		it.format = f.format.Name()
		p.redact(w, i, unsafe.String(unsafe.SliceData(r.Path), len(r.Path)))
		w.deadLetter(i, dlUndecodable, r.Problem)
		return prev
	}
	j.Judge(r.Line, f.st, w.arena, ev)
	p.learnSession(f, ev)
	it.outcome, it.eventType, it.format, it.tenant = ev.Outcome, ev.EventType, f.format.Name(), f.tenant
	it.seq, it.hasSeq = ev.Seq, ev.HasSeq
	if ev.HasTime {
		w.lastTS, w.tsEnd = ev.Time, endOf(r)
	}
	var jd integrity.Judgement
	if f.seqUsed {
		jd = f.seqRule.Judge(prev, ev.Seq, ev.HasSeq)
	}
	it.annots |= annotsOf(ev, jd)
	it.notes = ev.NoteCount
	for k := range ev.NoteCount {
		it.note[k] = ev.Notes[k].Kind
	}
	it.missing = jd.Missing()
	p.attributeModel(w, f, j, i)
	p.redact(w, i, unsafe.String(unsafe.SliceData(r.Path), len(r.Path)))
	if r.Cut > 0 || lineLen(r) > int64(p.cfg.MaxLineBytes) {
		p.withdraw(f, it) // dead-lettered below: it counts nothing
	}
	p.accrue(f, ev, it)
	switch n := lineLen(r); {
	case r.Cut > 0:
		// Only its first bytes were read: never shipped as if whole,
		// whatever Max_Line_Bytes allows.
		w.deadLetter(i, dlTooLong, fmt.Sprintf("line of %d bytes, too long to read whole; its first %d bytes are kept here", n, len(r.Line)))
	case n > int64(p.cfg.MaxLineBytes):
		w.deadLetter(i, dlTooLong, fmt.Sprintf("line of %d bytes exceeds Max_Line_Bytes %d", n, p.cfg.MaxLineBytes))
	default:
		p.buildEntry(w, f, i, jd)
	}
	if !f.seqUsed {
		return prev
	}
	it.after = prev.After(ev.Seq, ev.HasSeq)
	return it.after
}

func annotsOf(ev *format.Event, j integrity.Judgement) annot {
	var a annot
	switch ev.Outcome {
	case integrity.Corrupt:
		a |= aCorrupt
	case integrity.SchemaInvalid:
		a |= aSchemaInvalid
	}
	if ev.Flags&format.UnknownType != 0 {
		a |= aUnknownType
	}
	if ev.Flags&format.BestEffort != 0 {
		a |= aBestEffort
	}
	if ev.Flags&format.DuplicateKey != 0 {
		a |= aDuplicateKey
	}
	switch j.Verdict {
	case integrity.SeqGap:
		a |= aSeqGap
	case integrity.SeqRepeat:
		a |= aSeqRepeat
	case integrity.SeqRegression:
		a |= aSeqRegression
	}
	return a
}

// attributeModel gives a response its model: its own, else its request's
// (found by the pairing key in memory or, for a chunk's first lines, on
// disk); and remembers requests' models by pairing key.
func (p *Pipeline) attributeModel(w *work, f *fileState, j format.Judge, i int) {
	ev, it, r := &w.ev, &w.items[i], &w.recs[i]
	switch ev.Role {
	case format.RoleLLMRequest:
		if len(ev.Model) > 0 {
			it.model = p.models.get(ev.Model)
			if ev.HasPair {
				f.putModel(ev.Pair, it.model)
			}
		}
	case format.RoleLLMResponse:
		m, ok := "", false
		if len(ev.Model) > 0 {
			m, ok = p.models.get(ev.Model), true
		} else if ev.HasPair {
			m, ok = f.model(ev.Pair)
			if !ok && r.HasOffset && len(r.Path) > 0 {
				path := unsafe.String(&r.Path[0], len(r.Path))
				if b, err := p.reader.Lookbehind(path, r.Offset, r.Line, ev.Pair, j); err == nil && b.Model != "" {
					m, ok = p.models.get([]byte(b.Model)), true
					f.putModel(ev.Pair, m)
				}
			}
		}
		if !ok && !ev.HasPair && len(ev.Model) == 0 {
			break // nothing to pair: a response without a model of its own
		}
		it.model = m
		if !ok {
			it.annots |= aModelUnknown
		}
		if ev.Usage.Has && ev.Outcome == integrity.Valid {
			it.usage = ev.Usage
			p.price(it)
		}
	default:
		if len(ev.Model) > 0 { // a chat message stating its model
			it.model = p.models.get(ev.Model)
			if ev.Usage.Has && ev.Outcome == integrity.Valid { // a run's report of usage no response showed
				it.usage = ev.Usage
				p.price(it)
			}
		}
	}
}

// price attributes the cost of a valid response's tokens to a price table
// entry; a model the table does not cover is annotated, not guessed.
func (p *Pipeline) price(it *item) {
	if p.deps.Prices == nil || it.model == "" {
		return
	}
	pr, ok := p.deps.Prices.Lookup(it.tenant, it.model)
	if !ok {
		it.annots |= aPriceUnknown
		return
	}
	u := it.usage
	// Input counts every prompt token, cache reads and writes included
	// (format.Usage); each is charged once, at its own price.
	uncached := max(0, u.Input-u.CacheRead-u.CacheWrite)
	it.cost = pr.CostTokens(pricing.Tokens{Uncached: uncached, Output: u.Output,
		CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, CacheWrite1h: u.CacheWrite1h})
	it.costModel = pr.Model
}

// costTolerance is how far (relative, and at least costFloor dollars) a
// run's stated cost may be from the cost journalship computed for its
// responses before the line is annotated cost_disagrees.
const (
	costTolerance = 0.01
	costFloor     = 0.0001
)

// accrue keeps the cost of a file's current run (the responses since the
// last line that ended one) and compares a line stating the run's cost
// with it. Only an all-lines state sees every line in order, so only such
// formats are compared; a stated cost is shipped whatever the format.
func (p *Pipeline) accrue(f *fileState, ev *format.Event, it *item) {
	inStep := f.format.Scope() == format.ScopeAllLines && f.st != nil
	if inStep {
		f.runCost += it.cost
		// A response with usage journalship could not price (no table, an
		// unknown model): the run's computed cost is incomplete.
		f.runUnpriced = f.runUnpriced || it.usage.Has && it.costModel == ""
	}
	if ev.HasCost && ev.Outcome != integrity.Corrupt {
		it.stated, it.hasStated = ev.CostUSD, true
		if inStep && ev.Ends && !f.runUnpriced {
			it.runCost = f.runCost
			if d := math.Abs(ev.CostUSD - f.runCost); d > costFloor && d > costTolerance*math.Max(ev.CostUSD, f.runCost) {
				it.annots |= aCostDisagrees
			}
		}
	}
	if ev.Ends {
		f.runCost, f.runUnpriced = 0, false
	}
}

// withdraw undoes what a line the pipeline will not ship counted: its
// format state's count (format.Withdrawer: a later line of the same
// response then ships the usage) and the line's own usage and cost.
func (p *Pipeline) withdraw(f *fileState, it *item) {
	wd, ok := f.st.(format.Withdrawer)
	if !ok {
		return
	}
	wd.Withdraw()
	it.usage, it.cost, it.costModel = format.Usage{}, 0, ""
}
