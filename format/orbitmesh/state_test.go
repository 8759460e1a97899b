package orbitmesh

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Record shorthands for run r1 (and r2) with token rt1.
var (
	started    = rec(1, "run.started", "run_id", "r1")
	waiting    = rec(2, "run.waiting", "run_id", "r1", "wait_kind", "tool_result", "resume_token_id", "rt1")
	resumed    = rec(3, "run.resumed", "run_id", "r1")
	completed  = rec(4, "run.completed", "run_id", "r1")
	failed     = rec(4, "run.failed", "run_id", "r1")
	cancelled  = rec(4, "run.cancelled", "run_id", "r1")
	started2   = rec(5, "run.started", "run_id", "r2")
	message    = rec(0, "message.user", "message_id", "m1")
	interrupt  = func(reason string) string { return rec(4, "run.interrupted", "run_id", "r1", "reason", reason) }
	tokenEvent = func(kind, id string) string { return rec(3, kind, "token_id", id) }
)

func TestDerivedFromTheLog(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"nothing", nil, StatusIdle},
		{"messages only", []string{message}, StatusIdle},
		{"run started", []string{message, started}, StatusRunning},
		{"completed", []string{started, completed}, StatusIdle},
		{"failed", []string{started, failed}, StatusIdle},
		{"cancelled", []string{started, cancelled}, StatusIdle},
		{"waiting", []string{started, waiting}, StatusWaiting},
		{"waiting without run.started", []string{waiting}, StatusWaiting},
		{"resumed", []string{started, waiting, resumed}, StatusRunning},
		{"resumed then completed", []string{started, waiting, resumed, completed}, StatusIdle},
		{"waiting then cancelled", []string{started, waiting, cancelled}, StatusIdle},
		{"token minted", []string{started, waiting, tokenEvent("token.minted", "rt1")}, StatusWaiting},
		{"token consumed", []string{started, waiting, tokenEvent("token.consumed", "rt1")}, StatusInterruptedWaiting},
		{"token revoked", []string{started, waiting, tokenEvent("token.revoked", "rt1")}, StatusInterruptedWaiting},
		{"token expired", []string{started, waiting, tokenEvent("token.expired", "rt1")}, StatusInterruptedWaiting},
		{"token by resume_token_id", []string{started, waiting, rec(3, "token.revoked", "resume_token_id", "rt1")}, StatusInterruptedWaiting},
		{"another token revoked", []string{started, waiting, tokenEvent("token.revoked", "rt0")}, StatusWaiting},
		{"token consumed then resumed", []string{started, waiting, tokenEvent("token.consumed", "rt1"), resumed}, StatusRunning},
		{"token gone, wait again", []string{started, waiting, tokenEvent("token.revoked", "rt1"), rec(5, "run.waiting", "run_id", "r1", "wait_kind", "x", "resume_token_id", "rt2")}, StatusWaiting},
		{"wait without token", []string{started, rec(2, "run.waiting", "run_id", "r1", "wait_kind", "tool_result")}, StatusInterruptedWaiting},
		{"running, process_restart", []string{started, interrupt("process_restart")}, StatusInterruptedStartup},
		{"running, process_exit", []string{started, interrupt("process_exit")}, StatusInterruptedStartup},
		{"running, no reason", []string{started, rec(4, "run.interrupted", "run_id", "r1")}, StatusInterruptedStartup},
		{"running, wait_timeout", []string{started, interrupt("wait_timeout")}, StatusInterruptedWaiting},
		{"waiting, process_exit (the spec's example)", []string{started, waiting, interrupt("process_exit")}, StatusInterruptedWaiting},
		{"waiting, wait_timeout", []string{started, waiting, interrupt("wait_timeout")}, StatusInterruptedWaiting},
		{"waiting, process_restart: startup wins", []string{started, waiting, interrupt("process_restart")}, StatusInterruptedStartup},
		{"resumed, then process_exit", []string{started, waiting, resumed, interrupt("process_exit")}, StatusInterruptedStartup},
		{"completed, then interrupted: first end counts", []string{started, completed, interrupt("process_restart")}, StatusIdle},
		{"interrupted, then resumed: stays interrupted", []string{started, waiting, interrupt("process_exit"), resumed}, StatusInterruptedWaiting},
		{"new run after completed", []string{started, completed, started2}, StatusRunning},
		{"new run after interrupted", []string{started, interrupt("process_restart"), started2}, StatusRunning},
		{"new run while waiting", []string{started, waiting, message, started2}, StatusRunning},
		{"new run by any run record", []string{started, completed, rec(5, "run.waiting", "run_id", "r2", "wait_kind", "x", "resume_token_id", "rt2")}, StatusWaiting},
		{"an earlier run's late end", []string{started, started2, completed}, StatusRunning},
		{"an earlier run's late interrupt", []string{started, interrupt("process_restart"), started2, interrupt("process_restart")}, StatusRunning},
		{"record without run_id is the latest run's", []string{started, rec(4, "run.completed")}, StatusIdle},
		{"run.started without run_id starts a run", []string{started, completed, rec(5, "run.started")}, StatusRunning},
		{"run.started repeated", []string{started, waiting, started}, StatusWaiting},
		{"unknown run kind changes nothing", []string{started, rec(3, "run.paused", "run_id", "r1")}, StatusRunning},
		{"corrupt line changes nothing", []string{started, `{"kind":"run.completed"`}, StatusRunning},
		{"schema-invalid line counts", []string{started, `{"kind":"run.completed","run_id":"r1"}`}, StatusIdle},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, evs := run(t, nil, c.lines...)
			assert.Equal(t, c.want, st.Derived())
			if n := len(evs); n > 0 && evs[n-1].CorruptReason == "" {
				assert.Equal(t, c.want, evs[n-1].State, "the last line's status is the current one")
			}
		})
	}
}

