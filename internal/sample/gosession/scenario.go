package gosession

import (
	"strings"
	"time"
)

// The scenarios, Session.Scenario (see the package doc).
const (
	ScenarioFinished    = "finished"
	ScenarioRunning     = "running"
	ScenarioResumed     = "resumed"
	ScenarioFork        = "fork"
	ScenarioLost        = "lost"
	ScenarioDamaged     = "damaged"
	ScenarioCrash       = "crash"
	ScenarioHalfWritten = "half-written"
	ScenarioUnanswered  = "unanswered"
	ScenarioClean       = "clean"
)

// faultScenarios are the fault sessions' scenarios, by index.
var faultScenarios = [MinFaultSessions]string{ScenarioFinished, ScenarioRunning, ScenarioResumed, ScenarioFork,
	ScenarioLost, ScenarioDamaged, ScenarioCrash, ScenarioHalfWritten, ScenarioUnanswered}

// nestedScenarios are the fault scenarios written in Goat's shape
// (nested messages, per-run metadata named by id); the others, and the
// fork of the finished session, in the spec's.
var nestedScenarios = map[string]bool{ScenarioRunning: true, ScenarioResumed: true, ScenarioLost: true,
	ScenarioDamaged: true, ScenarioCrash: true, ScenarioUnanswered: true}

// faultSession writes fault session i; source is session 0 (nil for i 0).
func faultSession(x *rng, i int, model string, at time.Time, source *session) *session {
	name := faultScenarios[i]
	if name == ScenarioFork {
		return fork(x, source)
	}
	s := newSession(x, name, model, at)
	s.nested = nestedScenarios[name]
	switch name {
	case ScenarioFinished:
		s.finished()
	case ScenarioRunning:
		s.running()
	case ScenarioResumed:
		s.resumed()
	case ScenarioLost:
		s.lostWrites()
	case ScenarioDamaged:
		s.damaged()
	case ScenarioCrash:
		s.crashed()
	case ScenarioHalfWritten:
		s.halfWritten()
	case ScenarioUnanswered:
		s.unanswered()
	}
	return s
}

// clean is a session without faults: one or two tasks, perhaps a
// follow-up; most end (end_turn, sometimes max_turns or the budget), some
// are still running, waiting for a tool or for the model, unless ends
// (a corpus without faults, the simulator's: every session ends).
func (s *session) clean(ends bool) {
	x := s.x
	s.transcript, s.shape = x.Chance(0.4), x.Intn(3)
	s.startRun()
	if x.Chance(0.5) {
		s.system()
	}
	first := x.Intn(2)
	for j := range x.Between(1, 2) {
		if j > 0 {
			s.pause()
		}
		s.work(s.task(first+j), x.Chance(0.7))
	}
	if x.Chance(0.5) {
		s.pause()
		s.chat(x.Intn(2))
	}
	switch w := x.Weighted(70, 8, 7, 15); {
	case w == 0, w == 3 && ends:
		s.finish("end_turn")
	case w == 1:
		s.finish("max_turns")
	case w == 2:
		s.finish("error_max_budget_usd")
	default:
		s.pause()
		s.prompt(s.task(first + 1).prompt)
		if x.Chance(0.5) {
			s.issue(s.grep(s.task(first + 1)))
		}
	}
}

// finished: a system prompt, two fixes (a seed-shaped checkpoint, then a
// Goat-shaped one), a follow-up, end_turn; with a transcript.
func (s *session) finished() {
	s.transcript, s.shape = true, shapeMixed
	s.startRun()
	s.system()
	s.work(s.task(0), true)
	s.pause()
	s.work(s.task(1), true)
	s.pause()
	s.chat(0)
	s.finish("end_turn")
}

// running: metadata.json as Create wrote it (no exit_reason), the second
// prompt's test run still going (acting, one call open); with a
// transcript.
func (s *session) running() {
	s.transcript = true
	s.startRun()
	s.work(s.task(0), true)
	s.pause()
	s.prompt(s.task(1).prompt)
	s.issue(s.bash(s.th.test, s.th.fail))
}

// resumed: a first run ended (end_turn), resumed 10 to 30 minutes later
// in the same files; the new run's messages postdate updated_at, so the
// exit_reason is stale (thinking: a tool just answered).
func (s *session) resumed() {
	s.transcript = true
	s.startRun()
	s.work(s.task(0), true)
	s.finish("end_turn")
	s.tick(10*time.Minute, 30*time.Minute)
	s.startRun()
	s.prompt(s.task(1).prompt)
	s.act(s.grep(s.task(1)))
}

// fork: Fork of session 0 one to ten minutes after it ended: its
// messages copied (same uuids and times, same bytes), its metadata copied
// (exit_reason, turn_count, total_cost_usd) with a new id,
// parent_session_id and both times the fork's; then a new run still
// going (thinking).
func fork(x *rng, src *session) *session {
	at := src.meta.UpdatedAt.Add(x.span(time.Minute, 10*time.Minute))
	s := newSession(x, ScenarioFork, src.model, at)
	s.th, s.agent, s.loc = src.th, src.agent, src.loc
	s.openAI, s.toolName, s.nullContent, s.parts, s.nested = src.openAI, src.toolName, src.nullContent, src.parts, src.nested
	s.meta = src.meta
	s.meta.SessionID, s.meta.ParentSessionID = s.id, src.id
	s.meta.CreatedAt = at.In(s.loc)
	s.meta.UpdatedAt = s.meta.CreatedAt
	s.turns, s.micros = src.turns, src.micros
	for _, r := range src.recs {
		cp := *r
		s.recs = append(s.recs, &cp)
	}
	s.tick(5*time.Second, 40*time.Second)
	s.startRun()
	s.prompt(s.th.follows[1])
	s.act(s.read(s.task(1)))
	return s
}

