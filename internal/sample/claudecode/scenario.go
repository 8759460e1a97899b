package claudecode

import "time"

// clean is a session without faults: one to four turns on the theme's
// tasks and follow-ups, with what real sessions show now and then
// (subagents, interruptions, API errors, slash commands, compaction,
// queued prompts, a resume after a break, a title); no annotation.
func (s *session) clean() {
	t, x := s.main, s.x
	if t.attachments() && x.Chance(0.4) {
		t.hookContext()
	}
	turns := x.Between(1, 4)
	queued := ""
	for k := range turns {
		if k > 0 {
			t.pause()
		}
		s.cleanTurn(k, &queued)
	}
	if x.Chance(0.3) {
		t.title(pick(x, s.th.titles))
	}
	if x.Chance(0.2) {
		s.resume(x.Chance(0.5))
		queued = ""
		for k := range x.Between(1, 2) {
			if k > 0 {
				t.pause()
			}
			s.cleanTurn(turns+k, &queued)
		}
	}
}

// cleanTurn is turn k of a clean session. queued is a prompt typed
// during the previous turn, which this one starts with.
func (s *session) cleanTurn(k int, queued *string) {
	t, x := s.main, s.x
	tk := s.task(k)
	if *queued != "" {
		t.queue("dequeue", "")
		tk.prompt, *queued = *queued, ""
	}
	switch x.Weighted(8, 12, 8, 10, 62) {
	case 0:
		t.interrupted(tk)
		t.pause()
	case 1:
		t.switchModel()
	case 2:
		t.ask(tk.prompt)
		t.apiErrors(x.Between(1, 3), true)
		t.pause()
	case 3:
		t.compactCommand()
	}
	if k > 0 && x.Chance(0.4) {
		t.followUp(tk)
		return
	}
	if x.Chance(0.25) {
		t.ask(tk.prompt)
		t.delegate(tk, x.Between(1, 2), nil)
		t.step(tk.file, []*call{s.read(tk.file, tk)}, respOpts{})
		t.change(tk)
		t.final(tk.done, respOpts{})
		s.turns++
	} else {
		t.work(tk, x.Between(1, 4))
	}
	if t.attachments() && x.Chance(0.25) {
		*queued = pick(x, s.th.follows)
		t.queue("enqueue", *queued)
	}
}

// resume appends to the same file after a break (claude --resume),
// maybe with a CLI upgraded meanwhile.
func (s *session) resume(upgrade bool) {
	t, x := s.main, s.x
	t.tick(x.Secs(8*60, 20*60))
	if upgrade && t.old() {
		t.version = pick(x, versionsNew)
	}
}

// The fault sessions (with Faults, sessions 0 to 7; see the package
// documentation).

// legacy (session 0): a CLI of the 2.0 line. Two summary lines open the
// file; the first turn delegates to a subagent written to a legacy
// <project>/agent-<agent>.jsonl and has a response whose last line's
// output_tokens fell (usage_regression); a side question written into
// the main file as sidechain lines replays the last response
// (response_replayed) and gets its own answer; the last turn is
// interrupted and answered "No response requested.".
func (s *session) legacy() {
	t, x := s.main, s.x
	t.meta(TypeSummary, obj{{"type", TypeSummary}, {"summary", "Investigate " + s.task(1).pattern + " usage"}, {"leafUuid", x.UUIDv4()}})
	t.meta(TypeSummary, obj{{"type", TypeSummary}, {"summary", pick(x, s.th.titles)}, {"leafUuid", x.UUIDv4()}})
	tk := s.task(0)
	t.ask(tk.prompt)
	t.delegate(tk, 1, nil)
	blocks := []block{{kind: blockThinking, text: fill(thoughts[1], tk.file), sig: x.signature(), out: int64(x.Between(300, 700))},
		{kind: blockText, text: "Let me read the file the agent pointed at.", out: 20}, s.read(tk.file, tk).use()}
	resp := t.respond(blocks, respOpts{outs: func(o []int64) {
		o[1] = max(o[1], o[0]+20)
		o[2] = o[0] + 5 // the last snapshot is below the one before it
	}})
	t.answer(resp.calls)
	t.change(tk)
	t.step("the tests", []*call{s.bash(s.th.test, "Run the tests", s.th.pass, false)}, respOpts{})
	last := t.final(tk.done, respOpts{})
	s.turns++

	t.pause()
	back := t.last
	t.sidechain = true
	t.ask("quick question on the side: is " + tk.pattern + " covered by other tests?")
	t.replayed(last)
	t.final("Only by "+s.th.files[2]+"; nothing else exercises it.", respOpts{})
	t.sidechain = false
	t.nextParent = back

	t.pause()
	t.interrupted(s.task(1))
	t.tick(x.Millis(200, 900))
	t.synthetic("No response requested.", false)
}