// snapWait is a snapshot of run r1 waiting on rt1 until deadline.
func snapWait(deadline time.Time) Snapshot {
	return Snapshot{Read: true, RunID: "r1", HasRunID: true, BootID: "b1", HasBoot: true,
		LastBootSeen: "b1", HasLastBootSeen: true, WaitToken: "rt1", HasWaitToken: true,
		WaitDeadline: deadline, HasWaitDeadline: true}
}

func TestDerivedWithSnapshot(t *testing.T) {
	passed, ahead := clock.Add(-time.Minute), clock.Add(time.Hour)
	with := func(s Snapshot, f func(*Snapshot)) *Snapshot { f(&s); return &s }
	tokens := func(m map[string]Token) func(*Snapshot) {
		return func(s *Snapshot) { s.Tokens, s.HasTokens = m, true }
	}
	cases := []struct {
		name  string
		snap  *Snapshot
		lines []string
		want  string
	}{
		{"deadline ahead", with(snapWait(ahead), func(*Snapshot) {}), []string{started, waiting}, StatusWaiting},
		{"deadline passed", with(snapWait(passed), func(*Snapshot) {}), []string{started, waiting}, StatusInterruptedWaiting},
		{"deadline passed, resumed", with(snapWait(passed), func(*Snapshot) {}), []string{started, waiting, resumed}, StatusRunning},
		{"deadline of another run", with(snapWait(passed), func(s *Snapshot) { s.RunID = "r0" }), []string{started, waiting}, StatusWaiting},
		{"deadline of another token", with(snapWait(passed), func(s *Snapshot) { s.WaitToken = "rt0" }), []string{started, waiting}, StatusWaiting},
		{"deadline, snapshot without run id", with(snapWait(passed), func(s *Snapshot) { s.HasRunID = false }), []string{started, waiting}, StatusWaiting},
		{"deadline, snapshot without token", with(snapWait(passed), func(s *Snapshot) { s.HasWaitToken = false }), []string{started, waiting}, StatusInterruptedWaiting},
		{"token active", &Snapshot{}, nil, StatusIdle},
		{"index: active", with(Snapshot{}, tokens(map[string]Token{"rt1": {State: TokenActive}})), []string{started, waiting}, StatusWaiting},
		{"index: unknown state", with(Snapshot{}, tokens(map[string]Token{"rt1": {}})), []string{started, waiting}, StatusWaiting},
		{"index: revoked", with(Snapshot{}, tokens(map[string]Token{"rt1": {State: TokenRevoked}})), []string{started, waiting}, StatusInterruptedWaiting},
		{"index: consumed", with(Snapshot{}, tokens(map[string]Token{"rt1": {State: TokenConsumed}})), []string{started, waiting}, StatusInterruptedWaiting},
		{"index: expired", with(Snapshot{}, tokens(map[string]Token{"rt1": {State: TokenExpired}})), []string{started, waiting}, StatusInterruptedWaiting},
		{"index: expiry passed", with(Snapshot{}, tokens(map[string]Token{"rt1": {State: TokenActive, ExpiresAt: passed, HasExpiry: true}})), []string{started, waiting}, StatusInterruptedWaiting},
		{"index: expiry ahead", with(Snapshot{}, tokens(map[string]Token{"rt1": {State: TokenActive, ExpiresAt: ahead, HasExpiry: true}})), []string{started, waiting}, StatusWaiting},
		{"index: missing", with(Snapshot{}, tokens(map[string]Token{"rt0": {State: TokenActive}})), []string{started, waiting}, StatusInterruptedWaiting},
		{"index: truncated, missing", with(Snapshot{TokensTruncated: true}, tokens(map[string]Token{})), []string{started, waiting}, StatusWaiting},
		{"index: revoked, resumed", with(Snapshot{}, tokens(map[string]Token{"rt1": {State: TokenRevoked}})), []string{started, waiting, resumed}, StatusRunning},
		{"boot changed, running", with(snapWait(ahead), func(s *Snapshot) { s.LastBootSeen = "b2" }), []string{started}, StatusInterruptedStartup},
		{"boot changed, waiting: startup wins", with(snapWait(passed), func(s *Snapshot) { s.LastBootSeen = "b2" }), []string{started, waiting}, StatusInterruptedStartup},
		{"boot changed, run ended in snapshot", with(snapWait(ahead), func(s *Snapshot) { s.LastBootSeen, s.RunEnded = "b2", true }), []string{started}, StatusRunning},
		{"boot changed, run ended in log", with(snapWait(ahead), func(s *Snapshot) { s.LastBootSeen = "b2" }), []string{started, completed}, StatusIdle},
		{"boot changed, another run", with(snapWait(ahead), func(s *Snapshot) { s.LastBootSeen = "b2" }), []string{started2}, StatusRunning},
		{"boot unknown", with(snapWait(ahead), func(s *Snapshot) { s.HasLastBootSeen = false }), []string{started}, StatusRunning},
		{"log interruption beats snapshot", with(snapWait(passed), func(s *Snapshot) { s.LastBootSeen = "b2" }), []string{started, waiting, interrupt("wait_timeout")}, StatusInterruptedWaiting},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _ := run(t, c.snap, c.lines...)
			assert.Equal(t, c.want, st.Derived())
		})
	}
}

