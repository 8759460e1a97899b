package codelia

import "strings"

// The run kinds: with Faults, run i < MinFaultRuns is fault run i (see the
// package doc); every other run is clean.
const (
	scCrashed     = iota // dies while appending a response
	scRetries            // lost pair, retried request, continuation, extension records
	scInterleaved        // torn header, a foreign record, an unknown outcome
	scNewer              // schema_version 2, judged best-effort
	scCancelled          // misfiled, a repeated event, cancelled without run.end
	scResumed            // unknown input type, restarted with a second header
	scClean
)

// scenarioOf returns the kind of run i.
func scenarioOf(i int, faults bool) int {
	if faults && i < MinFaultRuns {
		return i
	}
	return scClean
}

// build appends the records of a run of kind.
func build(r *run, kind int) {
	switch kind {
	case scCrashed:
		crashedRun(r)
	case scRetries:
		retriesRun(r)
	case scInterleaved:
		interleavedRun(r)
	case scNewer:
		newerRun(r)
	case scCancelled:
		cancelledRun(r)
	case scResumed:
		resumedRun(r)
	default:
		cleanRun(r)
	}
}

// open appends the header, run.start and the first run.status.
func (r *run) open(p plan) {
	r.header(1)
	r.start(p.prompt)
	r.status("running", "")
}

// step appends one invocation that calls tools and what the tools write.
func (r *run) step(st step) {
	_, _, ids := r.invoke(st)
	r.tools(st, ids)
}

// complete appends the final invocation, its event, the terminal status
// and run.end.
func (r *run) complete(text string) {
	r.answer(text)
	r.finalEvent(text)
	r.status("completed", "")
	r.end("completed", text)
}

// crashedRun: the test output's tool_call event is torn by the tool.output
// written at the same time; the provider rate-limits (run.status
// "rate_limited", a value v1 does not know); the process dies while
// appending the next response.
func crashedRun(r *run) {
	p := newPlan(r.x, r.host.th, taskFix)
	r.open(p)
	st := p.steps[0]
	_, _, ids := r.invoke(st)
	r.event(obj{{"type", "text"}, {"content", st.text}})
	r.toolCall(st.calls[0], ids[0]).fate = tornWithNext
	r.toolOutput(st.calls[0], ids[0])
	r.context()
	r.step(p.steps[1])
	r.status("rate_limited", "429 from the provider, retrying in 20s")
	r.wait(20000, 20500)
	r.status("running", "")
	_, resp, _ := r.invoke(p.steps[2])
	resp.fate = crashed
}

// retriesRun continues the crashed run's session: an x.acme. policy
// record, a request/response pair the writer lost, an overloaded provider
// (llm.retry, a type no version knows) and the request written again with
// its seq, a response without total_tokens, and an answer cut at
// max_tokens whose continuation is a second response to the same request.
func retriesRun(r *run) {
	p := newPlan(r.x, r.host.th, taskFix)
	r.open(p)
	st := p.steps[0]
	_, _, ids := r.invoke(st)
	r.event(obj{{"type", "text"}, {"content", st.text}})
	r.toolCall(st.calls[0], ids[0])
	r.policyCheck(st.calls[0], ids[0])
	r.toolOutput(st.calls[0], ids[0])

	req, resp, ids := r.invoke(p.steps[1])
	req.fate, resp.fate = dropped, dropped
	r.tools(p.steps[1], ids)

	seq := r.reqSeq + 1
	r.request(seq)
	r.retry()
	_, resp, ids = r.invokeSeq(p.steps[2], seq)
	resp.usage.omitTotal, resp.invalid = true, true
	r.tools(p.steps[2], ids)

	r.step(p.steps[3])
	r.continued(p.final)
	r.finalEvent(p.final)
	r.status("completed", "")
	r.end("completed", p.final)
}

// policyCheck appends the record of an organisation's hook, in its own
// namespace as the spec asks of custom types.
func (r *run) policyCheck(c call, id string) *rec {
	r.wait(3, 40)
	return r.add("x.acme.policy_check", -1, obj{{"tool", c.tool}, {"tool_call_id", id},
		{"rule", "allow-test-commands"}, {"decision", "allow"}})
}

// retry appends llm.retry: a newer runtime's record of a failed attempt,
// a type without namespace that this schema does not know.
func (r *run) retry() *rec {
	r.wait(800, 3000)
	rc := r.add("llm.retry", -1, obj{{"attempt", 1}, {"delay_ms", 2000},
		{"error", obj{{"type", "overloaded_error"}, {"message", "Overloaded"}}}})
	rc.unknown = true
	r.wait(2000, 2100)
	return rc
}

// continued appends the final invocation whose answer stops at
// max_tokens, and the continuation the runtime asks for without writing
// another request: a second llm.response with the same seq.
func (r *run) continued(text string) {
	cut := strings.LastIndexByte(text[:len(text)/2+1], ' ')
	if cut <= 0 {
		cut = len(text) / 2
	}
	seq := r.reqSeq + 1
	r.request(seq)
	first := obj{{"role", "assistant"}, {"content", text[:cut]}}
	r.response(seq, first, "max_tokens", tokensOf(first))
	r.remember(first)
	rest := obj{{"role", "assistant"}, {"content", text[cut:]}}
	r.wait(50, 300)
	r.response(seq, rest, r.prov.final, tokensOf(rest)+r.x.Between64(5, 40))
	r.remember(rest)
	r.final = text
}

