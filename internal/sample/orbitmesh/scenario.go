package orbitmesh

// scenario fills session i. With faults, sessions 0 to 4 have fixed
// shapes that carry the fault scenarios (see the package documentation);
// every other session is clean.
func (s *session) scenario(i int, faults bool) {
	if !faults || i >= MinFaultSessions {
		s.clean()
		return
	}
	[]func(){s.crashed, s.interrupted, s.damaged, s.tokenless, s.waiting}[i]()
}

// open starts the session, with its system message half of the time.
func (s *session) open() {
	if s.x.Chance(0.5) {
		s.system()
		s.tick(s.x.Millis(20, 900))
	}
}

// ask appends a user message (the task, or a follow-up) and the run it
// starts, with the published status most of the time.
func (s *session) ask(first bool) {
	s.doing = s.th.task
	if !first {
		f := pick(s.x, followUps)
		s.doing = task{prompt: s.th.words(s.x, f.prompt), done: s.th.words(s.x, f.done)}
	}
	s.startRun(s.userSays(s.doing.prompt))
	if s.x.Chance(0.6) {
		s.derived(StatusRunning)
	}
}

// close ends the run the way kind says, after a summary when it
// completes; status: the runtime publishes idle after it.
func (s *session) close(kind string, status bool) {
	if kind == KindRunCompleted {
		s.finish()
	}
	s.end(kind)
	if status {
		s.derived(StatusIdle)
	}
}

// pause is the user's pause between two runs.
func (s *session) pause() { s.tick(s.x.Secs(20, 150)) }

// runWithWait is a run with one quick step, one wait of kind resumed, and
// a completion.
func (s *session) runWithWait(first bool, kind string) {
	s.ask(first)
	s.step()
	s.waitStep(kind, true)
	s.close(KindRunCompleted, true)
}

// clean is a session without faults: one to three runs, each with a few
// steps and maybe a wait, ending completed, failed or cancelled; the last
// run may also time out waiting for CI.
func (s *session) clean() {
	s.open()
	runs := s.x.Between(1, 3)
	for r := range runs {
		if r > 0 {
			s.pause()
		}
		s.cleanRun(r == 0, r == runs-1)
	}
	s.snap = []snapMode{snapFull, snapNoIndex, snapNone}[s.x.Weighted(70, 20, 10)]
}

func (s *session) cleanRun(first, last bool) {
	s.ask(first)
	steps, waitAt := s.x.Between(1, 4), -1
	if s.x.Chance(0.4) {
		waitAt = s.x.Intn(steps)
	}
	kind := pick(s.x, []string{WaitToolResult, WaitApproval})
	for k := range steps {
		if k == waitAt {
			s.waitStep(kind, s.x.Chance(0.6))
		} else {
			s.step()
		}
	}
	w := []int{70, 10, 8, 0}
	if last {
		w[3] = 12
	}
	switch s.x.Weighted(w...) {
	case 0:
		s.close(KindRunCompleted, s.x.Chance(0.6))
	case 1:
		s.close(KindRunFailed, s.x.Chance(0.6))
	case 2:
		s.close(KindRunCancelled, s.x.Chance(0.6))
	default:
		s.timeout()
	}
}

// timeout: the run waits for CI past the deadline; the periodic sweep
// interrupts it (wait_timeout), revokes the token and publishes the
// status.
func (s *session) timeout() {
	c := s.newCall(ciTool)
	s.think(c.plan, c.tc)
	s.mintWait(WaitToolResult)
	s.derived(StatusWaiting)
	s.tick(toolResultDeadline + s.x.Secs(5, 55))
	s.interrupt(ReasonWaitTimeout, "periodic_sweep")
	s.revoke(ReasonWaitTimeout)
	s.derived(StatusInterruptedWaiting)
}