func TestSnapshotAppliesFromItsLastSeq(t *testing.T) {
	sn := snapWait(base) // passed before the wait's lines
	sn.LastSeq, sn.HasLastSeq = 3, true
	st, evs := run(t, &sn, started, waiting, rec(3, "status.derived", "status", "interrupted_waiting"))
	assert.Equal(t, StatusWaiting, evs[1].State, "seq 2 is before the snapshot")
	assert.Equal(t, StatusInterruptedWaiting, evs[2].State)
	assert.Empty(t, notes(&evs[2]))
	assert.Equal(t, StatusInterruptedWaiting, st.Derived())

	// Without a last_seq nothing says which lines the snapshot describes:
	// it decides the status now, never a line's.
	sn = snapWait(base)
	st, evs = run(t, &sn, started, waiting, rec(3, "status.derived", "status", "waiting"))
	assert.Equal(t, StatusWaiting, evs[2].State)
	assert.Empty(t, notes(&evs[2]), "no false status_disagrees")
	assert.Equal(t, StatusInterruptedWaiting, st.Derived())

	// The line's ts, not the clock, decides a deadline for the line.
	sn = snapWait(base.Add(10 * time.Second))
	sn.LastSeq, sn.HasLastSeq = 2, true
	st, evs = run(t, &sn, started, waiting, rec(20, "message.user", "message_id", "m"))
	assert.Equal(t, StatusWaiting, evs[1].State, "at 10:00:02 the deadline 10:00:10 is ahead")
	assert.Equal(t, StatusInterruptedWaiting, evs[2].State, "at 10:00:20 it has passed")
	got, ok := st.Snapshot()
	assert.True(t, ok)
	assert.Equal(t, sn.WaitDeadline, got.WaitDeadline)
}

func TestSnapshotModel(t *testing.T) {
	sn := Snapshot{Model: "gpt-5.3-codex", HasModel: true}
	_, evs := run(t, &sn, rec(1, "message.assistant", "message_id", "a"), rec(2, "message.user", "message_id", "u"))
	assert.Equal(t, "gpt-5.3-codex", string(evs[0].Model))
	assert.Nil(t, evs[1].Model, "only the assistant's messages carry the model")
}

