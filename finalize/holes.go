package finalize

import (
	"context"
	"fmt"

	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/pipeline"
)

// Holes are the byte ranges of a file that lie between its shipped ranges
// (or before the first, when it does not start at 0): lines tail read but
// that never reached the ledger, such as the chunks Fluent Bit discards
// when their checksum fails after a crash. The bytes past the last shipped
// range are not a hole while the file changes: tail may still be about to
// send them (see shipHoles for a quiet file).
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
// same time goes out once. Past the last shipped range, complete lines
// ship only when quiet, for a file not finished but unchanged for
// StaleAfter (shipQuiet; a finished file ships them itself): tail would
// have sent them by then, unless Fluent Bit lost them (a whole file's
// chunks discarded after a crash leave it with no shipped range at all,
// and a session whose run never ends is never finished); a chunk still
// queued behind a Loki outage finds the lines in the ledger and sends
// nothing twice.
func (f *Finalizer) shipHoles(ctx context.Context, path string, st ledger.FileState, s snapshot, o *Outcome, quiet bool) error {
	holes := Holes(st.Ranges)
	below := int64(0)
	if len(holes) > 0 {
		below = holes[len(holes)-1].End
	}
	if end := ledger.End(st.Ranges); quiet && s.tailFrom > end {
		holes = append(holes, ledger.Range{Start: end, End: s.tailFrom, FirstSeq: -1, LastSeq: -1})
		below = s.tailFrom
	}
	if len(holes) == 0 {
		return nil
	}
	o.Holes = append(o.Holes, holes...)
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

// shipQuiet ships every complete line of a file that is not finished but
// has been unchanged for StaleAfter and that the ledger does not hold (see
// shipHoles).
func (f *Finalizer) shipQuiet(ctx context.Context, path string, s snapshot, o *Outcome) error {
	if f.cfg.Now().Sub(s.mtime) < f.cfg.StaleAfter {
		return nil
	}
	st, err := f.ledger.File(ctx, path)
	if err != nil {
		return fmt.Errorf("finalize: ledger for %s: %w", path, err)
	}
	if !journalfile.Same(st.Identity, s.id) && len(st.Ranges) > 0 {
		return nil // replaced meanwhile: the next pass sees it
	}
	return f.shipHoles(ctx, path, st, s, o, true)
}
