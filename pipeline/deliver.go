package pipeline

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/loki"
)

// deliver pushes the batch, handles Loki's rejections, writes the dead
// letters and records the ledger. Any failure is a *RetryError and nothing
// may be acknowledged.
func (p *Pipeline) deliver(ctx context.Context, w *work) error {
	start := time.Now()
	if err := p.behind.publish(ctx); err != nil {
		return &RetryError{Cause: "ledger", Err: err}
	}
	if err := p.publishRestamps(ctx, w); err != nil {
		return &RetryError{Cause: "ledger", Err: err}
	}
	if err := p.bills.claim(ctx, w.claims); err != nil {
		return err
	}
	if err := p.push(ctx, w, &w.batch); err != nil {
		return p.settle(ctx, w, err)
	}
	if w.retry.Len() > 0 {
		if err := p.push(ctx, w, &w.retry); err != nil {
			return p.settle(ctx, w, err)
		}
	}
	if p.deps.Metrics != nil && w.batch.Len() > 0 {
		p.deps.Metrics.PushDuration.Observe(time.Since(start).Seconds())
	}
	if err := p.deps.DeadLetters.Write(w.dl); err != nil {
		return &RetryError{Cause: "dead_letter", Err: err}
	}
	for _, e := range w.dl {
		p.deps.Logger.Warnf("dead-lettered file=%s offset=%d stage=%s reason=%s", e.File, e.Offset, e.Stage, e.Reason)
	}
	if p.deps.Ledger == nil {
		p.releaseBills(ctx, w)
		return nil
	}
	if err := p.deps.Ledger.Record(ctx, p.segments(w)); err != nil {
		if p.deps.Metrics != nil {
			p.deps.Metrics.LedgerErrors.Inc()
		}
		return &RetryError{Cause: "ledger", Err: err}
	}
	p.releaseBills(ctx, w)
	return nil
}

// push sends b and handles Loki's refusals. On a failure, the items Loki
// did not settle (the failed request's and the later ones', and those of
// answered requests that it refused, which are judged again on retry) are
// marked unsettled.
func (p *Pipeline) push(ctx context.Context, w *work, b *loki.Batch) error {
	res, err := p.pushBatch(ctx, b)
	if err != nil {
		for _, ref := range res.Unsettled {
			w.unsettle(ref)
		}
		for _, rj := range res.Rejected {
			w.unsettle(rj.Ref)
		}
		return err
	}
	for _, rj := range res.Rejected {
		p.rejected(w, rj, b == &w.retry)
	}
	return nil
}

// pushBatch sends b and returns what Loki did with it: the entries it
// refused for good, and, with a *RetryError (any failure to deliver the
// batch that is not a refusal entry by entry), the entries it did not
// settle.
func (p *Pipeline) pushBatch(ctx context.Context, b *loki.Batch) (loki.Result, error) {
	if b.Len() == 0 {
		return loki.Result{}, nil
	}
	res, err := p.deps.Pusher.Push(ctx, b)
	if err != nil {
		var pe *loki.PermanentError
		if !errors.As(err, &pe) || len(res.Rejected) == 0 {
			_, cause := loki.Classify(err)
			if res.Unsettled == nil {
				res.Unsettled = b.Refs() // a Pusher that cannot tell: nothing is settled
			}
			return res, &RetryError{Cause: cause, Err: err}
		}
	}
	return res, nil
}

// settle records what Loki stored of a flush that failed part way (a
// request refused with 429 or 5xx, a timeout after earlier requests were
// stored), with the dead letters already decided, and counts it; then it
// returns err so that the chunk is retried. The retry finds those lines in
// the ledger and sends only the rest: a flush of several requests never
// sends again what Loki answered 2xx. Without a ledger nothing can be
// recorded and the whole chunk is sent again.
func (p *Pipeline) settle(ctx context.Context, w *work, err error) error {
	if p.deps.Ledger == nil || !w.settledAny() {
		return err
	}
	if dlErr := p.deps.DeadLetters.Write(w.dl); dlErr != nil {
		return err
	}
	if recErr := p.deps.Ledger.Record(ctx, p.segments(w)); recErr != nil {
		if p.deps.Metrics != nil {
			p.deps.Metrics.LedgerErrors.Inc()
		}
		return err
	}
	p.account(w)
	return err
}

// outsideWindow tells whether Loki would refuse t as too old or too new.
func (p *Pipeline) outsideWindow(t, now time.Time) bool {
	return t.Before(now.Add(-p.cfg.MaxEntryAge)) || t.After(now.Add(p.cfg.MaxFutureSkew))
}

// behindReason is the dead-letter reason for an entry too far behind its
// stream's newest entry.
func behindReason(t, cut time.Time) string {
	return "timestamp " + t.Format(time.RFC3339Nano) + " is before " + cut.Format(time.RFC3339Nano) +
		", the oldest time its Loki stream accepts (too far behind its newest entry)"
}

// outsideReason is the dead-letter reason for an entry outside the window.
func outsideReason(t time.Time) string {
	return "timestamp " + t.Format(time.RFC3339Nano) + " is outside Loki's accepted window"
}

