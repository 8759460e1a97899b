package claudecode

import (
	"fmt"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// A headless run captured with
//
//	claude -p --output-format stream-json --verbose --include-partial-messages
//
// as its runner saves it (docs/formats/claude-code.md, Layout and Tokens
// and cost): the init line, then per response its streaming events
// (message_start with the response's id, model and first usage snapshot,
// the content blocks' start, deltas and stop, message_delta with the
// final usage, message_stop), an assistant line per content block
// carrying the message_start snapshot, the tool results, and the result
// line reporting the run's usage per model. A subagent's lines, streaming
// events included, carry its Task call's id as parent_tool_use_id.

// HelperModel is the model of Claude Code's own helper calls (naming the
// session, summarising fetched pages): a run's result reports its usage
// in modelUsage, and no other line shows it.
const HelperModel = "claude-haiku-4-5-20251001"

// versionsCapture are the CLI versions of the captures: before 2.1.97,
// as the real capture (2.1.44) whose assistant lines hold the
// message_start snapshot.
var versionsCapture = []string{"2.1.44", "2.1.59", "2.1.72", "2.1.90"}

// listPrice is a model's list price in USD per million tokens: input,
// output, cache read, 5-minute and 1-hour cache writes. Claude Code
// states a run's cost from such a list (result.total_cost_usd); a model
// outside listPrices adds nothing to it.
type listPrice struct{ in, out, read, write, write1h float64 }

var listPrices = map[string]listPrice{
	"claude-sonnet-4-5-20250929": {3, 15, 0.3, 3.75, 6},
	"claude-sonnet-4-6":          {3, 15, 0.3, 3.75, 6},
	"claude-opus-4-6":            {5, 25, 0.5, 6.25, 10},
	"claude-haiku-4-5-20251001":  {1, 5, 0.1, 1.25, 2},
}

// cost is u's price at model's list price (0 when unlisted).
func cost(model string, u usage) float64 {
	p := listPrices[model]
	return (float64(u.in)*p.in + float64(u.out)*p.out + float64(u.cr)*p.read +
		float64(u.cw-u.cw1h)*p.write + float64(u.cw1h)*p.write1h) / 1e6
}

// streamUsage is what the truth needs of a stream_event stating a
// response's usage: a message_start (the response's id and model, the
// first snapshot) or a message_delta (the final usage, without the
// cache's 5m/1h split, of its stream's open response).
type streamUsage struct {
	start        bool   // message_start; else message_delta
	stream       string // parent_tool_use_id, "" for the main agent
	msgID, model string // message_start only
	u            usage  // as written (a message_delta's cw1h is 0)
	no1h         bool   // the usage states no one-hour part
}

// modelReport is one model of a result's modelUsage, as written (in:
// the uncached input).
type modelReport struct {
	model string
	u     usage
}

// runReport is what the truth needs of a result line: modelUsage in the
// line's order, the one-hour cache writes its usage states, its subtype.
type runReport struct {
	models  []modelReport
	cw1h    int64
	subtype string
}

// capture builds a stream-json capture into the session's main
// transcript (its lines, clock and versions): the run's usage per model,
// in the order first used, for the result line.
type capture struct {
	s     *session
	t     *transcript
	used  []modelReport
	turns int
}

// agent is one stream of a capture: the main agent's (parent "") or a
// subagent's (parent: its Task call's tool_use id). Its lines go to out.
type agent struct {
	c      *capture
	parent string
	model  string
	ctx    tokenCtx
	out    *[]*rec
}

// newCapture starts the session's capture with its init line; the main
// agent runs on the session's model.
func (s *session) newCapture() (*capture, *agent) {
	t := s.main
	t.version = pick(s.x, versionsCapture)
	c := &capture{s: s, t: t}
	main := &agent{c: c, model: t.model, ctx: t.ctx, out: &t.recs}
	o := obj{{"type", TypeSystem}, {"subtype", "init"}, {"cwd", s.th.cwd}, {"session_id", s.id},
		{"tools", []string{"Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "TodoWrite", "WebFetch"}}, {"mcp_servers", []obj{}},
		{"model", t.model}, {"permissionMode", "default"}, {"slash_commands", []string{"compact", "context", "cost", "init", "review"}},
		{"apiKeySource", "none"}, {"claude_code_version", t.version}, {"output_style", "default"},
		{"agents", []string{"general-purpose", "Explore", "Plan"}}, {"uuid", s.x.UUIDv4()}}
	t.recs = append(t.recs, &rec{typ: TypeSystem, b: o, at: t.clock})
	return c, main
}

// emit appends a line of type typ: body, then parent_tool_use_id,
// session_id and uuid (in the order Claude Code writes them for the
// type), then tail.
func (a *agent) emit(typ string, body, tail obj) *rec {
	s := a.c.s
	var parent any
	if a.parent != "" {
		parent = a.parent
	}
	o := append(obj{{"type", typ}}, body...)
	if typ == TypeStreamEvent {
		o = append(o, kv{"session_id", s.id}, kv{"parent_tool_use_id", parent})
	} else {
		o = append(o, kv{"parent_tool_use_id", parent}, kv{"session_id", s.id})
	}
	o = append(append(o, kv{"uuid", s.x.UUIDv4()}), tail...)
	r := &rec{typ: typ, b: o, at: a.c.t.clock, sidechain: a.parent != ""}
	*a.out = append(*a.out, r)
	return r
}

// event appends a stream_event line holding ev.
func (a *agent) event(ev obj) *rec { return a.emit(TypeStreamEvent, obj{{"event", ev}}, nil) }

// respond streams one response of blocks and returns its tool calls:
// message_start with the first snapshot, each block's events and its
// assistant line (carrying the snapshot), message_delta with the final
// usage.
func (a *agent) respond(blocks []block) []*call {
	c, x, t := a.c, a.c.s.x, a.c.t
	t.tick(x.Millis(1200, 6500))
	u := a.ctx.request(x, t.clock)
	var real int64
	for _, b := range blocks {
		real += b.out
	}
	id := x.msgID()
	snap, final := u, u
	snap.out = int64(x.Between(1, 3))
	final.out = max(real, snap.out+1)
	start := a.event(obj{{"type", "message_start"}, {"message", a.message(id, []obj{}, snap)}})
	start.ev = &streamUsage{start: true, stream: a.parent, msgID: id, model: a.model, u: snap}
	var calls []*call
	for i, b := range blocks {
		a.streamBlock(i, b)
		t.tick(time.Duration(b.out) * time.Duration(x.Between(9, 16)) * time.Millisecond)
		r := a.emit(TypeAssistant, obj{{"message", a.message(id, []obj{blockObj(b)}, snap)}}, nil)
		r.a = &asst{msgID: id, model: a.model, toolUse: b.kind == blockToolUse, text: b.kind == blockText, u: snap}
		if b.call != nil {
			r.a.toolIDs, b.call.src = []string{b.call.id}, r
			calls = append(calls, b.call)
		}
		a.event(obj{{"type", "content_block_stop"}, {"index", i}})
	}
	stop := "end_turn"
	if len(calls) > 0 {
		stop = "tool_use"
	}
	delta := a.event(obj{{"type", "message_delta"}, {"delta", obj{{"stop_reason", stop}, {"stop_sequence", nil}}},
		{"usage", obj{{"input_tokens", final.in}, {"cache_creation_input_tokens", final.cw}, {"cache_read_input_tokens", final.cr}, {"output_tokens", final.out}}},
		{"context_management", obj{{"applied_edits", []obj{}}}}})
	written := final
	written.cw1h = 0
	delta.ev = &streamUsage{stream: a.parent, u: written, no1h: true}
	a.event(obj{{"type", "message_stop"}})
	a.ctx.add(real)
	c.use(a.model, final)
	return calls
}

// message is an assistant message of response id as the stream writes
// it: content so far and the message_start's usage snapshot.
func (a *agent) message(id string, content []obj, u usage) obj {
	return obj{{"model", a.model}, {"id", id}, {"type", "message"}, {"role", "assistant"}, {"content", content},
		{"stop_reason", nil}, {"stop_sequence", nil},
		{"usage", obj{{"input_tokens", u.in}, {"cache_creation_input_tokens", u.cw}, {"cache_read_input_tokens", u.cr},
			{"cache_creation", obj{{"ephemeral_5m_input_tokens", u.cw - u.cw1h}, {"ephemeral_1h_input_tokens", u.cw1h}}},
			{"output_tokens", u.out}, {"service_tier", "standard"}, {"inference_geo", "not_available"}}},
		{"context_management", nil}}
}

// streamBlock writes block i's content_block_start and deltas (its text,
// thinking or input JSON in a few pieces).
func (a *agent) streamBlock(i int, b block) {
	x := a.c.s.x
	var empty obj
	var kind, field, text string
	switch b.kind {
	case blockThinking:
		empty, kind, field, text = obj{{"type", blockThinking}, {"thinking", ""}, {"signature", ""}}, "thinking_delta", "thinking", b.text
	case blockToolUse:
		input, _ := sample.Marshal(b.call.input)
		empty, kind, field, text = obj{{"type", blockToolUse}, {"id", b.call.id}, {"name", b.call.name}, {"input", obj{}}}, "input_json_delta", "partial_json", string(input)
	default:
		empty, kind, field, text = obj{{"type", blockText}, {"text", ""}}, "text_delta", "text", b.text
	}
	a.event(obj{{"type", "content_block_start"}, {"index", i}, {"content_block", empty}})
	for _, p := range pieces(x, text) {
		a.event(obj{{"type", "content_block_delta"}, {"index", i}, {"delta", obj{{"type", kind}, {field, p}}}})
	}
	if b.kind == blockThinking {
		a.event(obj{{"type", "content_block_delta"}, {"index", i}, {"delta", obj{{"type", "signature_delta"}, {"signature", b.sig}}}})
	}
}

// pieces cuts s into one to four consecutive parts, at byte boundaries
// that keep UTF-8 whole.
func pieces(x *rng, s string) []string {
	n := min(x.Between(1, 4), max(1, len(s)/8))
	var out []string
	for k := n; k > 1; k-- {
		cut := len(s) / k
		for cut > 0 && cut < len(s) && s[cut]&0xc0 == 0x80 {
			cut--
		}
		if cut == 0 {
			break
		}
		out, s = append(out, s[:cut]), s[cut:]
	}
	return append(out, s)
}

// result appends the user line answering cl.
func (a *agent) result(cl *call) *rec {
	a.c.t.tick(cl.dur)
	blk := obj{{"tool_use_id", cl.id}, {"type", "tool_result"}, {"content", cl.content}, {"is_error", cl.isError}}
	r := a.emit(TypeUser, obj{{"message", obj{{"role", "user"}, {"content", []obj{blk}}}}}, obj{{"tool_use_result", cl.tur}})
	r.user, r.results = userToolResult, []string{cl.id}
	a.ctx.add(cl.tokens)
	return r
}

// step is one response making calls, then their results.
func (a *agent) step(about string, calls []*call) {
	blocks := a.c.t.lead(about, 0.45, 0.5)
	for _, cl := range calls {
		blocks = append(blocks, cl.use())
	}
	for _, cl := range a.respond(blocks) {
		a.result(cl)
	}
}

// final is the agent's answer: a text block.
func (a *agent) final(text string) {
	a.respond([]block{{kind: blockText, text: text, out: int64(len(text)/4 + a.c.s.x.Between(20, 300))}})
}

// delegate starts n subagents in parallel (Task calls): their lines,
// each with its call's id as parent_tool_use_id, interleave as they
// stream at the same time; then the main agent receives their reports.
func (a *agent) delegate(tk task, n int) {
	s, x := a.c.s, a.c.s.x
	types := []string{"Explore", "general-purpose"}
	blocks := []block{{kind: blockText, text: fmt.Sprintf("I'll use %d agent(s) to explore this in parallel.", n), out: int64(x.Between(15, 40))}}
	var calls []*call
	var typs []string
	for j := range n {
		typ := types[(j+x.Intn(2))%2]
		prompt := s.th.explore[(j+s.i)%len(s.th.explore)]
		cl := s.newCall("Task", obj{{"description", fmt.Sprintf("Explore %s (%d)", tk.pattern, j+1)}, {"prompt", prompt}, {"subagent_type", typ}})
		cl.out = int64(x.Between(80, 260))
		calls, typs = append(calls, cl), append(typs, typ)
		blocks = append(blocks, cl.use())
	}
	a.respond(blocks)
	streams := make([][]*rec, n)
	for j, cl := range calls {
		sub := &agent{c: a.c, parent: cl.id, model: s.subModel(typs[j]), ctx: newTokenCtx(x, int64(x.Between(5000, 11000)), s.mode), out: &streams[j]}
		sub.run(cl, tk)
	}
	*a.out = append(*a.out, interleave(x, streams)...)
	if n > 1 && x.Chance(0.5) {
		calls[0], calls[n-1] = calls[n-1], calls[0]
	}
	for _, cl := range calls {
		a.result(cl)
	}
}

// run is a subagent's work for its Task call cl: the prompt, one or two
// steps, the report, which becomes cl's result.
func (a *agent) run(cl *call, tk task) {
	s, x := a.c.s, a.c.s.x
	prompt := cl.input[1].V.(string)
	r := a.emit(TypeUser, obj{{"message", obj{{"role", "user"}, {"content", []obj{{{"type", "text"}, {"text", prompt}}}}}}}, nil)
	r.user = userPrompt
	a.ctx.add(int64(len(prompt)/4 + x.Between(10, 60)))
	a.step(tk.pattern, []*call{s.grep(tk.pattern)})
	tools := 1
	if x.Chance(0.5) {
		a.step(tk.file, []*call{s.read(tk.file, tk)})
		tools++
	}
	report := fill(pick(x, reports), x.Between(2, 6), tk.file, s.th.files[0])
	a.final(report)
	cl.content = []obj{{{"type", "text"}, {"text", report}}}
	cl.tur = obj{{"status", "completed"}, {"prompt", prompt}, {"content", cl.content},
		{"totalDurationMs", x.Between(8000, 60000)}, {"totalToolUseCount", tools}}
	cl.tokens = int64(len(report)/4 + x.Between(30, 120))
	cl.dur = 0
}

// interleave merges the streams' lines as they arrive at the same time:
// each stream's lines in their order, the streams mixed at random.
func interleave(x *rng, streams [][]*rec) []*rec {
	var out []*rec
	at := make([]int, len(streams))
	for {
		var open []int
		for i, st := range streams {
			if at[i] < len(st) {
				open = append(open, i)
			}
		}
		if len(open) == 0 {
			return out
		}
		i := open[x.Intn(len(open))]
		n := min(x.Between(1, 6), len(streams[i])-at[i])
		out = append(out, streams[i][at[i]:at[i]+n]...)
		at[i] += n
	}
}

// use adds a response's final usage to the run's usage of model.
func (c *capture) use(model string, u usage) {
	c.turns++
	for i := range c.used {
		if c.used[i].model == model {
			m := &c.used[i].u
			m.in, m.out, m.cw, m.cr, m.cw1h = m.in+u.in, m.out+u.out, m.cw+u.cw, m.cr+u.cr, m.cw1h+u.cw1h
			return
		}
	}
	c.used = append(c.used, modelReport{model: model, u: u})
}

// finish writes the result line: the run's usage as the lines show it
// (usage), per model with the helper calls no line shows (modelUsage),
// and the cost of it all at list prices.
func (c *capture) finish(answer string) *rec {
	x := c.s.x
	var lines usage
	for _, m := range c.used {
		u := m.u
		lines.in, lines.out, lines.cw, lines.cr, lines.cw1h = lines.in+u.in, lines.out+u.out, lines.cw+u.cw, lines.cr+u.cr, lines.cw1h+u.cw1h
	}
	turns := c.turns
	c.use(HelperModel, usage{in: int64(x.Between(1500, 4000)), out: int64(x.Between(40, 200))})
	rep := &runReport{models: c.used, cw1h: lines.cw1h, subtype: "success"}
	per := obj{}
	var total float64
	for _, m := range c.used {
		usd := cost(m.model, m.u)
		total += usd
		per = append(per, kv{m.model, obj{{"inputTokens", m.u.in}, {"outputTokens", m.u.out}, {"cacheReadInputTokens", m.u.cr},
			{"cacheCreationInputTokens", m.u.cw}, {"webSearchRequests", 0}, {"costUSD", usd}, {"contextWindow", 200000}, {"maxOutputTokens", 32000}}})
	}
	c.t.tick(x.Millis(50, 400))
	dur := c.t.clock.Sub(c.s.main.recs[0].at).Milliseconds()
	o := obj{{"type", TypeResult}, {"subtype", rep.subtype}, {"is_error", false}, {"duration_ms", dur},
		{"duration_api_ms", dur * int64(x.Between(80, 110)) / 100}, {"num_turns", turns}, {"result", answer}, {"stop_reason", nil},
		{"session_id", c.s.id}, {"total_cost_usd", total},
		{"usage", obj{{"input_tokens", lines.in}, {"cache_creation_input_tokens", lines.cw}, {"cache_read_input_tokens", lines.cr},
			{"output_tokens", lines.out}, {"server_tool_use", obj{{"web_search_requests", 0}, {"web_fetch_requests", 0}}},
			{"service_tier", "standard"}, {"cache_creation", obj{{"ephemeral_1h_input_tokens", lines.cw1h}, {"ephemeral_5m_input_tokens", lines.cw - lines.cw1h}}}}},
		{"modelUsage", per}, {"permission_denials", []obj{}}, {"uuid", x.UUIDv4()}}
	r := &rec{typ: TypeResult, b: o, at: c.t.clock, res: rep}
	c.t.recs = append(c.t.recs, r)
	return r
}

// headless (a clean session, now and then) is a captured headless run
// on the session's first task: a search, maybe subagents, a read, maybe
// an edit and the tests, the answer, the result.
func (s *session) headless() {
	c, main := s.newCapture()
	x := s.x
	tk := s.task(0)
	main.step(tk.pattern, []*call{s.grep(tk.pattern)})
	if x.Chance(0.5) {
		main.delegate(tk, x.Between(1, 2))
	}
	main.step(tk.file, []*call{s.read(tk.file, tk)})
	if x.Chance(0.5) {
		main.step(tk.file, []*call{s.edit(tk.file, tk.old, tk.fix)})
		main.step("the tests", []*call{s.bash(s.th.test, "Run the tests", s.th.pass, false)})
	}
	main.final(tk.done)
	s.turns++
	c.finish(tk.done)
}

// capturedLost (session 5) is a captured headless run whose two
// subagents stream at the same time, and whose capture lost the line of
// a tool_use block (its result: tool_result_without_call); its result
// reports the helper model.
func (s *session) capturedLost() {
	c, main := s.newCapture()
	tk := s.task(0)
	main.delegate(tk, 2)
	at := len(s.main.recs)
	read := s.read(tk.file, tk)
	main.step(tk.file, []*call{read})
	for _, r := range s.main.recs[at:] {
		if r.a != nil && r.a.toolUse {
			r.lost = true // the runner dropped it: its result answers a call never seen
			break
		}
	}
	main.final(tk.done)
	s.turns++
	c.finish(tk.done)
}

// capturedCut (session 6) is a captured headless run cut while its
// result line was being written (the partial tail): the run's report,
// and the helper's usage in it, never reach the file.
func (s *session) capturedCut() {
	c, main := s.newCapture()
	tk := s.task(0)
	main.step(tk.pattern, []*call{s.grep(tk.pattern)})
	main.step(tk.file, []*call{s.read(tk.file, tk)})
	main.final(tk.done)
	s.turns++
	c.finish(tk.done).crash = true
}
