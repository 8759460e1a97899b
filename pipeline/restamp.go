package pipeline

import (
	"context"
	"strconv"
	"time"

	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/loki"
)

// A line Loki would refuse for its time and that Old_Entries rewrite
// ships re-stamped gets a time derived from its file and its place in it:
// the file's re-stamp base plus the line's byte offset in nanoseconds.
// The base is a decision kept in the ledger (under ledger.FileMarks), so
// a retry, a restart, another worker, `ship` and the finalizer send the
// line as the same entry, which Loki's head block then keeps once, as
// long as that time is one Loki still accepts; when it is not (the
// stream moved on an hour, the base aged out of the window), a new base
// is chosen.
const (
	restampMark = "restamp_base"
	// restampMargin keeps a reused time clear of the old edge of Loki's
	// window, for the time the request takes and Loki's clock.
	restampMargin = 10 * time.Minute
)

// restampDecision is a file's new re-stamp base, written before the push.
type restampDecision struct {
	path string
	base time.Time
	f    *fileState
}

// restamp returns the time to stamp line i of file f with: the file's
// base plus the line's offset when Loki accepts it, else need (the time
// the line would be stamped with now), recording the base that gives it.
func (p *Pipeline) restamp(w *work, f *fileState, i int, need time.Time) time.Time {
	r := &w.recs[i]
	if !r.HasOffset || len(r.Path) == 0 {
		return need
	}
	if t, ok := p.fromBase(w, f, i); ok {
		return t
	}
	off := time.Duration(r.Offset)
	f.restampBase = need.Add(-off)
	w.restamps = append(w.restamps, restampDecision{path: string(r.Path), base: f.restampBase, f: f})
	return need
}

// placed returns line i's place on its file's timeline: the file's
// re-stamp base plus the line's offset, a new base chosen (and kept) from
// first() for the line when the file has none. Unlike restamp, it does not
// ask whether Loki takes that time: a line without a time of its own
// keeps the same one however its file was chunked.
func (p *Pipeline) placed(w *work, f *fileState, i int, first func() time.Time) time.Time {
	r := &w.recs[i]
	off := time.Duration(r.Offset)
	if !f.restampRead {
		f.restampBase, f.restampRead = p.readRestamp(w.ctx, string(r.Path))
	}
	if b := f.restampBase; !b.IsZero() {
		return b.Add(off)
	}
	t := first()
	f.restampBase = t.Add(-off)
	w.restamps = append(w.restamps, restampDecision{path: string(r.Path), base: f.restampBase, f: f})
	return t
}

// fromBase returns line i's time from its file's re-stamp base when the
// file has one and Loki accepts that time.
func (p *Pipeline) fromBase(w *work, f *fileState, i int) (time.Time, bool) {
	r, it := &w.recs[i], &w.items[i]
	if !r.HasOffset || len(r.Path) == 0 {
		return time.Time{}, false
	}
	if !f.restampRead {
		f.restampBase, f.restampRead = p.readRestamp(w.ctx, string(r.Path))
	}
	if b := f.restampBase; !b.IsZero() {
		if t := b.Add(time.Duration(r.Offset)); p.stampable(w, it.labels, t) {
			return t, true
		}
	}
	return time.Time{}, false
}

// stampable tells whether Loki accepts an entry of stream labels at t,
// whoever sends what (see behind.safe).
func (p *Pipeline) stampable(w *work, labels []loki.Label, t time.Time) bool {
	if t.Before(w.now.Add(-p.cfg.MaxEntryAge+restampMargin)) || t.After(w.now.Add(p.cfg.MaxFutureSkew/2)) {
		return false
	}
	return p.behind.window <= 0 || !t.Before(p.behind.safe(w.now, p.cfg.MaxFutureSkew)) && p.behind.accepts(labels, t)
}

// readRestamp returns the re-stamp base the ledger keeps for path (the
// zero time for none), and false when the ledger could not be read (to
// be read again next time).
func (p *Pipeline) readRestamp(ctx context.Context, path string) (time.Time, bool) {
	if p.behind.store == nil {
		return time.Time{}, true
	}
	marks, err := p.behind.store.Marks(ctx, ledger.FileMarks(path))
	if err != nil {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(marks[restampMark], 10, 64)
	if err != nil {
		return time.Time{}, true
	}
	return time.Unix(0, ns), true
}

// publishRestamps writes the flush's new re-stamp bases before its push.
func (p *Pipeline) publishRestamps(ctx context.Context, w *work) error {
	s := p.behind.store
	if s == nil {
		return nil
	}
	for i, d := range w.restamps {
		if err := s.SetMarks(ctx, ledger.FileMarks(d.path), map[string]string{restampMark: strconv.FormatInt(d.base.UnixNano(), 10)}); err != nil {
			for _, u := range w.restamps[i:] {
				u.forget()
			}
			return err
		}
	}
	return nil
}

// forget makes the file read its base from the ledger again: the one it
// decided was not kept, and a retry must decide again and keep it.
func (d restampDecision) forget() {
	d.f.mu.Lock()
	d.f.restampRead = false
	d.f.mu.Unlock()
}
