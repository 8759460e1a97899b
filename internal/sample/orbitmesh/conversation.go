package orbitmesh

import (
	"fmt"
	"time"
)

// How long a wait may last before recovery interrupts it: a tool result
// from CI is expected within minutes, an approval within hours.
const (
	toolResultDeadline = 10 * time.Minute
	approvalDeadline   = 4 * time.Hour
)

// system appends the session's opening system message.
func (s *session) system() {
	s.add(&msgSystem{MessageID: s.messageID(), Content: fmt.Sprintf(
		"Working directory: %s. Sandbox: workspace-write. Approvals required for: %s, %s, %s.",
		s.th.dir(), approvalTools[0], approvalTools[1], approvalTools[2])}, KindMessageSystem)
}

// userSays appends a user message and returns its id.
func (s *session) userSays(text string) string {
	id := s.messageID()
	s.add(&msgUser{MessageID: id, Content: text}, KindMessageUser)
	return id
}

// startRun appends run.started for a new run triggered by message trigger.
func (s *session) startRun(trigger string) {
	s.tick(s.x.Millis(5, 60))
	s.run = &runView{id: "run_" + s.x.Chars(8, hexAlphabet), boot: s.boot, started: s.clock}
	r := s.add(&runStarted{RunID: s.run.id, BootID: s.boot, TriggerMessageID: trigger}, KindRunStarted)
	r.runID = s.run.id
}

// derived appends status.derived stating status.
func (s *session) derived(status string) *rec {
	s.tick(s.x.Millis(1, 12))
	r := s.add(&statusDerived{Status: status}, KindStatusDerived)
	r.status = status
	return r
}

// think appends an assistant message after the model's latency.
func (s *session) think(text string, calls ...toolCall) *rec {
	s.tick(s.x.Secs(2, 20))
	r := s.add(&msgAssistant{MessageID: s.messageID(), RunID: s.run.id, Content: text, ToolCalls: calls}, KindMessageAssistant)
	r.runID = s.run.id
	return r
}

// toolDone appends the tool message of a call.
func (s *session) toolDone(c call) *rec {
	s.tick(s.x.Millis(150, 25000))
	r := s.add(&msgTool{MessageID: s.messageID(), RunID: s.run.id, ToolCallID: c.tc.ID, ToolName: c.tc.Name,
		Content: c.output, IsError: c.isErr}, KindMessageTool)
	r.runID = s.run.id
	return r
}

// step appends one assistant message calling a quick tool, then the
// tool's result.
func (s *session) step() (assistant, tool *rec) {
	c := s.newCall(pick(s.x, quickTools))
	return s.think(c.plan, c.tc), s.toolDone(c)
}

// finish appends the run's closing assistant message: what it did.
func (s *session) finish() { s.think(s.doing.done) }

// mintWait mints a resume token and makes the run wait on it
// (token.minted, then run.waiting).
func (s *session) mintWait(kind string) *tokenView {
	deadline := toolResultDeadline
	if kind == WaitApproval {
		deadline = approvalDeadline
	}
	s.tick(s.x.Millis(3, 40))
	t := &tokenView{id: "rt_" + s.x.Chars(10, hexAlphabet), runID: s.run.id, waitKind: kind, state: "active",
		minted: s.clock, expires: s.clock.Add(deadline), secret: s.x.Chars(32, base32Alphabet)}
	s.tokens = append(s.tokens, t)
	m := s.add(&tokenRecord{TokenID: t.id, RunID: t.runID, WaitKind: kind, ExpiresAt: stamp(t.expires)}, KindTokenMinted)
	m.runID, m.token = t.runID, t.id
	s.tick(s.x.Millis(1, 8))
	w := s.add(&runWaiting{RunID: s.run.id, WaitKind: kind, ResumeTokenID: t.id, DeadlineAt: stamp(t.expires)}, KindRunWaiting)
	w.runID, w.token = s.run.id, t.id
	s.run.wait = &waitView{kind: kind, sinceSeq: w.seq, token: t, deadline: t.expires}
	return t
}

// resume consumes the wait's token and resumes the run. The plan does not
// fix the order of the two records: half of the time token.consumed comes
// first (the token is consumed, then the run resumed), half of the time
// run.resumed does (the audit record is appended after the transition).
func (s *session) resume() {
	t := s.run.wait.token
	t.state = "consumed"
	consumeFirst := s.x.Chance(0.5)
	if consumeFirst {
		s.consume(t)
	}
	s.tick(s.x.Millis(2, 30))
	r := s.add(&runResumed{RunID: s.run.id, ResumeTokenID: t.id}, KindRunResumed)
	r.runID = s.run.id
	if !consumeFirst {
		s.tick(s.x.Millis(1, 10))
		s.consume(t)
	}
	s.run.wait = nil
}

// consume appends token.consumed for t.
func (s *session) consume(t *tokenView) {
	c := s.add(&tokenRecord{TokenID: t.id, RunID: t.runID}, KindTokenConsumed)
	c.runID, c.token = t.runID, t.id
}

// waitStep appends a call whose result the run waits for (kind
// tool_result: CI; approval: a tool that needs one), the wait, the resume
// and the result. status: the runtime publishes its status around it.
func (s *session) waitStep(kind string, status bool) {
	name := ciTool
	if kind == WaitApproval {
		name = pick(s.x, approvalTools)
	}
	c := s.newCall(name)
	s.think(c.plan, c.tc)
	s.mintWait(kind)
	if status {
		s.derived(StatusWaiting)
	}
	if kind == WaitApproval {
		s.tick(s.x.Secs(30, 300))
	} else {
		s.tick(s.x.Secs(40, 240))
	}
	s.resume()
	if status {
		s.derived(StatusRunning)
	}
	s.toolDone(c)
}

// end appends the run's terminal record (run.completed, run.failed or
// run.cancelled).
func (s *session) end(kind string) {
	s.tick(s.x.Millis(5, 200))
	b := &runEnded{RunID: s.run.id, DurationMS: s.clock.Sub(s.run.started).Milliseconds()}
	switch kind {
	case KindRunFailed:
		b.Error = pick(s.x, []string{"provider returned 529 overloaded after 3 retries", "tool run_tests exceeded its 600s timeout", "context window exceeded"})
	case KindRunCancelled:
		b.CancelledBy = "user"
	}
	r := s.add(b, kind)
	r.runID = s.run.id
	s.run.ended = s.clock
}

// interrupt appends run.interrupted for the latest run, written by the
// recovery flow detector of the current boot.
func (s *session) interrupt(reason, detector string) *rec {
	b := &runInterrupted{RunID: s.run.id, Reason: reason, BootID: s.boot, Detector: detector}
	r := s.add(b, KindRunInterrupted)
	r.runID, r.reason = s.run.id, reason
	if s.run.ended.IsZero() {
		s.run.ended = s.clock
		s.interruption = &interruptionView{runID: s.run.id, reason: reason, at: s.clock}
	}
	return r
}

// revoke appends token.revoked for the wait's token and ends the wait.
func (s *session) revoke(reason string) {
	t := s.run.wait.token
	t.state = "revoked"
	s.tick(s.x.Millis(1, 10))
	r := s.add(&tokenRecord{TokenID: t.id, RunID: t.runID, Reason: reason}, KindTokenRevoked)
	r.runID, r.token = t.runID, t.id
	s.run.wait = nil
}