// stamped copies meta for an entry re-stamped now: annotations set to
// annots (added if absent) and the entry's own time kept in
// original_timestamp.
func stamped(meta []loki.Label, orig time.Time, annots string) []loki.Label {
	out := make([]loki.Label, 0, len(meta)+2)
	found := false
	for _, m := range meta {
		if m.Name == string(KeyAnnotations) {
			m.Value, found = annots, true
		}
		out = append(out, m)
	}
	if !found {
		out = append(out, loki.Label{Name: string(KeyAnnotations), Value: annots})
	}
	return append(out, loki.Label{Name: mdOriginalTimestamp, Value: orig.Format(time.RFC3339Nano)})
}

// rejected handles one entry Loki refused for good: a timestamp refusal is
// re-sent stamped now under the Rewrite policy (once); anything else goes
// to the dead letters with Loki's reason.
func (p *Pipeline) rejected(w *work, rj loki.Rejection, isRetry bool) {
	i := rj.Ref
	if i < 0 || i >= len(w.items) {
		return
	}
	it := &w.items[i]
	if !isRetry && p.cfg.OldEntries == Rewrite && !it.rewritten && timestampRefusal(rj.Reason) {
		p.rewrite(w, i)
		return
	}
	it.sent = false
	if timestampRefusal(rj.Reason) {
		w.deadLetter(i, dlOutsideWindow, rj.Reason)
		return
	}
	w.deadLetter(i, dlLokiRejected, rj.Reason)
}

func timestampRefusal(reason string) bool {
	r := strings.ToLower(reason)
	return strings.Contains(r, "too old") || strings.Contains(r, "too far behind") || strings.Contains(r, "too new") || strings.Contains(r, "greater than")
}

func (p *Pipeline) rewrite(w *work, i int) {
	it := &w.items[i]
	it.annots |= aTimestampRewritten
	meta := stamped(it.meta, it.ts, annotList(w, it))
	it.ts, it.meta, it.rewritten = p.cfg.Now().Add(time.Duration(w.retry.Len())), meta, true
	p.behind.admit(it.labels, it.ts)
	r := &w.recs[i]
	if err := w.retry.Add(it.labels, loki.Entry{Timestamp: it.ts, Line: string(shipped(it, r)), Metadata: meta, Ref: i}); err != nil {
		it.sent = false
		w.deadLetter(i, dlUnencodable, err.Error())
	}
}

// segments lists the byte ranges this flush accounted for (shipped or
// dead-lettered), one per run of adjacent lines of a file.
func (p *Pipeline) segments(w *work) []ledger.Segment {
	var cur *ledger.Segment
	for _, i := range w.order {
		r, it := &w.recs[i], &w.items[i]
		if it.unsettled {
			cur = nil // a hole: the line is sent again on retry
			continue
		}
		if len(r.Path) == 0 || !r.HasOffset {
			continue
		}
		seq, high := int64(-1), int64(-1)
		if it.hasSeq {
			seq = it.seq
		}
		// LastSeq is the highest seq so far, what continuity needs to judge
		// the next line after a restart when the file is gone.
		if it.after.Known && !it.after.AtStart {
			high = it.after.Seq
		}
		end := r.Offset + lineLen(r) + 1
		if cur != nil && cur.Path == string(r.Path) && r.Offset-cur.End >= 0 && r.Offset-cur.End <= 1 {
			cur.End, cur.LastSeq = end, high
			cur.Lines++
			w.last[len(w.last)-1] = i
			continue
		}
		if cur != nil && cur.Path == string(r.Path) && r.Offset < cur.End {
			continue // the same line twice in one chunk
		}
		w.segs = append(w.segs, ledger.Segment{Path: string(r.Path), Start: r.Offset, End: end, Lines: 1, FirstSeq: seq, LastSeq: high})
		w.last = append(w.last, i)
		cur = &w.segs[len(w.segs)-1]
	}
	return p.identify(w)
}

// identify gives each segment its file's identity and drops the segments
// of a file that no longer holds the lines just shipped: one replaced
// since tail read them (a retry after an outage may come hours later) or
// gone. The ledger must never claim bytes of a file for lines read from
// another; the lines are in Loki all the same, and the finalizer ships the
// new file from its first byte. Each file is checked once per flush, on
// its last line of the flush, unless claim checked it already: then the
// identity it read is the one of the file the lines came from, and is
// recorded (a file replaced since has another, and the ledger retires
// these ranges when it records the new file's).
func (p *Pipeline) identify(w *work) []ledger.Segment {
	ids := w.verified
	bad := map[string]error{}
	for k := len(w.segs) - 1; k >= 0; k-- { // the last line of each file first
		path := w.segs[k].Path
		if _, done := ids[path]; done || bad[path] != nil {
			continue
		}
		r := &w.recs[w.last[k]]
		id, err := journalfile.HoldsLines(path, lineOf(r))
		if err != nil {
			bad[path] = err
			continue
		}
		ids[path] = id
	}
	kept := w.segs[:0]
	for _, s := range w.segs {
		if bad[s.Path] == nil {
			s.Identity = ids[s.Path]
			kept = append(kept, s)
		}
	}
	for path, err := range bad {
		p.deps.Logger.Warnf("file=%s: shipped, but not recorded in the ledger: the file no longer holds the lines read (%v); the finalizer ships it again from its start", path, err)
	}
	w.segs = kept
	return kept
}

// lineLen is the length of the record's line in its file: Cut when only
// its first bytes are held.
func lineLen(r *chunk.Record) int64 {
	return max(int64(len(r.Line)), r.Cut)
}
