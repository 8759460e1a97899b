package claudecode

import (
	"strconv"
	"time"
)

// Block kinds of an assistant message.
const (
	blockThinking = "thinking"
	blockText     = "text"
	blockToolUse  = "tool_use"
)

// block is one content block of a response, with the output tokens it
// really took.
type block struct {
	kind string
	text string
	sig  string // a thinking block's signature
	call *call
	out  int64
}

// msgSpec is one assistant line before it is written; faults edit it.
type msgSpec struct {
	id, model, reqID string
	stop             string // "" = null
	u                usage  // output included
	noID, noModel    bool   // message.id / message.model left out (schema-invalid)
	strOut           bool   // output_tokens written as a string (schema-invalid)
}

// respOpts changes how a response is written.
type respOpts struct {
	cut   int                     // write only the first cut blocks (an interruption); 0: all
	outs  func([]int64)           // edits the output_tokens each line writes
	edit  func(i int, m *msgSpec) // edits line i before it is written
	stops bool                    // the last line states its stop_reason (a new CLI, sometimes)
}

// response is one API response as written: one line per block.
type response struct {
	lines        []*rec
	calls        []*call
	msgID, reqID string
	u            usage // input and cache counters
	outs         []int64
}

// respond writes a response to the transcript's prompt: it is sent (the
// cache is read and written), then each block is written as its own
// line when complete, all with the response's message.id and requestId.
func (t *transcript) respond(blocks []block, o respOpts) *response {
	x := t.s.x
	if t.kind == kindMain {
		t.autoCompact()
	}
	t.tick(x.Millis(1200, 6500))
	u := t.ctx.request(x, t.clock)
	var real int64
	for _, b := range blocks {
		real += b.out
	}
	n := len(blocks)
	outs := snapshots(x, n, real, t.old())
	if o.outs != nil {
		o.outs(outs)
	}
	resp := &response{msgID: x.msgID(), reqID: x.reqID(), u: u, outs: outs}
	if o.cut > 0 {
		blocks = blocks[:o.cut]
	}
	var written int64
	for i, b := range blocks {
		if i > 0 {
			t.tick(x.Millis(120, 900))
		}
		t.tick(time.Duration(b.out) * time.Duration(x.Between(9, 16)) * time.Millisecond)
		written += b.out
		m := msgSpec{id: resp.msgID, model: t.model, reqID: resp.reqID, u: u}
		m.u.out = outs[i]
		if i == n-1 && !t.old() && (o.stops || x.Chance(0.35)) {
			switch b.kind {
			case blockToolUse:
				m.stop = "tool_use"
			case blockText:
				m.stop = "end_turn"
			}
		}
		if o.edit != nil {
			o.edit(i, &m)
		}
		r := t.assistant(m, b)
		resp.lines = append(resp.lines, r)
		if b.call != nil {
			b.call.src = r
			resp.calls = append(resp.calls, b.call)
		}
	}
	t.ctx.add(written)
	return resp
}

// assistant writes one assistant line holding block b.
func (t *transcript) assistant(m msgSpec, b block) *rec {
	msg := obj{}
	if !m.noID {
		msg = append(msg, kv{"id", m.id})
	}
	msg = append(msg, kv{"type", "message"}, kv{"role", "assistant"})
	if !m.noModel {
		msg = append(msg, kv{"model", m.model})
	}
	var stop any
	if m.stop != "" {
		stop = m.stop
	}
	msg = append(msg, kv{"content", []obj{blockObj(b)}}, kv{"stop_reason", stop}, kv{"stop_sequence", nil},
		kv{"usage", t.usageObj(m.u, m.strOut)})
	if !t.old() {
		msg = append(msg, kv{"context_management", obj{{"applied_edits", []obj{}}}}) // a field the format does not list
	}
	fields := obj{}
	if m.reqID != "" {
		fields = append(fields, kv{"requestId", m.reqID})
	}
	fields = append(fields, kv{"message", msg})
	r := t.line(TypeAssistant, fields, nil)
	a := &asst{msgID: m.id, reqID: m.reqID, model: m.model, toolUse: b.kind == blockToolUse, text: b.kind == blockText,
		stop: m.stop, u: m.u, badUsage: m.strOut}
	if m.noID {
		a.msgID = ""
	}
	if m.noModel {
		a.model = ""
	}
	if b.call != nil {
		a.toolIDs = []string{b.call.id}
	}
	r.a = a
	r.invalid = m.noID || m.noModel || m.strOut
	return r
}