func TestStatusDisagrees(t *testing.T) {
	_, evs := run(t, nil, started, rec(2, "status.derived", "status", "running"),
		rec(3, "status.derived", "status", "waiting"), rec(4, "status.derived", "status", "bogus"))
	assert.Empty(t, notes(&evs[1]))
	assert.Equal(t, []string{"status_disagrees=running"}, notes(&evs[2]))
	assert.Empty(t, notes(&evs[3]), "an invalid status is a violation, not a disagreement")

	_, evs = run(t, nil, rec(1, "status.derived", "status", "idle"))
	assert.Empty(t, notes(&evs[0]))
}

func TestDuplicateInterrupt(t *testing.T) {
	st, evs := run(t, nil, started, waiting, interrupt("process_exit"), interrupt("process_restart"),
		started2, interrupt("process_restart"), rec(8, "run.interrupted", "run_id", "r2", "reason", "process_restart"))
	assert.Empty(t, notes(&evs[2]))
	assert.Equal(t, []string{NoteDuplicateInterrupt}, notes(&evs[3]))
	assert.Equal(t, StatusInterruptedWaiting, evs[3].State, "the first interruption counts")
	assert.False(t, evs[3].Ends, "the run had already ended")
	assert.Equal(t, []string{NoteDuplicateInterrupt}, notes(&evs[5]), "an earlier run's")
	assert.Equal(t, StatusRunning, evs[5].State)
	assert.Empty(t, notes(&evs[6]))
	assert.Equal(t, StatusInterruptedStartup, st.Derived())
}

func TestMemoryIsBounded(t *testing.T) {
	var lines []string
	for i := range ringSize + 10 {
		id := fmt.Sprintf("r%d", i)
		lines = append(lines, rec(2*i, "run.started", "run_id", id), rec(2*i+1, "run.interrupted", "run_id", id, "reason", "process_restart"))
	}
	lines = append(lines, rec(9000, "run.interrupted", "run_id", "r0", "reason", "process_restart"),
		rec(9001, "run.interrupted", "run_id", fmt.Sprintf("r%d", ringSize+5), "reason", "process_restart"))
	st, evs := run(t, nil, lines...)
	n := len(evs)
	assert.Empty(t, notes(&evs[n-2]), "r0 is forgotten")
	assert.Equal(t, StatusInterruptedStartup, evs[n-2].State, "and taken for a new run, interrupted")
	assert.True(t, evs[n-2].Ends)
	assert.Equal(t, []string{NoteDuplicateInterrupt}, notes(&evs[n-1]))
	assert.False(t, evs[n-1].Ends, "an earlier run's interrupt changes nothing")
	assert.Equal(t, StatusInterruptedStartup, st.Derived())
}

func TestOver(t *testing.T) {
	cases := []struct {
		name       string
		lines      []string
		over       bool
		endsOnLast bool
	}{
		{"nothing", nil, false, false},
		{"running", []string{started}, false, false},
		{"waiting", []string{started, waiting}, false, false},
		{"completed", []string{started, completed}, true, true},
		{"failed", []string{started, failed}, true, true},
		{"cancelled while waiting", []string{started, waiting, cancelled}, true, true},
		{"interrupted", []string{started, waiting, interrupt("process_exit")}, true, true},
		{"completed twice", []string{started, completed, completed}, true, false},
		{"new run after completed", []string{started, completed, started2}, false, false},
		{"an earlier run's end", []string{started, started2, completed}, false, false},
		{"token revoked", []string{started, waiting, tokenEvent("token.revoked", "rt1")}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, evs := run(t, nil, c.lines...)
			over, terminal := st.Over()
			assert.Equal(t, c.over, over)
			assert.Equal(t, c.over, terminal)
			if len(evs) > 0 {
				last := evs[len(evs)-1]
				assert.Equal(t, c.endsOnLast, last.Ends)
				assert.Equal(t, c.endsOnLast, last.Terminal)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	st, _ := run(t, nil)
	assert.Nil(t, st.Open())
	st, _ = run(t, nil, started)
	require.Len(t, st.Open(), 1)
	assert.Contains(t, st.Open()[0], `run "r1" started and never ended`)
	st, _ = run(t, nil, started, waiting)
	assert.Contains(t, st.Open()[0], `resume token "rt1"`)
	st, _ = run(t, nil, started, completed)
	assert.Nil(t, st.Open())
}
