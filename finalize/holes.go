package finalize

import (
	"context"
	"fmt"

	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/pipeline"
)

// Holes are the byte ranges of a file that lie between its shipped ranges
// (or before the first, when it does not start at 0): lines tail read but
// that never reached the ledger, such as the chunks Fluent Bit discards
// when their checksum fails after a crash. The bytes past the last shipped
// range are not a hole: tail may still be about to send them.
func Holes(shipped []ledger.Range) []ledger.Range {
	var holes []ledger.Range
	prev := int64(0)
	for _, rg := range shipped {
		if rg.Start > prev {
			holes = append(holes, ledger.Range{Start: prev, End: rg.Start, FirstSeq: -1, LastSeq: -1})
		}
		prev = max(prev, rg.End)
	}
	return holes
}

// shipHoles ships the complete lines in the holes the ledger shows, and
// records blank holes (empty lines, the \n of a \r\n that tail strips) as
// accounted for, whether the file is finished or not, so that lines
// Fluent Bit lost reach Loki at the next pass rather than when the
// session is over. It ships through the finalizer's backfill, which holds
// the ledger's lock of the file from reading what is shipped to recording
// what it sent, as the plugin does: a line the plugin is sending at the
// same time goes out once. Nothing at or past the start of the last
// shipped range is sent.
func (f *Finalizer) shipHoles(ctx context.Context, path string, st ledger.FileState, s snapshot, o *Outcome) error {
	holes := Holes(st.Ranges)
	if len(holes) == 0 {
		return nil
	}
	below := holes[len(holes)-1].End
	o.Holes = holes
	ship := &belowShipper{Shipper: f.ship, below: below}
	r, err := backfill.New(f.cfg.Backfill, ship, f.ledger)
	if err != nil {
		return err
	}
	stats, err := r.Run(ctx, path)
	o.HoleLines += stats.Shipped + stats.DeadLettered
	if err != nil {
		return fmt.Errorf("finalize: shipping the holes of %s: %w", path, err)
	}
	return f.fillBlankGaps(ctx, path, s.id, below)
}

// belowShipper passes on only the records of lines that start below an
// offset: the lines of the holes, never those past the last shipped range.
type belowShipper struct {
	backfill.Shipper
	below int64
}

// Ship ships the records that start below s.below.
func (s *belowShipper) Ship(ctx context.Context, recs []chunk.Record, tag string) (pipeline.Result, error) {
	kept := make([]chunk.Record, 0, len(recs))
	for _, r := range recs {
		if r.HasOffset && r.Offset < s.below {
			r.Index = len(kept)
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return pipeline.Result{}, nil
	}
	return s.Shipper.Ship(ctx, kept, tag)
}