func blockObj(b block) obj {
	switch b.kind {
	case blockThinking:
		return obj{{"type", blockThinking}, {"thinking", b.text}, {"signature", b.sig}}
	case blockToolUse:
		return obj{{"type", blockToolUse}, {"id", b.call.id}, {"name", b.call.name}, {"input", b.call.input}}
	}
	return obj{{"type", blockText}, {"text", b.text}}
}

// usageObj is message.usage as the transcript's CLI writes it: the 2.0
// line has no cache_creation split, 2.1.97+ adds server_tool_use.
func (t *transcript) usageObj(u usage, strOut bool) obj {
	o := obj{{"input_tokens", u.in}, {"cache_creation_input_tokens", u.cw}, {"cache_read_input_tokens", u.cr}}
	if !t.legacyCLI() {
		o = append(o, kv{"cache_creation", obj{{"ephemeral_5m_input_tokens", u.cw - u.cw1h}, {"ephemeral_1h_input_tokens", u.cw1h}}})
	}
	if strOut {
		o = append(o, kv{"output_tokens", strconv.FormatInt(u.out, 10)})
	} else {
		o = append(o, kv{"output_tokens", u.out})
	}
	o = append(o, kv{"service_tier", "standard"})
	if !t.old() {
		o = append(o, kv{"server_tool_use", obj{{"web_search_requests", 0}, {"web_fetch_requests", 0}}})
	}
	return o
}

// synthetic writes a line Claude Code makes up itself (model
// <synthetic>, no requestId, zero usage): an API error after the
// retries, or "No response requested.".
func (t *transcript) synthetic(text string, apiError bool) *rec {
	zero := obj{{"input_tokens", 0}, {"output_tokens", 0}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0},
		{"server_tool_use", obj{{"web_search_requests", 0}, {"web_fetch_requests", 0}}},
		{"cache_creation", obj{{"ephemeral_1h_input_tokens", 0}, {"ephemeral_5m_input_tokens", 0}}}}
	id := t.s.x.UUIDv4()
	msg := obj{{"id", id}, {"model", SyntheticModel}, {"role", "assistant"}, {"stop_reason", "stop_sequence"},
		{"stop_sequence", ""}, {"type", "message"}, {"usage", zero}, {"content", []obj{{{"type", blockText}, {"text", text}}}}}
	var tail obj
	if apiError {
		tail = obj{{"isApiErrorMessage", true}}
	}
	r := t.line(TypeAssistant, obj{{"message", msg}}, tail)
	r.a = &asst{msgID: id, model: SyntheticModel, synthetic: true, text: true, stop: "stop_sequence"}
	return r
}

// result writes the user line answering c (after its progress lines).
func (t *transcript) result(c *call) *rec {
	x := t.s.x
	for _, p := range c.progress {
		t.tick(x.Millis(300, 2500))
		t.progress(p, c.progressID(p), c.id)
	}
	t.tick(c.dur)
	blk := obj{{"tool_use_id", c.id}, {"type", "tool_result"}, {"content", c.content}, {"is_error", c.isError}}
	fields := obj{{"message", obj{{"role", "user"}, {"content", []obj{blk}}}}}
	tail := obj{{"toolUseResult", c.tur}}
	if !t.legacyCLI() && c.src != nil {
		tail = append(tail, kv{"sourceToolAssistantUUID", c.src.uuid})
	}
	r := t.line(TypeUser, fields, tail)
	r.user, r.results = userToolResult, []string{c.id}
	t.ctx.add(c.tokens)
	return r
}

// progress writes a progress line of a running tool.
func (t *transcript) progress(data obj, toolUseID, parentToolUseID string) *rec {
	return t.line(TypeProgress, obj{{"data", data}, {"toolUseID", toolUseID}, {"parentToolUseID", parentToolUseID}}, nil)
}
