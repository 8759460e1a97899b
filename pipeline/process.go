package pipeline

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/integrity"
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
// are validated and shipped, but have no file context or continuity.
func (p *Pipeline) processOrphans(w *work, idx []int) {
	f := &fileState{}
	f.path.Problem = "record has no path (set Path_Key on the tail input)"
	for _, i := range idx {
		p.judgeLine(w, f, i, integrity.Prev{})
	}
}

func (p *Pipeline) processFile(ctx context.Context, w *work, f *fileState, idx []int) {
	path := unsafe.String(&w.recs[idx[0]].Path[0], len(w.recs[idx[0]].Path))
	p.readSession(f, path, &w.recs[idx[0]])
	var cur integrity.Prev
	prevEnd := int64(-1)
	w.lastTS = f.lastTS
	for _, i := range idx {
		r := &w.recs[i]
		prev := p.prevOf(ctx, w, f, path, r, cur, prevEnd)
		cur = p.judgeLine(w, f, i, prev)
		if r.HasOffset {
			prevEnd = r.Offset + lineLen(r) + 1
		}
	}
	if prevEnd >= 0 {
		f.putEnd(prevEnd, cur)
	}
	f.lastTS = w.lastTS
}

// readSession learns agent_id and buffer_schema_version from the file's
// SESSION_START, reading the file's first line when this chunk does not
// start the file.
func (p *Pipeline) readSession(f *fileState, path string, first *chunk.Record) {
	if f.sessionRead || (first.HasOffset && first.Offset == 0) {
		return
	}
	f.sessionRead = true
	line, err := p.reader.FirstLine(path)
	if err != nil {
		p.deps.Logger.Debugf("file=%s: cannot read SESSION_START: %v", path, err)
		return
	}
	var a integrity.Arena
	var ev integrity.Event
	v, _ := integrity.New(p.cfg.Integrity)
	v.Validate(line, false, &a, &ev)
	p.learnSession(f, &ev)
}

func (p *Pipeline) learnSession(f *fileState, ev *integrity.Event) {
	if ev.Kind != integrity.KindSessionStart {
		return
	}
	f.sessionRead = true
	if len(ev.AgentID) > 0 {
		f.agentID = string(ev.AgentID)
	}
	if len(ev.SessionID) > 0 {
		f.sessionID = string(ev.SessionID)
	}
	if ev.HasSchemaVersion {
		f.schemaVersion, f.hasVersion = ev.SchemaVersion, true
	}
}

// prevOf finds the sequenced line before r: in this chunk, in memory of
// earlier chunks, on disk, then in the ledger.
func (p *Pipeline) prevOf(ctx context.Context, w *work, f *fileState, path string, r *chunk.Record, cur integrity.Prev, prevEnd int64) integrity.Prev {
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
	b, err := p.reader.Lookbehind(path, r.Offset, r.Line, -1)
	if err == nil && b.RequestModel != "" {
		// The nearest request's model, for an LLM_RESPONSE of its step
		// among the first lines of the chunk.
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
func (p *Pipeline) judgeLine(w *work, f *fileState, i int, prev integrity.Prev) integrity.Prev {
	r, it, ev := &w.recs[i], &w.items[i], &w.ev
	if r.Problem != "" {
		w.deadLetter(i, dlUndecodable, r.Problem)
		return prev
	}
	bestEffort := f.hasVersion && !w.val.KnownVersion(f.schemaVersion)
	w.val.Validate(r.Line, bestEffort, w.arena, ev)
	if ev.Kind == integrity.KindSessionStart {
		p.learnSession(f, ev)
		if f.hasVersion && !w.val.KnownVersion(f.schemaVersion) && !bestEffort {
			w.val.Validate(r.Line, true, w.arena, ev)
		}
	}
	it.outcome, it.kind = ev.Outcome, ev.Kind
	it.seq, it.hasSeq = ev.Seq, ev.HasSeq
	if ev.HasTimestamp {
		w.lastTS = ev.Timestamp
	}
	j := integrity.Judge(prev, ev.Seq, ev.HasSeq)
	it.annots |= annotsOf(ev, j)
	it.missing = j.Missing()
	p.attributeModel(w, f, i)
	switch n := lineLen(r); {
	case r.Cut > 0:
		// Only its first bytes were read: never shipped as if whole,
		// whatever Max_Line_Bytes allows.
		w.deadLetter(i, dlTooLong, fmt.Sprintf("line of %d bytes, too long to read whole; its first %d bytes are kept here", n, len(r.Line)))
	case n > int64(p.cfg.MaxLineBytes):
		w.deadLetter(i, dlTooLong, fmt.Sprintf("line of %d bytes exceeds Max_Line_Bytes %d", n, p.cfg.MaxLineBytes))
	default:
		p.buildEntry(w, f, i, j)
	}
	it.after = prev.After(ev.Seq, ev.HasSeq)
	return it.after
}

func annotsOf(ev *integrity.Event, j integrity.Judgement) annot {
	var a annot
	switch ev.Outcome {
	case integrity.Corrupt:
		a |= aCorrupt
	case integrity.SchemaInvalid:
		a |= aSchemaInvalid
	}
	if ev.Flags&integrity.UnknownType != 0 {
		a |= aUnknownType
	}
	if ev.Flags&integrity.BestEffort != 0 {
		a |= aBestEffort
	}
	if ev.Flags&integrity.DuplicateKey != 0 {
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

// attributeModel puts the step's LLM_REQUEST model on an LLM_RESPONSE
// (whose schema has no model), and remembers requests' models.
func (p *Pipeline) attributeModel(w *work, f *fileState, i int) {
	ev, it, r := &w.ev, &w.items[i], &w.recs[i]
	switch ev.Kind {
	case integrity.KindLLMRequest:
		if len(ev.Model) > 0 {
			it.model = p.models.get(ev.Model)
			if ev.HasStepIndex {
				f.putModel(ev.StepIndex, it.model)
			}
		}
	case integrity.KindLLMResponse:
		if !ev.HasStepIndex {
			break
		}
		m, ok := f.model(ev.StepIndex)
		if !ok && r.HasOffset && len(r.Path) > 0 {
			path := unsafe.String(&r.Path[0], len(r.Path))
			if b, err := p.reader.Lookbehind(path, r.Offset, r.Line, ev.StepIndex); err == nil && b.Model != "" {
				m, ok = p.models.get([]byte(b.Model)), true
				f.putModel(ev.StepIndex, m)
			}
		}
		it.model = m
		if !ok {
			it.annots |= aModelUnknown
		}
		if ev.HasTokens && ev.Outcome == integrity.Valid {
			it.tokens, it.hasTokens = [2]int64{ev.PromptTokens, ev.CompletionTokens}, true
			p.price(it)
		}
	}
}

// price attributes the cost of a valid LLM_RESPONSE's tokens to a price
// table entry; a model the table does not cover is annotated, not guessed.
func (p *Pipeline) price(it *item) {
	if p.deps.Prices == nil || it.model == "" {
		return
	}
	pr, ok := p.deps.Prices.Lookup(p.cfg.Tenant, it.model)
	if !ok {
		it.annots |= aPriceUnknown
		return
	}
	it.cost, it.costModel = pr.Cost(it.tokens[0], it.tokens[1]), pr.Model
}