// subagents (session 1): a CLI of 2.1.97+. Queue operations and a hook
// attachment open the file; the first turn starts two subagents in
// parallel (agent_progress lines in the main file, one agent resumed
// under a new id: agent_id_mismatch), edits, tests and answers with
// stop_reason end_turn; a /btw side question replays that answer in its
// own subagent file (response_replayed); a title; /compact; a last turn
// ends with a stop_reason the format does not know.
func (s *session) subagents() {
	t, x := s.main, s.x
	tk := s.task(0)
	t.queue("enqueue", tk.prompt)
	t.tick(x.Millis(5, 50))
	t.queue("dequeue", "")
	t.hookContext()
	t.ask(tk.prompt)
	t.step(tk.prompt, []*call{s.todo("find the code", "fix "+tk.file, "run the tests")}, respOpts{})
	t.delegate(tk, 2, map[int]bool{1: true})
	t.change(tk)
	t.step("the tests", []*call{s.bash(s.th.test, "Run the tests", s.th.pass, false)}, respOpts{})
	last := t.final(tk.done, respOpts{stops: true})
	s.turns++
	s.sideQuestion(tk.prompt, last, "does this also affect "+s.th.files[3]+"?", "No — "+s.th.files[3]+" never calls it.")
	t.title(pick(x, s.th.titles))
	t.pause()
	t.compactCommand()
	t.ask(pick(x, s.th.follows))
	t.step("the follow-up", []*call{s.bash(s.th.build, "Check the build", "", false)}, respOpts{})
	t.final("Done; the build is clean.", respOpts{edit: func(i int, m *msgSpec) { m.stop = "budget_exhausted" }})
	s.turns++
}

// original (session 2): a clean session of a CLI before 2.1.97 that is
// forked (session 3) after its first part and resumed later, appending
// to the same file with an upgraded CLI. It returns the number of main
// lines of the first part.
func (s *session) original() (int, tokenCtx, time.Time) {
	t, x := s.main, s.x
	t.work(s.task(0), 4)
	t.pause()
	t.followUp(s.task(0))
	n, ctx, end := len(t.recs), t.ctx, t.clock
	t.tick(x.Secs(18*60, 25*60))
	t.version = pick(x, versionsNew)
	t.work(s.task(1), 3)
	return n, ctx, end
}

// fork (session 3) is claude --fork-session of o: the file starts with
// a byte-identical copy of o's conversation up to n (o's sessionId:
// session_id_mismatch, not counted), then new turns under its own id.
func (s *session) fork(o *session, n int, ctx tokenCtx) {
	t := s.main
	for _, r := range o.main.recs[:n] {
		if !r.conv {
			continue
		}
		t.recs = append(t.recs, r.clone())
		t.last = r.uuid
	}
	t.ctx = ctx
	t.work(s.task(1), 3)
	t.pause()
	t.followUp(s.task(1))
}

// continued (session 7) is a conversation of o resumed in a new session
// by a CLI that writes its history again under the new session's id: the
// file starts with o's conversation lines up to n, each with this
// session's id and otherwise as written (message.id and requestId kept),
// then new turns. The copied responses are one bill with o's on the
// node.
func (s *session) continued(o *session, n int, ctx tokenCtx) {
	t := s.main
	for _, r := range o.main.recs[:n] {
		if !r.conv {
			continue
		}
		t.recs = append(t.recs, r.resumedAs(s.id))
		t.last = r.uuid
	}
	t.ctx = ctx
	t.work(s.task(1), 2)
}

// billResumed marks the responses of the main transcript's first n
// lines as written again in another session's journal (continued),
// before the truth of this one is made.
func (s *session) billResumed(n int) {
	for _, r := range s.main.recs[:n] {
		if r.conv && r.a != nil {
			r.a.billed = true
		}
	}
}

