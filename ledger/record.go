package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/journalship/journalship/journalfile"
)

// Record durably adds the segments Loki accepted: when it returns nil every
// segment is on disk (WAL fsynced); when it fails, nothing of the call is
// visible to anyone. All segments of a call are applied in one transaction
// (concurrent calls of one process may share it, see write), merged per
// file with each other and with the stored ranges they overlap or touch.
// Recording a segment again is harmless, so a call that failed may simply
// be retried (a commit whose fsync failed may have reached the disk all the
// same). Recording past the Size of a finished file clears its Finished
// flag.
func (l *Ledger) Record(ctx context.Context, segs []Segment) error {
	plans, err := plan(segs)
	if err != nil || len(plans) == 0 {
		return err
	}
	label := plans[0].path
	if len(plans) > 1 {
		label = fmt.Sprintf("%s (and %d more files)", label, len(plans)-1)
	}
	now := time.Now().UnixNano()
	return l.write(ctx, "record", label, func(w *wtx) error {
		for _, p := range plans {
			if err := recordFile(w, p, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// recordFile merges the ranges of one file into its stored ranges. When
// the path names another file than the stored ranges are of (replaced,
// truncated and rewritten, rotated), those ranges are retired first: the
// new file starts with nothing shipped.
func recordFile(w *wtx, p filePlan, now int64) error {
	var id, size int64
	var stored string
	var finished bool
	if err := w.stmt(sUpsertFile).QueryRowContext(w.ctx, p.path, now).Scan(&id, &stored, &size, &finished); err != nil {
		return err
	}
	switch old := journalfile.Identity(stored); {
	case !journalfile.Same(old, p.identity):
		if err := w.exec(sDeleteRanges, id); err != nil {
			return err
		}
		if err := w.exec(sRetire, id, string(p.identity)); err != nil {
			return err
		}
		size, finished = -1, false
	case len(p.identity) > len(old):
		if err := w.exec(sSetIdentity, id, string(p.identity)); err != nil {
			return err
		}
	}
	for _, r := range p.ranges {
		if err := mergeStored(w, id, r); err != nil {
			return err
		}
	}
	if end := p.ranges[len(p.ranges)-1].End; finished && end > size {
		return w.exec(sUnfinish, id)
	}
	return nil
}

// mergeStored replaces the stored ranges of file id that touch r by their
// merge with r.
func mergeStored(w *wtx, id int64, r Range) error {
	stored, err := touching(w, id, r)
	if err != nil {
		return err
	}
	m := r
	for _, s := range stored {
		m = merge(s, m)
	}
	if len(stored) == 1 && stored[0] == m {
		return nil // already recorded: a retry
	}
	if len(stored) > 0 {
		if err := w.exec(sDeleteTouching, id, r.Start, r.End); err != nil {
			return err
		}
	}
	return w.exec(sInsertRange, id, m.Start, m.End, m.FirstSeq, m.LastSeq, m.Lines)
}

// touching returns the stored ranges of file id that overlap or touch r,
// sorted by Start.
func touching(w *wtx, id int64, r Range) ([]Range, error) {
	rows, err := w.stmt(sTouching).QueryContext(w.ctx, id, r.Start, r.End)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Range
	for rows.Next() {
		var s Range
		if err := rows.Scan(&s.Start, &s.End, &s.FirstSeq, &s.LastSeq, &s.Lines); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
