package ledger

import (
	"context"
	"fmt"
	"strconv"
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
	return l.write(ctx, "record", label, func(w *wtx) error { return recordFiles(w, plans, now) })
}

// fileRow is a file's row as sUpsertFiles returns it.
type fileRow struct {
	id, size            int64
	identity            journalfile.Identity
	finished, hasRanges bool
}

// recordFiles merges the ranges of each plan into its file's stored
// ranges. Two statements do the common case for every file at once: one
// touches the files' rows, one inserts the ranges of the files that had
// none. A file with stored ranges (its lines continue them) or another
// identity takes statements of its own.
func recordFiles(w *wtx, plans []filePlan, now int64) error {
	rows, err := upsertFiles(w, plans, now)
	if err != nil {
		return err
	}
	var fresh []freshRange // the ranges of files without stored ranges
	for _, p := range plans {
		row, ok := rows[p.path]
		if !ok {
			return fmt.Errorf("ledger: no row returned for %q", p.path)
		}
		if err := settleIdentity(w, p, &row); err != nil {
			return err
		}
		for _, r := range p.ranges {
			if !row.hasRanges {
				fresh = append(fresh, freshRange{row.id, r})
				continue
			}
			if err := mergeStored(w, row.id, r); err != nil {
				return err
			}
		}
		if end := p.ranges[len(p.ranges)-1].End; row.finished && end > row.size {
			if err := w.exec(sUnfinish, row.id); err != nil {
				return err
			}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	return w.exec(sInsertRanges, rangeList(fresh))
}

// upsertFiles touches the rows of the plans' files, creating the missing
// ones with the plans' identities, and returns them by path.
func upsertFiles(w *wtx, plans []filePlan, now int64) (map[string]fileRow, error) {
	rs, err := w.stmt(sUpsertFiles).QueryContext(w.ctx, fileList(plans), now)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	rows := make(map[string]fileRow, len(plans))
	for rs.Next() {
		var path, identity string
		var row fileRow
		if err := rs.Scan(&path, &row.id, &identity, &row.size, &row.finished, &row.hasRanges); err != nil {
			return nil, err
		}
		row.identity = journalfile.Identity(identity)
		rows[path] = row
	}
	return rows, rs.Err()
}

// fileList is the plans' files as sUpsertFiles takes them: a JSON array
// of [path, identity], both in hex.
func fileList(plans []filePlan) string {
	return jsonArray(len(plans), func(b []byte, i int) []byte {
		b = appendHex(append(b, '['), plans[i].path)
		return append(appendHex(append(b, ','), string(plans[i].identity)), ']')
	})
}

// settleIdentity brings the stored identity of the plan's file to the
// plan's. When the path names another file than the stored ranges are of
// (replaced, truncated and rewritten, rotated), those ranges are retired
// first: the new file starts with nothing shipped.
func settleIdentity(w *wtx, p filePlan, row *fileRow) error {
	switch {
	case !journalfile.Same(row.identity, p.identity):
		if row.hasRanges {
			if err := w.exec(sDeleteRanges, row.id); err != nil {
				return err
			}
		}
		row.size, row.finished, row.hasRanges = -1, false, false
		return w.exec(sRetire, row.id, string(p.identity))
	case len(p.identity) > len(row.identity):
		return w.exec(sSetIdentity, row.id, string(p.identity))
	}
	return nil
}

// freshRange is a range of file id to insert as it is.
type freshRange struct {
	id int64
	r  Range
}

// rangeList is ranges as sInsertRanges takes them: a JSON array of
// [file_id, start, end, first_seq, last_seq, lines].
func rangeList(ranges []freshRange) string {
	return jsonArray(len(ranges), func(b []byte, i int) []byte {
		f := ranges[i]
		b = append(b, '[')
		for k, v := range [...]int64{f.id, f.r.Start, f.r.End, f.r.FirstSeq, f.r.LastSeq, int64(f.r.Lines)} {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, v, 10)
		}
		return append(b, ']')
	})
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