// lostWrites: dropped and doubled writes. A tool message written twice
// (uuid_repeat), the response calling Read lost (its tool message:
// tool_result_without_call), the clock stepped back one to three seconds
// before the follow-up (timestamp_regression); ends end_turn, over.
func (s *session) lostWrites() {
	t := s.task(0)
	s.startRun()
	s.prompt(t.prompt)
	s.act(s.grep(t))
	s.recs = append(s.recs, s.recs[len(s.recs)-1])
	s.act(s.read(t)).lost = true
	s.act(s.edit(t))
	s.act(s.bash(s.th.test, s.th.pass))
	s.reply(t.done)
	s.clock = s.recs[len(s.recs)-1].at.Add(-s.x.span(time.Second, 3*time.Second))
	s.prompt(s.th.follows[0])
	s.act(s.bash(s.th.test, s.th.pass))
	s.reply(s.th.answers[0])
	s.finish("end_turn")
}

// damaged: a run of NUL bytes (corrupt), an answer cut short with the
// next prompt written onto it (corrupt, the prompt swallowed), a message
// with "role":null (corrupt), content written twice (schema_invalid,
// duplicate_key), a tool_calls entry without id (schema_invalid; never
// answered), a "developer" message (unknown_type), a tool message without
// tool_call_id (schema_invalid; its call stays open) and an answer whose
// uuid is a number (schema_invalid); ends max_turns, over, one call
// unanswered.
func (s *session) damaged() {
	t0, t1 := s.task(0), s.task(1)
	s.startRun()
	s.system()
	s.prompt(t0.prompt)
	s.act(s.grep(t0))
	s.recs = append(s.recs, &rec{raw: strings.Repeat("\x00", s.x.Between(16, 64)), corrupt: true})
	s.act(s.read(t0))
	s.reply(t0.done).torn = true
	s.pause()
	s.prompt(t1.prompt)
	s.tick(5*time.Second, 20*time.Second)
	r := s.prompt(t1.prompt)
	r.editMessage(func(m obj) obj { return set(m, "role", nil) })
	r.corrupt = true
	s.tick(5*time.Second, 20*time.Second)
	r = s.prompt(t1.prompt)
	r.editMessage(func(m obj) obj { return append(m, kv{"content", "(" + t1.prompt + ")"}) })
	r.invalid, r.dupKey = true, true
	glob, read := s.glob(), s.read(t1)
	a := s.issue(glob, read)
	tc := a.message().Get("tool_calls").([]obj)
	tc[0] = without(tc[0], "id")
	a.calls, a.invalid = a.calls[1:], true
	s.answer(read)
	s.tick(time.Second, 4*time.Second)
	s.msg("developer", kv{"content", "Keep the public API unchanged."})
	s.act(s.edit(t1))
	test := s.bash(s.th.test, s.th.pass)
	s.issue(test)
	r = s.answer(test)
	r.editMessage(func(m obj) obj { return without(m, "tool_call_id") })
	r.answers, r.invalid = "", true
	r = s.reply(t1.done)
	r.b, r.uuid, r.invalid = set(r.b, "uuid", 1+s.x.Intn(1<<20)), "", true
	s.finish("max_turns")
}

// crashed: the process died while appending a tool message (the file
// ends in its prefix: PartialTail); no metadata.json at all (Create's
// write was lost), so no model on the assistant lines; acting, never
// over.
func (s *session) crashed() {
	t := s.task(0)
	s.noMeta = true
	s.startRun()
	s.prompt(t.prompt)
	s.act(s.grep(t))
	s.act(s.read(t))
	s.act(s.edit(t))
	test := s.bash(s.th.test, s.th.pass)
	s.issue(test)
	s.answer(test).crash = true
}

// halfWritten: two fixes, end_turn, but metadata.json is caught
// half-rewritten (unknown: not over, no model) and the last checkpoint's
// manifest is half-written (left out of the checkpoints).
func (s *session) halfWritten() {
	s.startRun()
	s.work(s.task(0), true)
	s.pause()
	s.work(s.task(1), true)
	s.finish("end_turn")
	s.metaCut = true
	s.cps[len(s.cps)-1].cut = true
}

// unanswered: a fix, then a prompt whose response calls three tools in
// parallel; the first answers and the user interrupts: exit_reason
// interrupted, over, two calls never answered.
func (s *session) unanswered() {
	t := s.task(1)
	s.startRun()
	s.work(s.task(0), true)
	s.pause()
	s.prompt(t.prompt)
	calls := []call{s.bash(s.th.test, s.th.fail), s.grep(t), s.read(t)}
	s.issue(calls...)
	s.answer(calls[0])
	s.finish("interrupted")
}
