package orbitmesh

import (
	"bytes"
	"fmt"
	"time"
)

// The derived statuses (docs/formats/orbitmesh.md, Derived status), in
// increasing precedence.
const (
	StatusIdle               = "idle"
	StatusRunning            = "running"
	StatusWaiting            = "waiting"
	StatusInterruptedWaiting = "interrupted_waiting"
	StatusInterruptedStartup = "interrupted_startup"
)

// statusDetail holds each status as bytes, for a note's detail.
var statusDetail = map[string][]byte{
	StatusIdle: []byte(StatusIdle), StatusRunning: []byte(StatusRunning),
	StatusWaiting: []byte(StatusWaiting), StatusInterruptedWaiting: []byte(StatusInterruptedWaiting),
	StatusInterruptedStartup: []byte(StatusInterruptedStartup),
}

// statusOf returns the status constant b names, or "".
func statusOf(b []byte) string {
	switch string(b) {
	case StatusIdle:
		return StatusIdle
	case StatusRunning:
		return StatusRunning
	case StatusWaiting:
		return StatusWaiting
	case StatusInterruptedWaiting:
		return StatusInterruptedWaiting
	case StatusInterruptedStartup:
		return StatusInterruptedStartup
	}
	return ""
}

// ringSize bounds the run ids a State remembers per set.
const ringSize = 256

// ring is a bounded set of run id hashes; the oldest is forgotten first.
type ring struct {
	h [ringSize]uint64
	n int
}

func (r *ring) add(h uint64) { r.h[r.n%ringSize] = h; r.n++ }

func (r *ring) has(h uint64) bool {
	for _, v := range r.h[:min(r.n, ringSize)] {
		if v == h {
			return true
		}
	}
	return false
}

// hash is FNV-1a: run ids are remembered by hash, without allocating.
func hash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// State is what a session log's lines say so far: the latest run, its
// wait and its end, and the snapshot the caller gave (UseSnapshot). Its
// memory is bounded: run ids past the latest are kept as hashes in two
// rings of 256.
type State struct {
	now     func() time.Time
	snap    Snapshot
	hasSnap bool
	model   []byte

	maxSeq    int64
	hasMaxSeq bool

	hasRun    bool
	run       []byte // the latest run's id (empty when its lines had none)
	runHash   uint64
	terminal  bool         // a terminal record ended it
	intr      interruption // how it was interrupted
	intrWait  bool         // it was waiting when interrupted
	waiting   bool         // run.waiting not yet resumed
	token     []byte       // the wait's resume token ("" when missing)
	tokenGone bool         // the log consumed, revoked or expired it

	past        ring // runs that are no longer the latest
	interrupted ring // runs with a run.interrupted

	// The runtime's log (sidestate.go, usage.go): its side files, the
	// newest line time, the attempt whose end a line marked (index+1), the
	// latest response's usage counted (and what the last line shipped, for
	// Withdraw) and the models its provider events named.
	current   bool
	side      Side
	hasSide   bool
	reasons   [][]byte // the attempts' terminal reasons, for EndReason of a line
	newest    time.Time
	hasNewest bool
	endMarked int
	resp      response
	shipped   counters // what the last line shipped (undone: a metric line)
	undone    bool
	respModel []byte
	lastModel []byte
}

// Load implements format.SideFiles: the files beside the journal, read
// defensively (docs/formats/orbitmesh.md): the runtime's session document,
// attempts and resume tokens, and the plan's snapshot and token index.
func (s *State) Load(journalPath string) {
	s.UseSnapshot(ReadSnapshot(journalPath))
	s.UseSide(ReadSide(journalPath))
}

// UseSnapshot gives the state the session's snapshot (ReadSnapshot); the
// last one given counts. Its facts apply to lines from its last_seq on and
// to Derived (docs/formats/orbitmesh.md, Derived status).

func (s *State) UseSnapshot(sn Snapshot) {
	s.snap, s.hasSnap = sn, true
	s.model = append(s.model[:0], sn.Model...)
}

// Snapshot returns the snapshot given with UseSnapshot, if any.
func (s *State) Snapshot() (Snapshot, bool) { return s.snap, s.hasSnap }

// Derived implements format.State: the status now, the snapshot's wait
// deadline and token expiries compared with Config.Now. A log of the
// runtime's records (no plan run) has the side files' status now.
func (s *State) Derived() string {
	if !s.hasRun && (s.current || len(s.side.Attempts) > 0) {
		st, _ := s.side.statusAt(s.now())
		return st
	}
	return s.derive(s.hasSnap, s.now(), true)
}

