package retention

import (
	"context"
	"fmt"
	"strings"

	"github.com/journalship/journalship/ledger"
)

// finalize offers one journal to the finalizer, which ships the lines of
// any hole between its shipped ranges whatever the file's state, and
// finishes it when it is over. A hole shipped is logged with the file and
// its byte ranges, and counted.
func (s *sweep) finalize(ctx context.Context, path string) final {
	out, err := s.fin.File(ctx, path)
	if out.HoleLines > 0 {
		s.m.HolesShippedLines.Add(float64(out.HoleLines))
		s.log.Infof("shipped %d lines from holes of %s at bytes %s: lines Fluent Bit read but never delivered", out.HoleLines, path, byteRanges(out.Holes))
	}
	if err != nil {
		s.fail("finalize", "finalizing %s: %v", path, err)
	}
	return final{out: out, err: err}
}

// byteRanges renders ranges as [start,end) pairs, at most four of them.
func byteRanges(rs []ledger.Range) string {
	var b strings.Builder
	for i, r := range rs {
		if i == 4 {
			fmt.Fprintf(&b, " ... (%d ranges)", len(rs))
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "[%d,%d)", r.Start, r.End)
	}
	return b.String()
}
