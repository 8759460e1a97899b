package orbitmesh

import "fmt"

// crashed (session 0): a completed run, then a second run during which
// the process dies while appending a tool result (the file's partial
// tail). A new process has booted and recorded its boot in the snapshot
// but not yet appended run.interrupted: the snapshot shows the run in
// progress under the previous boot_id, so the last line is
// interrupted_startup.
func (s *session) crashed() {
	s.open()
	s.runWithWait(true, pick(s.x, []string{WaitToolResult, WaitApproval}))
	s.pause()
	s.ask(false)
	s.step()
	c := s.newCall("run_tests")
	s.think(c.plan, c.tc)
	s.toolDone(c).crash = true
	s.tick(s.x.Secs(40, 150))
	s.reboot()
	s.updated = s.clock
	s.snap = snapFull
}

// interrupted (session 1): a completed run with an approval, then a run
// cut off by a restart. The boot scan appends run.interrupted
// (process_restart); the periodic sweep, racing it with the same view of
// the log, appends a second one with the same seq (seq_repeat,
// duplicate_interrupt); then interrupted_startup is published.
func (s *session) interrupted() {
	s.open()
	s.runWithWait(true, WaitApproval)
	s.pause()
	s.ask(false)
	s.step()
	c := s.newCall("run_tests")
	s.think(c.plan, c.tc)
	s.tick(s.x.Secs(40, 180))
	s.reboot()
	s.interrupt(ReasonProcessRestart, "boot_scan")
	s.tick(s.x.Millis(2, 40))
	dup := s.addSeq(&runInterrupted{RunID: s.run.id, Reason: ReasonProcessRestart, BootID: s.boot, Detector: "periodic_sweep"},
		KindRunInterrupted, s.high)
	dup.runID, dup.reason = s.run.id, ReasonProcessRestart
	s.derived(StatusInterruptedStartup)
	s.updated = s.clock
	s.snap = snapFull
}

// damaged (session 2): a tool result lost (seq_gap), a memory.compacted
// record (unknown_type), an assistant message torn by its tool result
// written concurrently (corrupt, then a two-seq gap), a context notice
// appended by a writer three seqs behind (seq_regression); two runs
// complete. The snapshot was being rewritten: it is half-written.
func (s *session) damaged() {
	s.open()
	s.ask(true)
	s.step()
	_, lost := s.step()
	lost.lost = true
	s.compacted()
	a, _ := s.step()
	a.torn = true
	s.staleNotice(3)
	s.step()
	s.close(KindRunCompleted, true)
	s.pause()
	s.ask(false)
	s.step()
	s.close(KindRunCompleted, true)
	s.snap = snapTorn
}

// tokenless (session 3): the token store failed, so the run waits for an
// approval with an empty resume_token_id (schema_invalid: a wait whose
// token is missing, interrupted_waiting); the runtime still publishes
// waiting (status_disagrees), the periodic sweep then publishes
// interrupted_waiting; the user gives up on the approval and a new run
// completes. The session has no snapshot and no token index.
func (s *session) tokenless() {
	s.open()
	s.ask(true)
	s.step()
	c := s.newCall(pick(s.x, approvalTools))
	s.think(c.plan, c.tc)
	s.tick(s.x.Millis(3, 40))
	deadline := s.clock.Add(approvalDeadline)
	w := s.add(&runWaiting{RunID: s.run.id, WaitKind: WaitApproval, DeadlineAt: stamp(deadline)}, KindRunWaiting)
	w.runID, w.invalid = s.run.id, true
	s.run.wait = &waitView{kind: WaitApproval, sinceSeq: w.seq, deadline: deadline}
	s.derived(StatusWaiting)
	s.tick(s.x.Secs(60, 240))
	s.derived(StatusInterruptedWaiting)
	s.tick(s.x.Secs(20, 120))
	s.doing = task{prompt: fmt.Sprintf("Never mind the %s, just make the change locally and run the tests.", c.tc.Name),
		done: s.th.words(s.x, "Done locally, nothing pushed or deployed: the change is in {file} and {n} tests pass.")}
	s.startRun(s.userSays(s.doing.prompt))
	s.derived(StatusRunning)
	s.step()
	s.close(KindRunCompleted, true)
	s.snap = snapNone
}

// waiting (session 4): a run that waits for CI and completes, then a run
// waiting for an approval whose deadline (4 h) has not passed: the
// session ends waiting. Snapshot and token index describe the wait.
func (s *session) waiting() {
	s.open()
	s.runWithWait(true, WaitToolResult)
	s.pause()
	s.ask(false)
	s.step()
	c := s.newCall(pick(s.x, approvalTools))
	s.think(c.plan, c.tc)
	s.mintWait(WaitApproval)
	s.derived(StatusWaiting)
	s.snap = snapFull
}

// compacted appends a memory.compacted record, a kind the format does not
// know.
func (s *session) compacted() {
	s.tick(s.x.Millis(20, 400))
	r := s.add(&memoryCompacted{RunID: s.run.id, DroppedMessages: s.x.Between(4, 20), SummaryChars: s.x.Between(800, 3000)}, KindMemoryCompacted)
	r.runID, r.unknown = s.run.id, true
}

// staleNotice appends a context notice from a writer behind by n seqs.
func (s *session) staleNotice(n int64) {
	s.tick(s.x.Millis(5, 300))
	pct := s.x.Between(78, 92)
	s.addSeq(&msgSystem{MessageID: s.messageID(), Content: fmt.Sprintf(
		"Context window at %d%%; older tool outputs will be summarized.", pct)}, KindMessageSystem, s.high-n)
}