// interleavedRun is a run without a session (prompt mode) whose header is
// torn by its run.start, with a run.context of another run written into
// its file; the user interrupts it, which a newer runtime records as the
// run.end outcome "interrupted".
func interleavedRun(r *run) {
	p := newPlan(r.x, r.host.th, taskExplain)
	r.header(1).fate = tornWithNext
	r.start(p.prompt)
	r.status("running", "")
	r.step(p.steps[0])
	other := r.x.UUIDv4()
	r.wait(1, 15)
	fc := r.add(typeRunContext, -1, obj{{"context_left_percent", 91.5}})
	fc.runID, fc.body[1] = other, kv{"run_id", other}
	r.step(p.steps[1])
	r.step(p.steps[2])
	r.end("interrupted", "")
}

// newerRun is written by a newer runtime with schema_version 2, whose
// tool.output carries a result object instead of result_raw.
func newerRun(r *run) {
	p := newPlan(r.x, r.host.th, taskReview)
	r.v2 = true
	r.header(2)
	r.start(p.prompt)
	r.status("running", "")
	for _, st := range p.steps {
		r.step(st)
	}
	r.complete(p.final)
}

// cancelledRun is misfiled (another run_id in the file name, the day
// before in the directories), writes an agent.event twice, and is
// cancelled while the model streams: the aborted response has no usage,
// and the runtime exits after run.status "cancelled" without run.end.
func cancelledRun(r *run) {
	p := newPlan(r.x, r.host.th, taskFix)
	r.fileID, r.dir = r.x.UUIDv4(), r.dir.AddDate(0, 0, -1)
	r.open(p)
	r.step(p.steps[0])
	r.step(p.steps[1])
	st := p.steps[2]
	_, _, ids := r.invoke(st)
	text := r.event(obj{{"type", "text"}, {"content", st.text}})
	again := *text
	r.recs = append(r.recs, &again)
	r.toolCall(st.calls[0], ids[0])
	r.toolOutput(st.calls[0], ids[0])
	seq := r.reqSeq + 1
	r.request(seq)
	r.wait(1500, 4000)
	rc := r.add(typeLLMResponse, seq, obj{{"output", obj{{"messages", []obj{}}, {"usage", nil}, {"stop_reason", nil}}}})
	rc.model = ""
	r.status("cancelled", "cancelled by user")
}

// resumedRun starts from text and a screenshot (input.type "parts", which
// v1 does not know), waits for the user's approval of an edit, and is
// resumed by a restarted runtime that writes the header again and
// numbers invocations and events from the start again.
func resumedRun(r *run) {
	p := newPlan(r.x, r.host.th, taskFix)
	r.header(1)
	r.wait(120, 600)
	input := obj{{"type", "parts"}, {"parts", []obj{{{"type", "text"}, {"text", p.prompt}},
		{{"type", "image"}, {"path", "/tmp/screenshot-" + r.x.Chars(6, hexLow) + ".png"}}}}}
	r.startWith(input, "parts", p.prompt)
	r.status("running", "")
	r.step(p.steps[0])
	r.step(p.steps[1])
	st := p.steps[2]
	_, _, ids := r.invoke(st)
	r.event(obj{{"type", "text"}, {"content", st.text}})
	r.toolCall(st.calls[0], ids[0])
	r.status("awaiting_ui", "approve edit of "+st.calls[0].args.Get("file_path").(string)+"?")
	r.wait(60000, 150000)
	r.reqSeq, r.evSeq = 0, 0
	r.header(1)
	r.status("running", "")
	r.step(st)
	r.step(p.steps[3])
	r.complete(p.final)
}

// cleanRun is a run without faults: it completes (75 %), fails on a
// provider error (12 %) or is cancelled (13 %), with approvals and
// context reports on the way.
func cleanRun(r *run) {
	p := newPlan(r.x, r.host.th, r.x.Intn(taskCount))
	r.open(p)
	outcome := pick(r.x, []string{"completed", "completed", "completed", "completed", "completed", "completed",
		"error", "cancelled"})
	stop := r.x.Intn(len(p.steps))
	for k, st := range p.steps {
		if outcome == "error" && k == stop {
			r.fail()
			return
		}
		r.cleanStep(st)
		if outcome == "cancelled" && k == stop {
			r.status("cancelled", "cancelled by user")
			r.end("cancelled", "")
			return
		}
	}
	r.complete(p.final)
}

// cleanStep is step with an approval before bash and edit calls at
// times, and a context report after the response at times.
func (r *run) cleanStep(st step) {
	_, _, ids := r.invoke(st)
	if r.x.Chance(0.3) {
		r.context()
	}
	if st.text != "" {
		r.event(obj{{"type", "text"}, {"content", st.text}})
	}
	for i, c := range st.calls {
		r.toolCall(c, ids[i])
		if (c.tool == "bash" || c.tool == "edit") && r.x.Chance(0.25) {
			r.status("awaiting_ui", "approve "+c.tool+"?")
			r.wait(3000, 40000)
			r.status("running", "")
		}
		r.toolOutput(c, ids[i])
	}
}

// fail appends a request the provider fails, run.error, run.status error
// and run.end error.
func (r *run) fail() {
	r.request(r.reqSeq + 1)
	r.wait(1000, 8000)
	msg := map[string]string{
		"anthropic": "529 overloaded_error: Overloaded",
		"openai":    "500 The server had an error while processing your request.",
		"google":    "503 The model is overloaded. Please try again later.",
	}[r.prov.name]
	r.runError("APIError", msg)
	r.status("error", msg)
	r.end("error", "")
}
