package orbitmesh

import (
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// The startup recovery's interruption reasons.
const (
	recoveryPrefix        = "startup recovery:"
	recoveryWaitingPrefix = "startup recovery: interrupted while waiting"
)

// statusAt is the status the session's attempts and tokens give at t
// (docs/formats/orbitmesh.md, Derived status of part A), and the index of
// the latest attempt started by t (-1: none). Every runtime-shaped
// session the generator writes has attempts; before the first the
// document's state is idle.
func (s *rsession) statusAt(t time.Time) (string, int) {
	i := -1
	for k, a := range s.attempts {
		if !a.started.After(t) {
			i = k
		}
	}
	if i < 0 {
		return StatusIdle, -1
	}
	a := s.attempts[i]
	tok := s.tokenAt(a, t)
	if !a.endedBy(t) {
		switch {
		case tok != nil:
			return waitOn(tok.stateAt(t), StatusRunning), i
		case a.waitKind != "" && !a.heartbeat.After(t):
			return StatusInterruptedWaiting, i
		}
		return StatusRunning, i
	}
	switch {
	case a.terminal != ReasonInterrupted:
		return StatusIdle, i
	case strings.HasPrefix(a.interruption, recoveryWaitingPrefix):
		return StatusInterruptedWaiting, i
	case strings.HasPrefix(a.interruption, recoveryPrefix):
		return StatusInterruptedStartup, i
	case tok == nil:
		return StatusInterruptedWaiting, i
	}
	return waitOn(tok.stateAt(t), StatusIdle), i
}

// waitOn is the status of a wait on a token in state st; answered is the
// status once the token was consumed.
func waitOn(st, answered string) string {
	switch st {
	case "active":
		return StatusWaiting
	case "consumed":
		return answered
	}
	return StatusInterruptedWaiting
}

// tokenAt is the latest token minted for a by t.
func (s *rsession) tokenAt(a *attempt, t time.Time) *rtoken {
	var found *rtoken
	for _, tk := range s.tokens {
		if (tk.attemptID == a.id || tk.id == a.tokenID) && !tk.created.After(t) && (found == nil || tk.created.After(found.created)) {
			found = tk
		}
	}
	return found
}

// endedBy: the attempt ended by t (its ended_at; without one, a terminal
// reason and its heartbeat).
func (a *attempt) endedBy(t time.Time) bool {
	switch {
	case !a.ended.IsZero():
		return !a.ended.After(t)
	case a.terminal != "":
		return !a.heartbeat.After(t)
	}
	return false
}

// stateAt is the token's state at t.
func (tk *rtoken) stateAt(t time.Time) string {
	switch {
	case !tk.consumed.IsZero() && !tk.consumed.After(t):
		return "consumed"
	case !tk.revoked.IsZero() && !tk.revoked.After(t):
		if tk.revocation == "consumed" {
			return "consumed"
		}
		return "revoked"
	case !t.Before(tk.expires):
		return "expired"
	}
	return "active"
}

// counters are a usage's counters as the format counts them: the whole
// prompt, output, cache read, cache write, one-hour cache write.
type counters [5]int64

func (u *usage) counters() counters {
	cw1h := int64(0)
	if u.split {
		cw1h = u.write1h
	}
	return counters{u.in + u.cacheRead + u.cacheWrite, u.out, u.cacheRead, u.cacheWrite, cw1h}
}

// runtimeTruth follows the readable lines of a runtime-shaped log: seqs,
// models, each response's tokens counted once at their final usage, the
// status and the attempt ends.
type runtimeTruth struct {
	s         *rsession
	q         seqTruth
	lastModel string
	respSet   bool
	respID    string
	respModel string
	counted   counters
	endMarked int
	ends      []End
	newest    time.Time
}

// line is the truth of a readable record; i is its index among the
// file's lines.
func (t *runtimeTruth) line(off int64, text string, r *rrec, i int) sample.Line {
	l := sample.Line{Offset: off, Text: text, Type: r.r.Kind, Seq: r.r.Seq, Valid: true, Model: r.model}
	if r.r.Kind == KindError {
		l.Type = TypeRuntimeError
	}
	if a := t.q.judge(r.r.Seq); a != "" {
		l.Expect = append(l.Expect, a)
	}
	if r.model != "" {
		t.lastModel = r.model
	}
	if r.usage != nil {
		t.count(&l, r)
	}
	if r.at.After(t.newest) {
		t.newest = r.at
	}
	status, k := t.s.statusAt(r.at)
	l.State = status
	if k >= 0 && t.s.attempts[k].endedBy(r.at) && t.endMarked != k+1 {
		t.endMarked = k + 1
		t.ends = append(t.ends, End{Line: i, Reason: t.s.attempts[k].terminal, Terminal: status != StatusWaiting})
	}
	return l
}

// count sets the tokens a usage line ships: a new response's
// message_start its usage, a later event how far each counter grew.
func (t *runtimeTruth) count(l *sample.Line, r *rrec) {
	c := r.usage.counters()
	var ship counters
	switch {
	case r.start && (!t.respSet || r.resp != t.respID):
		t.respSet, t.respID, t.respModel, t.counted, ship = true, r.resp, r.model, c, c
	case !t.respSet:
		t.respSet, t.respID, t.respModel, t.counted, ship = true, "", t.lastModel, c, c
	default:
		for k := range c {
			if c[k] > t.counted[k] {
				ship[k], t.counted[k] = c[k]-t.counted[k], c[k]
			}
		}
		if ship == (counters{}) {
			return
		}
	}
	if l.Model == "" {
		l.Model = t.respModel
	}
	l.Counted = true
	l.PromptTokens, l.CompletionTokens, l.CacheReadTokens, l.CacheWriteTokens, l.CacheWrite1hTokens = ship[0], ship[1], ship[2], ship[3], ship[4]
}

// over is how the side files end the session: its latest attempt has a
// terminal reason and no line is newer than its end.
func (t *runtimeTruth) over() (bool, string) {
	a := t.s.attempts[len(t.s.attempts)-1]
	if a.terminal == "" || !a.ended.IsZero() && t.newest.After(a.ended) {
		return false, ""
	}
	return true, a.terminal
}

// final is the status once everything the session wrote has happened.
func (s *rsession) final() string {
	last := s.clock
	for _, a := range s.attempts {
		last = maxTime(last, a.ended, a.heartbeat)
	}
	for _, tk := range s.tokens {
		last = maxTime(last, tk.consumed, tk.revoked)
	}
	st, _ := s.statusAt(last)
	return st
}

func maxTime(ts ...time.Time) time.Time {
	var m time.Time
	for _, t := range ts {
		if t.After(m) {
			m = t
		}
	}
	return m
}

// The shapes of a session's log.
const (
	ShapeRuntime = "runtime" // the records OrbitMesh's storage writes today
	ShapePlan    = "plan"    // the resumable session recovery plan's records
)

// Session is the truth about one session beyond its lines.
type Session struct {
	ID       string
	Shape    string // ShapeRuntime or ShapePlan
	Provider string // a runtime-shaped session's provider: ProviderClaude or ProviderACP
	Scenario string // the scenario that wrote it (see the package documentation)
	// Over: the session is over (and terminal), EndReason how it ended.
	Over      bool
	EndReason string
	// Final is the derived status once everything the session wrote has
	// happened (and before any token expires): what the state says now.
	Final string
	// Ends are the lines that end a run attempt (runtime shape).
	Ends []End
	// DocReadable: the session document is one whole JSON object
	// (runtime shape).
	DocReadable bool
	// Attempts and Tokens count the attempt and resume token files.
	Attempts, Tokens int
}

// End is a line that ends a run attempt: the first line at or after the
// end of the latest attempt started by its time.
type End struct {
	Line     int    // the index in File.Lines
	Reason   string // the attempt's terminal reason
	Terminal bool   // the status is not waiting
}
