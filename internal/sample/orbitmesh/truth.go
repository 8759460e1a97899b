package orbitmesh

import (
	"strconv"

	"github.com/journalship/journalship/internal/sample"
)

// FormatName is the format label of the files Generate writes.
const FormatName = "orbitmesh"

// Annotation kinds carried in sample.Line.Expect, each alone or as
// "kind:detail" when the product ships a detail under the metadata key
// named kind (see the package documentation).
const (
	AnnCorrupt            = sample.AnnCorrupt
	AnnSchemaInvalid      = sample.AnnSchemaInvalid
	AnnUnknownType        = sample.AnnUnknownType
	AnnSeqGap             = "seq_gap"
	AnnSeqRepeat          = "seq_repeat"
	AnnSeqRegression      = sample.AnnSeqRegression
	AnnStatusDisagrees    = "status_disagrees"
	AnnDuplicateInterrupt = "duplicate_interrupt"
)

// seqTruth judges each readable line's seq against the highest before it
// in the file: the first may be anything, then one more is in order, more
// is a gap ("seq_gap:A" or "seq_gap:A-B", the missing seqs), equal is a
// repeat and less a regression ("seq_repeat:after H",
// "seq_regression:after H", H the highest).
type seqTruth struct {
	high int64
	seen bool
}

func (q *seqTruth) judge(seq int64) string {
	prev, seen := q.high, q.seen
	q.high, q.seen = max(q.high, seq), true
	switch {
	case !seen || seq == prev+1:
		return ""
	case seq > prev+1:
		gap := strconv.FormatInt(prev+1, 10)
		if seq-1 > prev+1 {
			gap += "-" + strconv.FormatInt(seq-1, 10)
		}
		return AnnSeqGap + ":" + gap
	case seq == prev:
		return AnnSeqRepeat + ":after " + strconv.FormatInt(prev, 10)
	}
	return AnnSeqRegression + ":after " + strconv.FormatInt(prev, 10)
}

// lineTruth is the truth of a readable record's line; the generic
// annotations come first in the order the product lists them, the
// format's notes last.
func lineTruth(off int64, text string, r *rec, f facts, q *seqTruth, t *tracker) sample.Line {
	l := sample.Line{Offset: off, Text: text, Type: r.kind(), Seq: r.seq, Valid: !r.invalid && !r.unknown}
	if r.kind() == KindMessageAssistant {
		l.Model = f.model
	}
	if r.invalid {
		l.Expect = append(l.Expect, AnnSchemaInvalid)
	}
	if r.unknown {
		l.Expect = append(l.Expect, AnnUnknownType)
	}
	if a := q.judge(r.seq); a != "" {
		l.Expect = append(l.Expect, a)
	}
	state, notes := t.line(r)
	l.State = state
	l.Expect = append(l.Expect, notes...)
	return l
}

func corruptLine(off int64, text string) sample.Line {
	return sample.Line{Offset: off, Text: text, Seq: -1, Corrupt: true, Expect: []string{AnnCorrupt}}
}
