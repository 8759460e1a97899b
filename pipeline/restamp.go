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
//
// A line with no time of its own before any line that has one is placed
// likewise, from a base of its own (placeMark, first the file's
// modification time), which nothing moves: the same place however the
// file was chunked, shipped or re-stamped.
const (
	restampMark = "restamp_base"
	placeMark   = "place_base"
	// restampMargin keeps a reused time clear of the old edge of Loki's
	// window, for the time the request takes and Loki's clock.
	restampMargin = 10 * time.Minute
)

// fileBase is a base a file's lines are stamped from, as the ledger keeps
// it under mark.
type fileBase struct {
	t    time.Time
	read bool // t is what the ledger held (zero: none) or what was decided since
}

// base returns the file's base of mark, read from the ledger on first use.
func (p *Pipeline) base(ctx context.Context, f *fileState, path []byte, mark string) *fileBase {
	b := &f.restamp
	if mark == placeMark {
		b = &f.place
	}
	if !b.read {
		b.t, b.read = p.readBase(ctx, string(path), mark) // once per file: the path is copied only then
	}
	return b
}

// restampDecision is a file's new base of mark, written before the push.
type restampDecision struct {
	path, mark string
	base       time.Time
	f          *fileState
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
	b := p.base(w.ctx, f, r.Path, restampMark)
	b.t = need.Add(-time.Duration(r.Offset))
	w.restamps = append(w.restamps, restampDecision{path: string(r.Path), mark: restampMark, base: b.t, f: f})
	return need
}

// placed returns line i's place on its file's timeline: the file's place
// base plus the line's offset, a new base chosen (and kept) from first()
// for the line when the file has none. Unlike restamp, it does not
// ask whether Loki takes that time: a line without a time of its own
// keeps the same one however its file was chunked.
func (p *Pipeline) placed(w *work, f *fileState, i int, first func() time.Time) time.Time {
	r := &w.recs[i]
	off := time.Duration(r.Offset)
	b := p.base(w.ctx, f, r.Path, placeMark)
	if !b.t.IsZero() {
		return b.t.Add(off)
	}
	t := first()
	b.t = t.Add(-off)
	w.restamps = append(w.restamps, restampDecision{path: string(r.Path), mark: placeMark, base: b.t, f: f})
	return t
}

// fromBase returns line i's time from its file's re-stamp base when the
// file has one and Loki accepts that time.
func (p *Pipeline) fromBase(w *work, f *fileState, i int) (time.Time, bool) {
	r, it := &w.recs[i], &w.items[i]
	if !r.HasOffset || len(r.Path) == 0 {
		return time.Time{}, false
	}
	if b := p.base(w.ctx, f, r.Path, restampMark).t; !b.IsZero() {
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

// readBase returns the base of mark the ledger keeps for path (the zero
// time for none), and false when the ledger could not be read (to be
// read again next time).
func (p *Pipeline) readBase(ctx context.Context, path, mark string) (time.Time, bool) {
	if p.behind.store == nil {
		return time.Time{}, true
	}
	marks, err := p.behind.store.Marks(ctx, ledger.FileMarks(path))
	if err != nil {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(marks[mark], 10, 64)
	if err != nil {
		return time.Time{}, true
	}
	return time.Unix(0, ns), true
}

// publishRestamps writes the flush's new re-stamp bases before its push,
// in one ledger transaction.
func (p *Pipeline) publishRestamps(ctx context.Context, w *work) error {
	s := p.behind.store
	if s == nil || len(w.restamps) == 0 {
		return nil
	}
	marks := make([]ledger.Mark, len(w.restamps))
	for i, d := range w.restamps {
		marks[i] = ledger.Mark{Session: ledger.FileMarks(d.path), Name: d.mark, Value: strconv.FormatInt(d.base.UnixNano(), 10)}
	}
	if err := s.PutMarks(ctx, marks); err != nil {
		for _, d := range w.restamps {
			d.forget()
		}
		return err
	}
	return nil
}

// forget makes the file read its base from the ledger again: the one it
// decided was not kept, and a retry must decide again and keep it.
func (d restampDecision) forget() {
	d.f.mu.Lock()
	d.f.restamp.read, d.f.place.read = false, false
	d.f.mu.Unlock()
}