// Over implements format.State: the latest run ended by a terminal record
// (completed, failed, cancelled or interrupted), which also ends its wait;
// for a log of the runtime's records, the latest attempt has a terminal
// reason (sideOver).
func (s *State) Over() (over, terminal bool) {
	if !s.hasRun {
		o := s.sideOver()
		return o, o
	}
	return s.terminal, s.terminal
}

// Open implements format.State: the latest run, when it has not ended.
func (s *State) Open() []string {
	switch {
	case !s.hasRun:
		return s.sideOpen()
	case s.terminal:
		return nil
	case s.waiting:
		return []string{fmt.Sprintf("run %q is waiting (resume token %q) and was never resumed or ended", s.run, s.token)}
	}
	return []string{fmt.Sprintf("run %q started and never ended", s.run)}
}

// snapApplies tells whether the snapshot's facts apply after the lines so
// far: it describes the session as of its last_seq or later. Without a
// last_seq (none written, or a half-written snapshot beside a whole token
// index) nothing says which lines it describes: it applies to Derived
// only, never to a line (a later token state must not mark an earlier
// wait interrupted).
func (s *State) snapApplies() bool {
	return s.hasSnap && s.snap.HasLastSeq && s.hasMaxSeq && s.maxSeq >= s.snap.LastSeq
}

// derive applies the rules of docs/formats/orbitmesh.md, Derived status,
// by precedence; t is the time deadlines are compared with (hasT false:
// Config.Now).
func (s *State) derive(snap bool, t time.Time, hasT bool) string {
	switch {
	case !s.hasRun:
		return StatusIdle
	case s.intr == intrRestart || s.intr == intrOther && !s.intrWait:
		return StatusInterruptedStartup
	case s.intr != intrNone:
		return StatusInterruptedWaiting
	case s.terminal:
		return StatusIdle
	case snap && s.snapStartup():
		return StatusInterruptedStartup
	case !s.waiting:
		return StatusRunning
	case len(s.token) == 0 || s.tokenGone:
		return StatusInterruptedWaiting
	case snap && s.snapWaitBroken(t, hasT):
		return StatusInterruptedWaiting
	}
	return StatusWaiting
}

// snapStartup: the snapshot's run is the latest run, not ended, and was
// started under another boot than the last one recovery saw.
func (s *State) snapStartup() bool {
	sn := &s.snap
	return sn.HasRunID && sn.RunID == string(s.run) && !sn.RunEnded &&
		sn.HasBoot && sn.HasLastBootSeen && sn.BootID != sn.LastBootSeen
}

// snapWaitBroken: the token index says the wait's token is missing, not
// active or expired, or the snapshot's wait of this run passed its
// deadline.
func (s *State) snapWaitBroken(t time.Time, hasT bool) bool {
	sn := &s.snap
	if !hasT {
		t = s.now()
	}
	if sn.HasTokens {
		tok, ok := sn.Tokens[string(s.token)]
		switch {
		case !ok && !sn.TokensTruncated:
			return true
		case tok.State == TokenConsumed || tok.State == TokenRevoked || tok.State == TokenExpired:
			return true
		case tok.HasExpiry && t.After(tok.ExpiresAt):
			return true
		}
	}
	return sn.HasWaitDeadline && sn.HasRunID && sn.RunID == string(s.run) &&
		(!sn.HasWaitToken || sn.WaitToken == string(s.token)) && t.After(sn.WaitDeadline)
}

// runFor makes the run a run.* record names the latest one, unless it is
// an earlier run; it returns whether the record is about the latest run.
// A record without run_id is about the latest run (run.started: a new one).
func (s *State) runFor(id []byte, started bool) bool {
	if id == nil {
		if !s.hasRun || started {
			s.newRun(nil, hash(nil))
		}
		return true
	}
	h := hash(id)
	switch {
	case s.hasRun && h == s.runHash && bytes.Equal(id, s.run):
		return true
	case s.past.has(h):
		return false
	}
	s.newRun(id, h)
	return true
}

func (s *State) newRun(id []byte, h uint64) {
	if s.hasRun {
		s.past.add(s.runHash)
	}
	s.hasRun, s.run, s.runHash = true, append(s.run[:0], id...), h
	s.terminal, s.intr, s.intrWait = false, intrNone, false
	s.waiting, s.token, s.tokenGone = false, s.token[:0], false
}
