package audit

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/integrity"
)

// arenaSize is the arena block kept between lines.
const arenaSize = 16 << 10

// binarySniff is how much of a file's start is searched for NUL bytes.
const binarySniff = 8 << 10

// auditor accumulates one file's report line by line, judging each line
// by the file's format.
type auditor struct {
	cfg Config
	*scratch
	fm  format.Format
	jd  format.Judge
	st  format.State       // nil when the format keeps none
	rr  format.Rereader    // nil when the runtime's reader is not modelled
	seq *integrity.SeqRule // nil when the format numbers no lines
	ev  format.Event

	r       Report
	lineNo  int
	prev    integrity.Prev
	binary  bool
	dropped int // problems over MaxDetails

	// pending is the last non-empty line so far when it is invalid: it is
	// corrupt if another non-empty line follows, else the truncated tail.
	pending    bool
	pendIssue  LineIssue
	pendLength int64

	recovery recovery
}

// newAuditor returns an auditor for a file of the detected format, holding
// pooled scratch memory; release gives it back. sidePath is the journal
// whose side files its state loads ("": none).
func newAuditor(cfg Config, s *scratch, name string, d registry.Detection, sidePath string) *auditor {
	a := &auditor{cfg: cfg, scratch: s, fm: d.Format}
	a.jd = a.scratch.judge(d.Format)
	a.st = format.StartState(d.Format, d.Path, sidePath)
	a.rr, _ = d.Format.(format.Rereader)
	if rule, used := d.Format.Seq().Integrity(); used {
		a.seq = &rule
	}
	a.r.Path, a.r.Format, a.r.DetectedBy, a.r.PathProblem = name, d.Format.Name(), d.How, d.Path.Problem
	a.prev = integrity.Prev{Known: true, AtStart: true}
	a.recovery.init()
	return a
}

func (a *auditor) release() {
	putScratch(a.scratch)
	a.scratch = nil
}

// run reads every line from the scratch's reader; it returns the read
// error, if any.
func (a *auditor) run() error {
	lr := newLineReader(a.br, a.cfg.MaxLineBytes)
	a.sniff(lr.peek(binarySniff))
	defer func() { a.r.Size = lr.off }()
	for {
		l, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		a.line(l)
	}
}

// sniff flags a binary file: NUL bytes near the start of a file that does
// not start like a journal (or with the zeros a crashed write leaves, which
// are reported line by line).
func (a *auditor) sniff(head []byte) {
	if bytes.IndexByte(head, 0) < 0 {
		return
	}
	t := jsTrim(head)
	if len(t) > 0 && t[0] != '{' && t[0] != 0 {
		a.binary = true
		a.problem("binary file: NUL bytes in the first 8 KiB")
	}
}

// line judges one line.
func (a *auditor) line(l rawLine) {
	a.lineNo++
	if l.oversize {
		a.oversize(l)
		return
	}
	t := jsTrim(l.data)
	if len(t) == 0 {
		return // blank lines are skipped, as the runtimes' readers do
	}
	a.nonEmpty()
	ev, reason := a.judge(l, t)
	if reason != "" {
		a.invalid(LineIssue{Line: a.lineNo, Offset: l.offset, Reason: reason, Preview: a.preview(t)}, l.length)
		a.nulProblem(l.offset, int64(bytes.Count(l.data, []byte{0})))
	} else {
		a.r.ValidLines++
		if ev != nil && ev.Outcome == integrity.SchemaInvalid {
			a.schemaInvalid(l, ev)
		}
	}
	if ev == nil {
		return
	}
	a.continuity(ev, l.offset)
	a.notes(ev)
	if reason == "" {
		a.recovery.event(a, ev, l.offset)
	}
}

// notes counts the format's own annotations of a line.
func (a *auditor) notes(ev *format.Event) {
	for _, n := range ev.Notes[:ev.NoteCount] {
		if a.r.Notes == nil {
			a.r.Notes = map[string]int{}
		}
		a.r.Notes[n.Kind]++
	}
}

// judge judges a line by its format and, where the format models it, as
// the runtime's own reader does. It returns the event (nil when the line
// gives none) and the reason the line is invalid ("" when it is valid).
func (a *auditor) judge(l rawLine, t []byte) (*format.Event, string) {
	ev := a.judgeLine(l.data)
	if a.rr == nil {
		if ev.Outcome == integrity.Corrupt {
			return nil, ev.CorruptReason
		}
		return ev, ""
	}
	if ev.Outcome != integrity.Corrupt {
		// Re-read where the validator may be more lenient than the
		// runtime: duplicate keys (JavaScript takes the last), and raw
		// control characters (fastjson misses some inside strings).
		if ev.Flags&format.DuplicateKey == 0 && !hasControl(t) {
			return ev, ""
		}
		_, reason, notJSON := a.rr.Reread(t, true)
		if notJSON {
			a.problem(fmt.Sprintf("line %d at offset %d: not JSON for the runtime's reader but accepted by the shipper", a.lineNo, l.offset))
		}
		return ev, reason
	}
	shipReason := ev.CorruptReason
	view, reason, _ := a.rr.Reread(t, false)
	if reason != "" {
		return nil, shipReason
	}
	a.problem(fmt.Sprintf("line %d at offset %d: valid for the runtime's reader but corrupt for the shipper (%s)", a.lineNo, l.offset, shipReason))
	if ev = a.judgeLine(view); ev.Outcome == integrity.Corrupt {
		return nil, ""
	}
	return ev, ""
}

