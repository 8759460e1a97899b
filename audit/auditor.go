package audit

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/journalship/journalship/integrity"
)

// arenaSize is the arena block kept between lines.
const arenaSize = 16 << 10

// binarySniff is how much of a file's start is searched for NUL bytes.
const binarySniff = 8 << 10

// auditor accumulates one file's report line by line.
type auditor struct {
	cfg Config
	*scratch
	ev integrity.Event

	r       Report
	lineNo  int
	prev    integrity.Prev
	binary  bool
	dropped int // problems over MaxDetails

	hasVersion bool
	version    int64

	// pending is the last non-empty line so far when it is invalid: it is
	// corrupt if another non-empty line follows, else the truncated tail.
	pending    bool
	pendIssue  LineIssue
	pendLength int64

	recovery recovery
}

// newAuditor returns an auditor holding pooled scratch memory; release
// gives it back.
func newAuditor(cfg Config, name string) (*auditor, error) {
	s, err := getScratch(cfg.Integrity)
	if err != nil {
		return nil, err
	}
	a := &auditor{cfg: cfg, scratch: s}
	a.r.Path = name
	a.prev = integrity.Prev{Known: true, AtStart: true}
	a.recovery.init()
	return a, nil
}

func (a *auditor) release() {
	putScratch(a.scratch)
	a.scratch = nil
}

// run reads every line of r; it returns the read error, if any.
func (a *auditor) run(r io.Reader) error {
	a.br.Reset(r)
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
		return // the seed skips empty lines
	}
	a.nonEmpty()
	ev, view, reason := a.judge(l, t)
	if reason != "" {
		a.invalid(LineIssue{Line: a.lineNo, Offset: l.offset, Reason: reason, Preview: Preview(t)}, l.length)
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
	if reason == "" {
		a.recovery.event(a, ev, view, l.offset)
	}
}

// judge validates a line and applies the seed's rule where the validator
// and the seed may disagree. It returns the event (nil when the line gives
// none), the bytes it was judged on, and the seed's reason to refuse the
// line ("" when the seed accepts it).
func (a *auditor) judge(l rawLine, t []byte) (*integrity.Event, []byte, string) {
	ev := a.validate(l.data)
	if ev.Outcome != integrity.Corrupt {
		// Re-check with the seed's parser where the validator may be more
		// lenient: duplicate keys (the seed takes the last), and raw control
		// characters (fastjson misses some inside strings).
		if ev.Flags&integrity.DuplicateKey == 0 && !hasControl(t) {
			return ev, l.data, ""
		}
		switch seedParse(t) {
		case "":
			return ev, l.data, ""
		case reasonNoType:
			return ev, l.data, reasonDupType
		case reasonNoTime:
			return ev, l.data, reasonDupTime
		}
		a.problem(fmt.Sprintf("line %d at offset %d: not JSON for the seed's recovery parser but accepted by the shipper", a.lineNo, l.offset))
		return ev, l.data, reasonNotJSON
	}
	shipReason := ev.CorruptReason
	if seedParse(t) != "" {
		return nil, nil, shipReason
	}
	a.problem(fmt.Sprintf("line %d at offset %d: valid for the seed's recovery parser but corrupt for the shipper (%s)", a.lineNo, l.offset, shipReason))
	view := seedView(t)
	if ev = a.validate(view); ev.Outcome == integrity.Corrupt {
		return nil, nil, ""
	}
	return ev, view, ""
}

// validate runs the validator, best-effort once the file declared an
// unknown buffer_schema_version (as the pipeline does).
func (a *auditor) validate(line []byte) *integrity.Event {
	a.arena.Reset(arenaSize)
	best := a.hasVersion && !a.v.KnownVersion(a.version)
	a.v.Validate(line, best, a.arena, &a.ev)
	if a.ev.Kind == integrity.KindSessionStart && a.ev.HasSchemaVersion {
		a.hasVersion, a.version = true, a.ev.SchemaVersion
		if !best && !a.v.KnownVersion(a.version) {
			a.v.Validate(line, true, a.arena, &a.ev)
		}
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
	a.invalid(LineIssue{Line: a.lineNo, Offset: l.offset, Reason: reasonTooLong, Preview: Preview(jsTrim(l.head))}, l.length)
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

func (a *auditor) schemaInvalid(l rawLine, ev *integrity.Event) {
	a.r.SchemaInvalidLines++
	if len(a.r.SchemaInvalidDetails) < a.cfg.MaxDetails {
		a.r.SchemaInvalidDetails = append(a.r.SchemaInvalidDetails, LineIssue{
			Line: a.lineNo, Offset: l.offset, Reason: ev.ViolationText(), Preview: Preview(jsTrim(l.data)),
		})
	}
}

func (a *auditor) nulProblem(offset, n int64) {
	if n == 0 || a.binary {
		return
	}
	a.problem(fmt.Sprintf("line %d at offset %d: %d NUL bytes (zeros left by an interrupted write?)", a.lineNo, offset, n))
}

// continuity judges the line's seq against the highest seq before it.
func (a *auditor) continuity(ev *integrity.Event, offset int64) {
	if ev.HasSeq && a.prev.Known && !a.prev.AtStart && a.prev.Seq == math.MaxInt64 {
		// integrity.Judge would overflow computing the next expected seq:
		// nothing can follow the maximum in order.
		if ev.Seq == math.MaxInt64 {
			a.r.DuplicateSeqs++
		} else {
			a.r.Regressions++
		}
		return
	}
	j := integrity.Judge(a.prev, ev.Seq, ev.HasSeq)
	switch j.Verdict {
	case integrity.SeqGap:
		a.r.SeqGapCount++
		a.r.MissingSeqs += j.Missing()
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
