package finalize

import (
	"context"
	"fmt"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/pipeline"
)

// side ships the records the file's format keeps beside a session's main
// journal (format.SideRecords: Go pkg/session's checkpoints, and its
// summary once over) that the ledger's marks do not show shipped, then
// stores the new marks. Marks are stored only after Loki has the
// records: a pass cut short ships them again, identical, which Loki
// stores once. It runs on every pass, the file finished or not: a run
// that ends without a new message (its prompt's write dropped) changes
// only metadata.json, and a manifest half written at one pass is whole at
// a later one. over, when not nil, is what the caller already knows of
// whether the session is over (the audit it just ran); nil reads the
// file, only if a summary may be due.
func (f *Finalizer) side(ctx context.Context, path string, over func() bool) error {
	fm := f.ship.Format(path)
	sr, ok := fm.(format.SideRecords)
	if !ok {
		return nil
	}
	if p, ok := fm.Claim(path); !ok || p.Group != path {
		return nil // a member journal: its session's records go with the main one
	}
	marks, err := f.ledger.Marks(ctx, path)
	if err != nil {
		return fmt.Errorf("finalize: ledger marks of %s: %w", path, err)
	}
	if over == nil {
		over = func() bool { return f.sessionOver(path) }
	}
	recs, next := sr.SideRecords(path, over, marks)
	if len(recs) > 0 {
		entries := make([]pipeline.Synthetic, len(recs))
		for i, r := range recs {
			entries[i] = synthetic(path, r)
		}
		if err := f.ship.ShipSynthetic(ctx, entries); err != nil {
			return err
		}
	}
	if len(next) == 0 {
		return nil
	}
	if err := f.ledger.SetMarks(ctx, path, next); err != nil {
		return fmt.Errorf("finalize: ledger marks of %s: %w", path, err)
	}
	return nil
}

// synthetic is the entry of a side record of the journal at path.
func synthetic(path string, r format.SideRecord) pipeline.Synthetic {
	e := pipeline.Synthetic{Path: path, Kind: r.EventType, Time: r.Time, Line: r.Line, Annotations: r.Annotations,
		Role: r.Role.String(), Model: r.Model, EndReason: r.EndReason, Reported: r.ReportedCostUSD, HasReported: r.HasReported}
	if r.HasCost {
		e.Cost, e.CostModel = r.CostUSD, r.Model
		if e.CostModel == "" {
			e.CostModel = "unknown" // the dollars count even when the runtime names no model
		}
	}
	return e
}
