package integrity

import (
	"math"
	"strconv"
)

// Continuity is the verdict on a line's seq against the sequenced line
// before it in the same file.
type Continuity uint8

// Continuity verdicts.
const (
	// SeqNone: nothing to say (in order, or the line has no seq).
	SeqNone Continuity = iota
	// SeqGap: seq is more than one past the previous line's; the missing
	// range is [Missing.From, Missing.To].
	SeqGap
	// SeqRepeat: seq equals the previous line's.
	SeqRepeat
	// SeqRegression: seq is below the previous line's.
	SeqRegression
	// SeqUnverified: the previous line could not be found (not in the
	// chunk, not readable on disk, not in the ledger); no judgement is made
	// rather than a false one.
	SeqUnverified
)

var continuityNames = [...]string{"", "seq_gap", "seq_repeat", "seq_regression", "seq_unverified"}

// String returns the annotation kind ("seq_gap", ...), "" for SeqNone.
func (c Continuity) String() string {
	if int(c) < len(continuityNames) {
		return continuityNames[c]
	}
	return ""
}

// Prev describes the sequenced lines before a line in its file.
type Prev struct {
	// Known is false when the lines before could not be read.
	Known bool
	// AtStart is true when no sequenced line precedes this one in the file:
	// the line should then carry the rule's Start seq, when it has one.
	AtStart bool
	// Seq is the highest seq before the line (when !AtStart). Judging
	// against the highest rather than the last seq keeps one stale line
	// (a late watchdog writing an old seq) from making the next line look
	// like a gap.
	Seq int64
}

// After returns the state after a line with the given seq.
func (p Prev) After(seq int64, hasSeq bool) Prev {
	switch {
	case !hasSeq:
		return p
	case p.Known && !p.AtStart && p.Seq > seq:
		return p
	}
	return Prev{Known: true, Seq: seq}
}

// Judgement is the continuity verdict with its details.
type Judgement struct {
	Verdict  Continuity
	From, To int64 // the missing range, for SeqGap
	PrevSeq  int64 // the previous seq, for SeqRepeat and SeqRegression
}

// SeqRule is how a journal format numbers its lines.
type SeqRule struct {
	// Start is the first line's seq, when HasStart; otherwise a file may
	// begin at any seq.
	Start    int64
	HasStart bool
	// Gaps: each line is one more than the one before, so a larger step
	// means lost lines. Without it only repeats and regressions count.
	Gaps bool
}

// Judge compares a line's seq with the highest seq before it by the rule:
// the expected seq is in order (with Gaps, more is a gap), equal is a
// repeat, less is a regression.
func (r SeqRule) Judge(prev Prev, seq int64, hasSeq bool) Judgement {
	if !hasSeq {
		return Judgement{}
	}
	if !prev.Known {
		return Judgement{Verdict: SeqUnverified}
	}
	if prev.AtStart && !r.HasStart {
		return Judgement{} // any first seq
	}
	want := prev.Seq + 1
	if prev.AtStart {
		want = r.Start
	}
	if !prev.AtStart && prev.Seq == math.MaxInt64 {
		// Nothing can follow the largest seq: no gap, and no overflow.
		if seq == prev.Seq {
			return Judgement{Verdict: SeqRepeat, PrevSeq: prev.Seq}
		}
		return Judgement{Verdict: SeqRegression, PrevSeq: prev.Seq}
	}
	switch {
	case seq == want, seq > want && !r.Gaps:
		return Judgement{}
	case seq > want:
		return Judgement{Verdict: SeqGap, From: want, To: seq - 1}
	case !prev.AtStart && seq == prev.Seq:
		return Judgement{Verdict: SeqRepeat, PrevSeq: prev.Seq}
	default:
		return Judgement{Verdict: SeqRegression, PrevSeq: prev.Seq}
	}
}

// Detail renders the judgement's value for shipping: "15-16" (or "15") for
// a gap, "after 7" for a repeat or regression, "" otherwise. It appends to
// dst so the caller controls allocation.
func (j Judgement) Detail(dst []byte) []byte {
	switch j.Verdict {
	case SeqGap:
		dst = strconv.AppendInt(dst, j.From, 10)
		if j.To != j.From {
			dst = append(dst, '-')
			dst = strconv.AppendInt(dst, j.To, 10)
		}
	case SeqRepeat, SeqRegression:
		dst = append(dst, "after "...)
		dst = strconv.AppendInt(dst, j.PrevSeq, 10)
	}
	return dst
}

// Missing is the number of seqs a gap leaves out (0 for other verdicts),
// at most math.MaxInt64: a hostile line's seq near the int64 range never
// wraps the count negative.
func (j Judgement) Missing() int64 {
	if j.Verdict != SeqGap || j.To < j.From {
		return 0
	}
	if d := uint64(j.To) - uint64(j.From); d < math.MaxInt64 {
		return int64(d) + 1
	}
	return math.MaxInt64
}