// judgeLine runs the format's judge, which also advances the file's state.
func (a *auditor) judgeLine(line []byte) *format.Event {
	a.arena.Reset(arenaSize)
	a.jd.Judge(line, a.st, a.arena, &a.ev)
	if a.ev.Flags&format.BestEffort != 0 {
		a.r.BestEffort = true
	}
	if a.ev.HasSchemaVersion {
		a.r.SchemaVersion = a.ev.SchemaVersion
	}
	return &a.ev
}

// oversize handles a line longer than MaxLineBytes: an invalid line.
func (a *auditor) oversize(l rawLine) {
	if l.blank {
		return
	}
	a.nonEmpty()
	a.problem(fmt.Sprintf("line at offset %d is longer than %d bytes", l.offset, a.cfg.MaxLineBytes))
	a.invalid(LineIssue{Line: a.lineNo, Offset: l.offset, Reason: reasonTooLong, Preview: a.preview(jsTrim(l.head))}, l.length)
	a.nulProblem(l.offset, l.nuls)
}

// nonEmpty counts a non-empty line; an invalid line before it was not the
// tail, so it is corrupt.
func (a *auditor) nonEmpty() {
	a.r.TotalLines++
	if !a.pending {
		return
	}
	a.pending = false
	a.r.CorruptLines++
	if len(a.r.CorruptDetails) < a.cfg.MaxDetails {
		a.r.CorruptDetails = append(a.r.CorruptDetails, a.pendIssue)
	}
}

func (a *auditor) invalid(issue LineIssue, length int64) {
	a.pending, a.pendIssue, a.pendLength = true, issue, length
}

func (a *auditor) schemaInvalid(l rawLine, ev *format.Event) {
	a.r.SchemaInvalidLines++
	if len(a.r.SchemaInvalidDetails) < a.cfg.MaxDetails {
		a.r.SchemaInvalidDetails = append(a.r.SchemaInvalidDetails, LineIssue{
			Line: a.lineNo, Offset: l.offset, Reason: integrity.ViolationText(ev.Violations), Preview: a.preview(jsTrim(l.data)),
		})
	}
}

// preview is Preview of line, its secrets replaced first with Redact.
func (a *auditor) preview(line []byte) string {
	if a.cfg.Redact != nil {
		line = a.cfg.Redact(line)
	}
	return Preview(line)
}

func (a *auditor) nulProblem(offset, n int64) {
	if n == 0 || a.binary {
		return
	}
	a.problem(fmt.Sprintf("line %d at offset %d: %d NUL bytes (zeros left by an interrupted write?)", a.lineNo, offset, n))
}

// continuity judges the line's seq against the highest seq before it, by
// the format's rule.
func (a *auditor) continuity(ev *format.Event, offset int64) {
	if a.seq == nil {
		return
	}
	if ev.HasSeq && a.prev.Known && !a.prev.AtStart && a.prev.Seq == math.MaxInt64 {
		// The rule would overflow computing the next expected seq:
		// nothing can follow the maximum in order.
		if ev.Seq == math.MaxInt64 {
			a.r.DuplicateSeqs++
		} else {
			a.r.Regressions++
		}
		return
	}
	j := a.seq.Judge(a.prev, ev.Seq, ev.HasSeq)
	switch j.Verdict {
	case integrity.SeqGap:
		a.r.SeqGapCount++
		a.r.MissingSeqs = format.AddCounts(a.r.MissingSeqs, j.Missing())
		if len(a.r.SeqGaps) < a.cfg.MaxDetails {
			a.r.SeqGaps = append(a.r.SeqGaps, Gap{From: j.From, To: j.To, Offset: offset})
		}
	case integrity.SeqRepeat:
		a.r.DuplicateSeqs++
	case integrity.SeqRegression:
		a.r.Regressions++
	}
	a.prev = a.prev.After(ev.Seq, ev.HasSeq)
}

// problem records a finding, keeping at most MaxDetails.
func (a *auditor) problem(msg string) {
	if len(a.r.Problems) < a.cfg.MaxDetails {
		a.r.Problems = append(a.r.Problems, msg)
		return
	}
	a.dropped++
}