// damaged (session 4): a CLI before 2.1.97 whose file holds most faults:
// a progress line torn by the next one (corrupt; the result after it
// names a parent that was swallowed: parent_missing); a tool_use line
// lost (its result: parent_missing, tool_result_without_call); a line
// written twice (uuid_repeat); a line that is a JSON string and one
// without a type (corrupt); /model; an unknown line type; API errors
// ending in a synthetic error line; responses without message.model, without
// message.id and with a string output_tokens (schema_invalid); a tool
// input holding "model":null; a refused edit; and a last tool call
// never answered, the process dying while appending its result (the
// partial tail).
func (s *session) damaged() {
	t, x := s.main, s.x
	tk := s.task(0)
	t.ask(tk.prompt)
	t.step(tk.file, []*call{s.read(tk.file, tk)}, respOpts{})

	bash := s.bash(s.th.test, "Run the tests", s.th.fail, true)
	first, _, _ := cut(s.th.fail)
	bash.progress = []obj{
		{{"type", "bash_progress"}, {"output", first}, {"fullOutput", first}, {"elapsedTimeSeconds", 2}, {"totalLines", 1}},
		{{"type", "bash_progress"}, {"output", s.th.fail}, {"fullOutput", s.th.fail}, {"elapsedTimeSeconds", 4}, {"totalLines", 6}},
	}
	at := len(t.recs)
	t.step("the tests", []*call{bash}, respOpts{})
	for _, r := range t.recs[at:] {
		if r.typ == TypeProgress {
			r.torn = true // interleaved with the second progress line
			break
		}
	}

	resp := t.respond([]block{{kind: blockText, text: "Let me find the other callers.", out: 14}, s.grep(tk.pattern).use()}, respOpts{})
	resp.lines[1].lost = true // the write failed: its result names a parent and a call never seen
	t.answer(resp.calls)

	t.recs = append(t.recs, &rec{raw: `"[object Object]"`, corrupt: true, at: t.clock})
	resp = t.step(tk.file, []*call{s.read(tk.file, tk)}, respOpts{})
	dup := resp.lines[0].clone() // written twice by a retried append
	i := indexOf(t.recs, resp.lines[0])
	t.recs = append(t.recs[:i+1], append([]*rec{dup}, t.recs[i+1:]...)...)
	t.change(tk)
	t.final(tk.done, respOpts{})
	s.turns++

	t.tick(x.Secs(5, 40))
	t.recs = append(t.recs, &rec{raw: `{"sessionId":"` + s.id + `","timestamp":"` + stamp(t.clock) + `","isSidechain":false,"userType":"external"}`, corrupt: true, at: t.clock})
	t.switchModel()
	t.tick(x.Millis(50, 500))
	t.meta(TypeUnknown, obj{{"type", TypeUnknown}, {"sessionId", s.id}, {"timestamp", stamp(t.clock)}, {"percentUsed", x.Between(20, 60)}, {"window", 200000}}).unknown = true

	tk = s.task(1)
	t.ask(tk.prompt)
	t.apiErrors(2, true)
	t.pause()
	t.ask(tk.prompt)
	t.respond([]block{{kind: blockText, text: "Looking at " + tk.file + " now.", out: int64(x.Between(20, 80))}},
		respOpts{edit: func(_ int, m *msgSpec) { m.noModel = true }})
	t.pause()
	t.ask(pick(x, s.th.follows))
	t.respond([]block{{kind: blockText, text: "Sure, one moment.", out: int64(x.Between(10, 40))}},
		respOpts{edit: func(_ int, m *msgSpec) { m.noID = true }})
	t.pause()
	t.ask(tk.prompt)
	blocks := []block{{kind: blockThinking, text: fill(thoughts[3], tk.file), sig: x.signature(), out: int64(x.Between(200, 600))},
		{kind: blockText, text: "I'll fix it directly.", out: 12}, s.edit(tk.file, tk.old, tk.fix).use()}
	resp = t.respond(blocks, respOpts{edit: func(i int, m *msgSpec) { m.strOut = i == 0 }})
	t.answer(resp.calls)
	router := s.mcp("mcp__llm-router__complete", obj{{"prompt", "Write a one-line changelog entry for: " + tk.done}, {"model", nil}, {"max_tokens", 200}},
		"- "+tk.prompt)
	t.respond([]block{router.use()}, respOpts{})
	t.answer([]*call{router})
	t.final(tk.done, respOpts{})
	s.turns++

	t.pause()
	t.refused(s.task(0))
	t.pause()
	t.ask(pick(x, s.th.follows))
	last := s.bash(s.th.build, "Check the build", "", false)
	last.progress = nil
	t.respond([]block{last.use()}, respOpts{})
	t.tick(x.Secs(1, 5))
	t.result(last).crash = true
}

func indexOf(recs []*rec, r *rec) int {
	for i, q := range recs {
		if q == r {
			return i
		}
	}
	return -1
}

func cut(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
