package orbitmesh

import (
	"fmt"
	"strings"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// The status of the runtime's log (docs/formats/orbitmesh.md, Derived
// status of the runtime's log): the runtime keeps a run's state beside the
// log, not in it. A line's status is the side files' status at the line's
// timestamp; Derived is their status now.

// terminalInterrupted is the terminal_reason of an attempt the runtime
// cut off: suspended to wait, or marked by its startup recovery.
const terminalInterrupted = "interrupted"

// The startup recovery's interruption reasons (recovery_manager.go).
const (
	recoveryPrefix        = "startup recovery:"
	recoveryWaitingPrefix = "startup recovery: interrupted while waiting"
)

// UseSide gives the state the side files of its log (ReadSide); the last
// one given counts.
func (s *State) UseSide(sd Side) {
	s.side, s.hasSide = sd, true
	s.reasons = s.reasons[:0]
	for _, a := range sd.Attempts {
		s.reasons = append(s.reasons, []byte(a.TerminalReason))
	}
}

// Side returns the side files given with UseSide, if any.
func (s *State) Side() (Side, bool) { return s.side, s.hasSide }

// judgeCurrent advances the state by a record of the runtime's log: the
// provider's model and usage, the line's status and whether it is the
// first line past an attempt's end. s may be nil (no state).
func (s *State) judgeCurrent(f *fields, a *integrity.Arena, ev *format.Event) {
	if s == nil {
		usageWithoutState(f, ev)
		return
	}
	s.current = true
	if len(ev.Model) > 0 {
		s.lastModel = append(s.lastModel[:0], ev.Model...)
	}
	if f.hasUsage && ev.Outcome == integrity.Valid {
		s.countUsage(f, a, ev)
	}
	t := s.lineTime(ev)
	var i int
	ev.State, i = s.side.statusAt(t)
	if i >= 0 && s.side.Attempts[i].endedAt(t) && s.endMarked != i+1 {
		s.endMarked = i + 1
		ev.Ends, ev.Terminal = true, ev.State != StatusWaiting
		ev.EndReason = s.reasons[i]
	}
}

// lineTime is the time a line's status is judged at: its timestamp, else
// the newest timestamp before it, else Config.Now.
func (s *State) lineTime(ev *format.Event) time.Time {
	if ev.HasTime {
		if !s.hasNewest || ev.Time.After(s.newest) {
			s.newest, s.hasNewest = ev.Time, true
		}
		return ev.Time
	}
	if s.hasNewest {
		return s.newest
	}
	return s.now()
}

// sideOver tells whether the side files end the session: the latest
// attempt has a terminal reason, and no line of the log is newer than its
// end (a line after it belongs to a run not yet recorded).
func (s *State) sideOver() bool {
	n := len(s.side.Attempts)
	if n == 0 {
		return false
	}
	a := &s.side.Attempts[n-1]
	if a.TerminalReason == "" {
		return false
	}
	return a.Ended.IsZero() || !s.hasNewest || !s.newest.After(a.Ended)
}

// EndReason implements format.EndReasoner: the latest attempt's
// terminal_reason once the side files end the session.
func (s *State) EndReason() string {
	if s.hasRun || !s.sideOver() {
		return ""
	}
	return s.side.Attempts[len(s.side.Attempts)-1].TerminalReason
}

// sideOpen is what the latest attempt leaves open, for Open.
func (s *State) sideOpen() []string {
	n := len(s.side.Attempts)
	if n == 0 || s.sideOver() {
		return nil
	}
	a := &s.side.Attempts[n-1]
	if st, _ := s.side.statusAt(s.now()); st == StatusWaiting {
		return []string{fmt.Sprintf("attempt %q is waiting on a resume token and was never resumed or ended", a.ID)}
	}
	return []string{fmt.Sprintf("attempt %q started and never ended", a.ID)}
}

// statusAt is the status the side files give at t, and the attempt that
// is the latest at t (-1: none).
func (sd *Side) statusAt(t time.Time) (string, int) {
	i := sd.latestAt(t)
	if i < 0 {
		return sd.docStatusAt(t), -1
	}
	a := &sd.Attempts[i]
	tok := sd.tokenOf(a, t)
	if !a.endedAt(t) {
		switch {
		case tok != nil:
			return tokenWait(tok.stateAt(t), StatusRunning), i
		case a.WaitKind != "" && !a.Heartbeat.After(t):
			return StatusInterruptedWaiting, i // a wait whose token is missing
		}
		return StatusRunning, i
	}
	if a.TerminalReason != terminalInterrupted {
		return StatusIdle, i
	}
	switch {
	case strings.HasPrefix(a.InterruptionReason, recoveryWaitingPrefix):
		return StatusInterruptedWaiting, i
	case strings.HasPrefix(a.InterruptionReason, recoveryPrefix):
		return StatusInterruptedStartup, i
	case tok == nil:
		return StatusInterruptedWaiting, i // suspended without a token
	}
	return tokenWait(tok.stateAt(t), StatusIdle), i
}

// tokenWait is the status of a wait on a token in state ts; resumed is the
// status once the token was consumed (the wait answered).
func tokenWait(ts TokenState, resumed string) string {
	switch ts {
	case TokenActive:
		return StatusWaiting
	case TokenConsumed:
		return resumed
	}
	return StatusInterruptedWaiting
}

// latestAt is the index of the latest attempt started by t, or -1.
func (sd *Side) latestAt(t time.Time) int {
	for i := len(sd.Attempts) - 1; i >= 0; i-- {
		if !sd.Attempts[i].Started.After(t) {
			return i
		}
	}
	return -1
}

// docStatusAt is the session document's state at t, for a session without
// attempt files: its last transition by t, else its state.
func (sd *Side) docStatusAt(t time.Time) string {
	state := ""
	for _, tr := range sd.Transitions {
		if !tr.At.After(t) {
			state = tr.To
		}
	}
	if len(sd.Transitions) == 0 {
		state = sd.State
	}
	switch state {
	case "running":
		return StatusRunning
	case "suspended":
		return StatusWaiting
	}
	return StatusIdle
}

// tokenOf is the latest resume token minted for attempt a by t, or nil.
func (sd *Side) tokenOf(a *Attempt, t time.Time) *ResumeToken {
	var found *ResumeToken
	for k := range sd.Tokens {
		rt := &sd.Tokens[k]
		if rt.AttemptID != a.ID && rt.ID != a.ResumeTokenID || rt.Created.After(t) {
			continue
		}
		if found == nil || rt.Created.After(found.Created) {
			found = rt
		}
	}
	return found
}

// endedAt tells whether the attempt had ended by t: its ended_at, or, for
// one with a terminal reason but no ended_at, its last heartbeat.
func (a *Attempt) endedAt(t time.Time) bool {
	switch {
	case !a.Ended.IsZero():
		return !a.Ended.After(t)
	case a.TerminalReason != "":
		return !a.Heartbeat.After(t)
	}
	return false
}

// stateAt is the token's state at t: consumed (also revoked with the
// reason consumed), revoked, expired, else active.
func (rt *ResumeToken) stateAt(t time.Time) TokenState {
	switch {
	case !rt.Consumed.IsZero() && !rt.Consumed.After(t):
		return TokenConsumed
	case !rt.Revoked.IsZero() && !rt.Revoked.After(t):
		if rt.RevocationReason == "consumed" {
			return TokenConsumed
		}
		return TokenRevoked
	case !rt.Expires.IsZero() && !t.Before(rt.Expires):
		return TokenExpired
	}
	return TokenActive
}
