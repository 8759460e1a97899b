package orbitmesh

import "time"

// tracker derives a session's status line by line from the records the
// generator wrote (lost and torn ones excluded) and the facts of the side
// files it wrote, by the rules of docs/formats/orbitmesh.md (Derived
// status), themselves the OrbitMesh plan's rules with its precedence
// interrupted_startup > interrupted_waiting > waiting > running > idle.
type tracker struct {
	facts  facts
	maxSeq int64 // the highest seq so far, -1 before any

	hasRun    bool
	run       string
	terminal  bool   // a terminal record ended the run
	intr      string // the interrupted status the run's run.interrupted gave, "" when none
	waiting   bool
	token     string // the wait's resume token, "" when missing
	tokenGone bool   // the log consumed, revoked or expired it

	past        map[string]bool // runs no longer the latest
	interrupted map[string]bool // runs with a run.interrupted
}

func newTracker(f facts) *tracker {
	return &tracker{facts: f, maxSeq: -1, past: map[string]bool{}, interrupted: map[string]bool{}}
}

// line applies one readable record and returns the status after it and
// the format's notes on it ("kind" or "kind:detail").
func (t *tracker) line(r *rec) (string, []string) {
	t.maxSeq = max(t.maxSeq, r.seq)
	var notes []string
	switch k := r.kind(); {
	case k == KindStatusDerived && r.status != "":
		if want := t.status(r.at); want != r.status {
			notes = append(notes, AnnStatusDisagrees+":"+want)
		}
	case k == KindTokenConsumed || k == KindTokenRevoked || k == KindTokenExpired:
		if t.hasRun && !t.terminal && t.waiting && r.token == t.token {
			t.tokenGone = true
		}
	case isRunKind(k):
		notes = t.runRecord(r)
	}
	return t.status(r.at), notes
}

func isRunKind(k string) bool {
	switch k {
	case KindRunStarted, KindRunWaiting, KindRunResumed, KindRunCompleted, KindRunFailed, KindRunCancelled, KindRunInterrupted:
		return true
	}
	return false
}

// runRecord applies a run.* record. The generator writes run_id on every
// one of them.
func (t *tracker) runRecord(r *rec) []string {
	var notes []string
	if r.kind() == KindRunInterrupted {
		if t.interrupted[r.runID] {
			notes = append(notes, AnnDuplicateInterrupt)
		}
		t.interrupted[r.runID] = true
	}
	switch {
	case t.past[r.runID]:
		return notes // an earlier run's record
	case !t.hasRun || r.runID != t.run:
		t.newRun(r.runID)
	}
	if !t.terminal {
		t.advance(r)
	}
	return notes
}

func (t *tracker) newRun(id string) {
	if t.hasRun {
		t.past[t.run] = true
	}
	*t = tracker{facts: t.facts, maxSeq: t.maxSeq, past: t.past, interrupted: t.interrupted, hasRun: true, run: id}
}

// advance applies a record of the latest run, not yet ended.
func (t *tracker) advance(r *rec) {
	switch r.kind() {
	case KindRunWaiting:
		t.waiting, t.token, t.tokenGone = true, r.token, false
	case KindRunResumed:
		t.waiting = false
	case KindRunInterrupted:
		t.intr = StatusInterruptedStartup
		if r.reason == ReasonWaitTimeout || t.waiting && r.reason != ReasonProcessRestart {
			t.intr = StatusInterruptedWaiting
		}
		t.terminal, t.waiting = true, false
	case KindRunCompleted, KindRunFailed, KindRunCancelled:
		t.terminal, t.waiting = true, false
	}
}

// status is the derived status after the records so far, deadlines and
// expiries compared with at (the line's ts).
func (t *tracker) status(at time.Time) string {
	snap := t.snapApplies()
	switch {
	case !t.hasRun:
		return StatusIdle
	case t.intr != "":
		return t.intr
	case t.terminal:
		return StatusIdle
	case snap && t.staleBoot():
		return StatusInterruptedStartup
	case !t.waiting:
		return StatusRunning
	case t.token == "" || t.tokenGone:
		return StatusInterruptedWaiting
	case snap && (t.tokenBad(at) || t.deadlinePassed(at)):
		return StatusInterruptedWaiting
	}
	return StatusWaiting
}

// snapApplies: the side files describe the session as of the snapshot's
// last_seq; their facts hold from the line that reaches it (from the
// first line when there is no readable last_seq).
func (t *tracker) snapApplies() bool { return !t.facts.known || t.maxSeq >= t.facts.lastSeq }

// staleBoot: the snapshot's run is the latest, not ended, and was started
// under another boot than the last one recovery saw.
func (t *tracker) staleBoot() bool {
	f := &t.facts
	return f.known && f.runID == t.run && !f.ended && f.bootID != "" && f.lastBootSeen != "" && f.bootID != f.lastBootSeen
}

// tokenBad: the token index lacks the wait's token, or says it is no
// longer active, or that it expired.
func (t *tracker) tokenBad(at time.Time) bool {
	if t.facts.index == nil {
		return false
	}
	tok, ok := t.facts.index[t.token]
	return !ok || tok.state == "consumed" || tok.state == "revoked" || tok.state == "expired" || at.After(tok.expires)
}

// deadlinePassed: the snapshot's wait of the latest run passed its
// deadline.
func (t *tracker) deadlinePassed(at time.Time) bool {
	f := &t.facts
	return f.known && f.hasDeadline && f.runID == t.run && (f.waitToken == "" || f.waitToken == t.token) && at.After(f.deadline)
}
