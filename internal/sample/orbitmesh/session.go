package orbitmesh

import (
	"fmt"
	"time"
)

// tsLayout is the records' ts: RFC 3339 UTC with milliseconds.
const tsLayout = "2006-01-02T15:04:05.000Z"

// rec is one record the runtime appends, with what the generator decided
// happens to its bytes and what the truth needs of it.
type rec struct {
	b   body
	at  time.Time
	seq int64

	runID  string // the run_id written, "" when the record has none
	token  string // run.waiting's resume_token_id, a token record's token_id
	reason string // run.interrupted's reason
	status string // status.derived's status

	lost    bool // never reached the file
	torn    bool // interleaved with the next record: one corrupt line holding both
	crash   bool // the process died while appending it: the file's partial tail
	invalid bool // breaks the record schema
	unknown bool // a kind the format does not know
}

func (r *rec) kind() string { return r.b.hd().Kind }

// snapMode is which side files a session leaves beside its log.
type snapMode uint8

const (
	snapFull    snapMode = iota // snapshot and token index
	snapNoIndex                 // snapshot only (the index is optional)
	snapNone                    // neither (a session from before the snapshots)
	snapTorn                    // a half-written snapshot, no index
)

// session builds one session's log the way the OrbitMesh runtime appends
// it, and keeps the runtime's own view of it for the snapshot.
type session struct {
	x       *rng
	th      theme
	id      string
	model   string
	created time.Time
	clock   time.Time
	recs    []*rec
	next    int64 // the next seq
	high    int64 // the highest seq appended

	boot         string // the boot the runtime runs under now
	bootN        int
	lastBootSeen string
	msgs         int
	doing        task // what the latest run was asked to do
	run          *runView
	tokens       []*tokenView
	interruption *interruptionView
	snap         snapMode
	updated      time.Time // when the snapshot was last written (zero: the last record's time)
}

// runView is the latest run as the runtime sees it.
type runView struct {
	id, boot string
	started  time.Time
	ended    time.Time // zero while the run goes on
	wait     *waitView
}

type waitView struct {
	kind     string
	sinceSeq int64
	token    *tokenView
	deadline time.Time
}

type tokenView struct {
	id, runID, waitKind, state string
	minted, expires            time.Time
	secret                     string
}

type interruptionView struct {
	runID, reason string
	at            time.Time
}

// newSession starts session with the given id at at.
func newSession(x *rng, id, model string, at time.Time) *session {
	s := &session{x: x, th: newTheme(x), id: id, model: model, created: at, clock: at, next: 1, high: 0}
	s.bootN = x.Between(1, 6)
	s.boot = s.bootID()
	s.lastBootSeen = s.boot
	return s
}

// bootID names the runtime's current boot: boot_<date>_<n>.
func (s *session) bootID() string {
	return fmt.Sprintf("boot_%s_%d", s.created.Format("20060102"), s.bootN)
}

// reboot starts a new process: a new boot that has seen the session.
func (s *session) reboot() {
	s.bootN++
	s.boot = s.bootID()
	s.lastBootSeen = s.boot
}

// tick advances the session's clock.
func (s *session) tick(d time.Duration) { s.clock = s.clock.Add(d) }

// add appends a record with the next seq at the current time.
func (s *session) add(b body, kind string) *rec {
	r := s.addSeq(b, kind, s.next)
	s.next++
	return r
}

// addSeq appends a record with the given seq (a writer with a stale view
// of the log); the next seq is unchanged.
func (s *session) addSeq(b body, kind string, seq int64) *rec {
	h := b.hd()
	h.Seq, h.TS, h.Kind = seq, stamp(s.clock), kind
	r := &rec{b: b, at: s.clock, seq: seq}
	s.high = max(s.high, seq)
	s.recs = append(s.recs, r)
	return r
}

// last returns the last record appended.
func (s *session) last() *rec { return s.recs[len(s.recs)-1] }

// messageID returns a new message id.
func (s *session) messageID() string {
	s.msgs++
	return fmt.Sprintf("msg_%s%02d", s.x.Chars(8, base32Alphabet), s.msgs)
}

// lastSeq is the snapshot's last_seq: the highest seq of the records the
// runtime completed (not the one it died appending).
func (s *session) lastSeq() int64 {
	var n int64
	for _, r := range s.recs {
		if !r.crash {
			n = max(n, r.seq)
		}
	}
	return n
}
