package pipeline

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/loki"
)

// Loki's ingester refuses an entry older than its stream's newest entry
// minus a window (half its max_chunk_age: an hour by default), and when
// the distributor shards a busy stream, a shard's refusals may be hidden
// behind another shard's success. So an entry Loki could refuse as too far
// behind is never sent as it is: its stream's newest time is known before
// it is sent, and an entry over the window behind it takes Old_Entries
// (re-stamped, see below, or dead-lettered).
//
// The newest time of a stream is what this process sent or is about to
// send (taken when the entry is judged, so concurrent flushes see each
// other's), and what other processes sharing the ledger sent: each
// process writes, before a push, a ceiling above the newest time it sends
// (newest plus behindSlack, written again once its newest passes the
// ceiling less half the slack), and reads the others' every
// behindRefresh. A ceiling above what the process wrote itself is another
// process's; one it wrote itself tells less than its own newest time, but
// says another process is at most half the slack above it.
//
// An entry is admitted with behindMargin to spare: another flush may
// raise the stream's newest time between this entry's judging and its
// push (a concurrent worker, another process's unseen half slack). An
// entry too far behind is not stamped at the stream's cutoff, which such
// a flush could pass, but at a time no stream can refuse: Loki's newest
// time in any stream is at most the sender's clock plus Max_Future_Skew
// (journalship re-stamps anything newer), so an entry stamped after
// now + Max_Future_Skew - Max_Behind (with the margin) is never too far
// behind, whoever sends what.
const (
	behindSlack   = 5 * time.Minute
	behindMargin  = 5 * time.Minute
	behindRefresh = 2 * time.Second
	// behindMarks is the ledger's marks key of the stream ceilings.
	behindMarks = "journalship:stream-newest"
)

// marker is a ledger that keeps marks between processes (*ledger.Ledger):
// the stream ceilings and the files' re-stamp bases (restamp.go).
type marker interface {
	Marks(ctx context.Context, session string) (map[string]string, error)
	PutMarks(ctx context.Context, marks []ledger.Mark) error
	RaiseMarks(ctx context.Context, session string, marks map[string]int64) error
}

// behind tracks each stream's newest entry time.
type behind struct {
	window time.Duration // 0: off
	store  marker        // nil: this process only
	mu     sync.Mutex
	// byLabels: the pipeline's label slices are cached per label set, so
	// the first label's address names a stream without building its key.
	byLabels map[*loki.Label]*streamMark
	byKey    map[string]*streamMark
	read     time.Time // when the ceilings were last read
}

// streamMark is what is known of one stream's newest time.
type streamMark struct {
	key     string
	newest  time.Time // sent or about to be sent by this process
	ceiling time.Time // in the ledger: at least any process's newest
	// published is the ceiling this process wrote last: a ceiling no
	// higher is its own, and newest tells more exactly (without slack).
	published time.Time
}

func newBehind(window time.Duration, l Ledger) *behind {
	b := &behind{window: window, byLabels: map[*loki.Label]*streamMark{}, byKey: map[string]*streamMark{}}
	if m, ok := l.(marker); ok {
		b.store = m
	}
	return b
}

// mark returns the stream of labels, made on first use. b.mu is held.
func (b *behind) mark(labels []loki.Label) *streamMark {
	m := b.byLabels[&labels[0]]
	if m != nil {
		return m
	}
	key := streamKey(labels)
	if m = b.byKey[key]; m == nil {
		m = &streamMark{key: key}
		b.byKey[key] = m
	}
	b.byLabels[&labels[0]] = m
	return m
}

// streamKey is labels' canonical text, as Loki prints a stream.
func streamKey(labels []loki.Label) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, l := range labels {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(l.Name + "=" + strconv.Quote(l.Value))
	}
	sb.WriteByte('}')
	return sb.String()
}

