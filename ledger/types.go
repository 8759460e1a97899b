package ledger

import (
	"fmt"
	"time"

	"github.com/journalship/journalship/journalfile"
)

// Segment is one contiguous byte range [Start, End) of a journal file that
// Loki accepted. End is the offset just past the last line's newline.
// A segment with Start == End carries no bytes and is ignored (its Lines
// must be 0).
type Segment struct {
	Path string // the journal file
	// Identity is the file's identity when its lines were read ("" when
	// unknown). Recording a segment of another identity than the stored
	// one retires the stored ranges: the path names a new file.
	Identity journalfile.Identity
	Start    int64 // offset of the first byte, >= 0
	End      int64 // offset just past the last byte, >= Start
	Lines    int   // number of lines in the range, >= 0
	FirstSeq int64 // seq of the first line, -1 if it had none
	LastSeq  int64 // the highest seq up to the end of the range (the continuity state after its last line), -1 if none
}

// Range is a merged shipped range [Start, End) of one file.
//
// Merging keeps the FirstSeq of the range that starts lowest and the LastSeq
// of the range that ends highest. Lines is exact when the merged inputs are
// disjoint or nested (a retried segment adds nothing); where inputs overlap
// partially the lines of the overlap are counted twice, so Lines is then an
// upper bound.
type Range struct {
	Start, End        int64 // [Start, End) byte offsets
	FirstSeq, LastSeq int64 // seqs at the edges, -1 where the line had none
	Lines             int   // lines in the range
}

// FileState is what the ledger knows of one file.
type FileState struct {
	Path      string               // the journal file
	Identity  journalfile.Identity // the file the ranges are of ("" unknown: a version 1 row)
	Ranges    []Range              // sorted, disjoint, merged (never adjacent)
	Watermark int64                // end of the range that starts at 0 (0 if none): every byte before it is shipped
	Size      int64                // the size the file had when it was last marked finished (-1 if never)
	Finished  bool                 // MarkFinished was called and nothing was recorded past Size since
	UpdatedAt time.Time            // when the file's row last changed (zero for an unknown file)
}

// watermark is the End of the range starting at 0, or 0.
func watermark(rs []Range) int64 {
	if len(rs) > 0 && rs[0].Start == 0 {
		return rs[0].End
	}
	return 0
}

// validate checks one segment; i is its index in the Record call.
func (s Segment) validate(i int) error {
	var cause error
	switch {
	case s.Path == "":
		cause = fmt.Errorf("segment %d: empty path", i)
	case s.Start < 0:
		cause = fmt.Errorf("segment %d: start %d is negative", i, s.Start)
	case s.End < s.Start:
		cause = fmt.Errorf("segment %d: end %d is before start %d", i, s.End, s.Start)
	case s.Lines < 0:
		cause = fmt.Errorf("segment %d: lines %d is negative", i, s.Lines)
	case s.End == s.Start && s.Lines != 0:
		cause = fmt.Errorf("segment %d: %d lines in an empty range at %d", i, s.Lines, s.Start)
	case s.FirstSeq < -1 || s.LastSeq < -1:
		cause = fmt.Errorf("segment %d: seqs %d..%d below -1", i, s.FirstSeq, s.LastSeq)
	default:
		return nil
	}
	return invalid("record", s.Path, cause)
}

// rng is the segment as a Range.
func (s Segment) rng() Range {
	return Range{Start: s.Start, End: s.End, FirstSeq: s.FirstSeq, LastSeq: s.LastSeq, Lines: s.Lines}
}

// End is the end of the last of rs (sorted), 0 when there is none: a file
// shorter than that was truncated since they were recorded.
func End(rs []Range) int64 {
	if len(rs) == 0 {
		return 0
	}
	return rs[len(rs)-1].End
}

// Covered tells whether [start, end) lies within one of rs: those bytes
// are shipped.
func Covered(rs []Range, start, end int64) bool {
	for _, rg := range rs {
		if rg.Start <= start && end <= rg.End {
			return true
		}
	}
	return false
}