// admit judges an entry of stream labels at ts: when it is within the
// window, the stream's newest time takes it into account and admit
// returns true; otherwise it returns false and cut, the oldest time the
// stream accepts.
func (b *behind) admit(labels []loki.Label, ts time.Time) (ok bool, cut time.Time) {
	if b.window <= 0 || len(labels) == 0 {
		return true, time.Time{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.mark(labels)
	if cut = b.cutoff(m); cut.After(ts) {
		return false, cut
	}
	if ts.After(m.newest) {
		m.newest = ts
	}
	return true, time.Time{}
}

// cutoff is the oldest time an entry of m's stream is admitted at (the
// zero time while nothing is known of it): its newest time, this
// process's or another's ceiling, less the window and the margin.
func (b *behind) cutoff(m *streamMark) time.Time {
	newest := m.newest
	if m.ceiling.After(m.published) && m.ceiling.After(newest) {
		newest = m.ceiling // another process's, slack included
	}
	if newest.IsZero() {
		return time.Time{}
	}
	return newest.Add(-b.window + behindMargin)
}

// safe returns the oldest time no stream refuses as too far behind,
// whatever any sender sends (see above), at the clock reading now with
// the future skew Loki allows.
func (b *behind) safe(now time.Time, skew time.Duration) time.Time {
	if b.window <= skew+behindMargin {
		return now
	}
	return now.Add(skew - b.window + behindMargin)
}

// behindHeadroom is how far after the safe time a line too far behind is
// stamped: safe moves with the clock, and the stamp must stay safe for a
// retry (which reuses it, see restamp) minutes later.
const behindHeadroom = 30 * time.Minute

// stamp is the time a line too far behind is stamped with at now: safe
// with headroom, never after now.
func (b *behind) stamp(now time.Time, skew time.Duration) time.Time {
	return minTime(b.safe(now, skew).Add(behindHeadroom), now)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// accepts tells whether Loki accepts an entry of stream labels at ts,
// without taking it into account.
func (b *behind) accepts(labels []loki.Label, ts time.Time) bool {
	if b.window <= 0 || len(labels) == 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.cutoff(b.mark(labels)).After(ts)
}

// refresh reads the ceilings other processes wrote, at most every
// behindRefresh. A ledger that cannot be read leaves the known ones.
func (b *behind) refresh(ctx context.Context, now time.Time) {
	if b.window <= 0 || b.store == nil {
		return
	}
	b.mu.Lock()
	due := now.Sub(b.read) >= behindRefresh || now.Before(b.read)
	if due {
		b.read = now
	}
	b.mu.Unlock()
	if !due {
		return
	}
	marks, err := b.store.Marks(ctx, behindMarks)
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for key, v := range marks {
		ns, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		m := b.byKey[key]
		if m == nil {
			m = &streamMark{key: key}
			b.byKey[key] = m
		}
		if t := time.Unix(0, ns); t.After(m.ceiling) {
			m.ceiling = t
		}
	}
}

// publish writes, before a push, the ceiling of every stream whose newest
// time passed the ceiling the ledger holds, so that no other process sends
// into it an entry it would refuse. It fails when the ledger does.
func (b *behind) publish(ctx context.Context) error {
	if b.window <= 0 || b.store == nil {
		return nil
	}
	b.mu.Lock()
	var marks map[string]int64
	for key, m := range b.byKey {
		// Written again before the newest time passes the ceiling: a
		// process whose own newest is within half the slack of another's
		// ceiling raises it, so that the other learns it is there.
		if m.newest.After(m.ceiling.Add(-behindSlack / 2)) {
			if marks == nil {
				marks = map[string]int64{}
			}
			marks[key] = m.newest.Add(behindSlack).UnixNano()
		}
	}
	b.mu.Unlock()
	if marks == nil {
		return nil
	}
	// The ledger keeps the larger of its value and ours: several
	// processes only ever raise a stream's ceiling.
	if err := b.store.RaiseMarks(ctx, behindMarks, marks); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for key, ns := range marks {
		m, t := b.byKey[key], time.Unix(0, ns)
		if t.After(m.published) {
			m.published = t
		}
		if t.After(m.ceiling) {
			m.ceiling = t
		}
	}
	return nil
}
