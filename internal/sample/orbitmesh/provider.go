package orbitmesh

import (
	"fmt"
	"strings"
)

// HelperModel is the model of the Task subagents a Claude session's
// responses call: their own responses stream under it.
const HelperModel = "claude-haiku-4-5-20251001"

// DefaultClaudeModel is the model of a Claude provider's session when the
// configured models name no Claude model.
const DefaultClaudeModel = "claude-sonnet-4-5-20250929"

// claudeTools are the tools a Claude session's responses call.
var claudeTools = []string{"Bash", "Read", "Grep", "Glob", "Edit", "Task"}

// response is the Claude response being streamed.
type response struct {
	id, model string
	start     usage
}

// claudeInit appends the CLI's system init event, naming the model.
func (s *rsession) claudeInit() {
	s.tick(s.x.Millis(1, 8))
	r := s.add(ProjectionRaw, KindSystem, "system_init", map[string]any{"type": "system", "subtype": "init",
		"cwd": s.th.dir(), "session_id": s.cliSession, "tools": claudeTools, "model": s.model,
		"permissionMode": "default", "claude_code_version": "2.1.44"})
	r.model = s.model
}

// claudeTurn streams one response of the session's model: text, then a
// tool call and its result unless last.
func (s *rsession) claudeTurn(last bool) {
	s.claudeStart(s.model)
	c := s.newClaudeCall()
	s.deltas(c.plan)
	s.snapshot(s.model, nil)
	s.blockStop(0)
	if last {
		s.claudeFinish(false)
		return
	}
	s.toolStart(1, c.name)
	s.snapshot(s.model, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input})
	s.blockStop(1)
	s.claudeFinish(true)
	if c.name == "Task" {
		s.subagent()
	}
	s.tick(s.x.Millis(50, 8000))
	s.add(ProjectionRaw, KindSystem, "tool_result", map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"tool_use_id": c.id, "type": "tool_result", "content": c.output}}}})
}

// subagent streams a Task subagent's response under the helper model.
func (s *rsession) subagent() {
	s.claudeStart(s.helper)
	s.deltas(s.th.words(s.x, "Found 3 call sites of load{Noun} in {pkg}."))
	s.claudeFinish(false)
}

// claudeStart appends a response's message_start: its model, id and
// initial usage.
func (s *rsession) claudeStart(model string) {
	s.tick(s.x.Millis(300, 3000))
	u := usage{in: int64(s.x.Between(2, 12)), out: int64(s.x.Between(1, 4)),
		cacheRead: int64(s.x.Between(12000, 60000)), cacheWrite: int64(s.x.Between(200, 6000)), split: s.x.Chance(0.8)}
	if u.split && s.x.Chance(0.7) {
		u.write1h = u.cacheWrite
	}
	if model == s.helper {
		u.cacheRead, u.cacheWrite, u.write1h, u.split = 0, 0, 0, false
		u.in = int64(s.x.Between(800, 4000))
	}
	s.streaming = response{id: "msg_01" + s.x.Chars(22, base62Alphabet), model: model, start: u}
	r := s.add(ProjectionRaw, KindMetric, fmt.Sprintf("in=%d out=%d requests=1", u.in, u.out), map[string]any{
		"type": "message_start", "message": map[string]any{"model": model, "id": s.streaming.id, "type": "message",
			"role": "assistant", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": u.raw()}})
	r.model, r.usage, r.start, r.resp = model, &u, true, s.streaming.id
}

// claudeFinish appends the response's message_delta (its final usage:
// the same prompt, more output) and message_stop.
func (s *rsession) claudeFinish(tool bool) {
	st := s.streaming
	u := usage{in: st.start.in, out: st.start.out + int64(s.x.Between(30, 900)), cacheRead: st.start.cacheRead, cacheWrite: st.start.cacheWrite}
	reason := "end_turn"
	if tool {
		reason = "tool_use"
	}
	s.tick(s.x.Millis(20, 400))
	r := s.add(ProjectionRaw, KindMetric, fmt.Sprintf("in=%d out=%d requests=0", u.in, u.out), map[string]any{
		"type": "message_delta", "delta": map[string]any{"stop_reason": reason, "stop_sequence": nil}, "usage": u.raw()})
	r.usage = &u
	s.tick(s.x.Millis(1, 10))
	s.add(ProjectionRaw, KindSystem, "message_complete", map[string]any{"type": "message_stop"})
}

// raw is the usage object as the Claude API writes it.
func (u *usage) raw() map[string]any {
	m := map[string]any{"input_tokens": u.in, "cache_creation_input_tokens": u.cacheWrite,
		"cache_read_input_tokens": u.cacheRead, "output_tokens": u.out}
	if u.split {
		m["cache_creation"] = map[string]any{"ephemeral_5m_input_tokens": u.cacheWrite - u.write1h, "ephemeral_1h_input_tokens": u.write1h}
		m["service_tier"] = "standard"
	}
	return m
}

// deltas streams text as two to six output deltas.
func (s *rsession) deltas(text string) {
	words := strings.SplitAfter(text, " ")
	n := min(len(words), s.x.Between(2, 6))
	for i := range n {
		part := strings.Join(words[i*len(words)/n:(i+1)*len(words)/n], "")
		s.tick(s.x.Millis(4, 30))
		s.add(ProjectionOutputDelta, KindOutput, part, textDelta(part))
	}
}

// textDelta is a content_block_delta event carrying text.
func textDelta(text string) map[string]any {
	return map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}}
}

// snapshot appends the CLI's assistant snapshot of the response so far:
// its model and usage (never counted), a text or a tool_use block.
func (s *rsession) snapshot(model string, block map[string]any) {
	st := s.streaming
	if block == nil {
		block = map[string]any{"type": "text", "text": "…"}
	}
	s.tick(s.x.Millis(1, 15))
	r := s.add(ProjectionRaw, KindSystem, "assistant_snapshot", map[string]any{"type": "assistant", "message": map[string]any{
		"model": model, "id": st.id, "type": "message", "role": "assistant", "content": []any{block},
		"stop_reason": nil, "usage": st.start.raw()}, "parent_tool_use_id": nil, "session_id": s.cliSession})
	r.model = model
}

// blockStop appends a content_block_stop event.
func (s *rsession) blockStop(i int) {
	s.tick(s.x.Millis(1, 10))
	s.add(ProjectionRaw, KindSystem, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}

// toolStart appends the start of a tool_use content block.
func (s *rsession) toolStart(i int, name string) {
	s.tick(s.x.Millis(2, 30))
	s.add(ProjectionRaw, KindSystem, "tool_use_start", map[string]any{"type": "content_block_start", "index": i,
		"content_block": map[string]any{"type": "tool_use", "id": "toolu_01" + s.x.Chars(22, base62Alphabet), "name": name, "input": map[string]any{}}})
}

// claudeCall is a tool call of a Claude response.
type claudeCall struct {
	id, name, plan, output string
	input                  map[string]any
}

func (s *rsession) newClaudeCall() claudeCall {
	x, th := s.x, s.th
	c := claudeCall{id: "toolu_01" + x.Chars(22, base62Alphabet), name: pick(x, claudeTools)}
	file := th.file(x)
	switch c.name {
	case "Bash":
		c.input, c.output = map[string]any{"command": th.testCommand()}, fmt.Sprintf("ok  \t%s\t0.%03ds", th.pkg, x.Intn(1000))
		c.plan = "Running the tests."
	case "Read":
		c.input, c.output = map[string]any{"file_path": th.dir() + "/" + file}, th.source(file)
		c.plan = "Let me read " + file + "."
	case "Grep", "Glob":
		c.input, c.output = map[string]any{"pattern": th.noun}, th.grepOutput(x, th.noun)
		c.plan = "Searching " + th.pkg + " for " + th.noun + "."
	case "Edit":
		c.input, c.output = map[string]any{"file_path": th.dir() + "/" + file}, "The file "+file+" has been updated."
		c.plan = "Applying the change to " + file + "."
	default:
		c.input = map[string]any{"description": "Find call sites", "subagent_type": "Explore"}
		c.output, c.plan = "3 call sites found.", "Let me have a subagent find the call sites."
	}
	return c
}

// acpCommands appends an ACP agent's available_commands update.
func (s *rsession) acpCommands() {
	s.tick(s.x.Millis(2, 12))
	s.add(ProjectionRaw, KindSystem, "available_commands", map[string]any{"sessionUpdate": "available_commands_update",
		"availableCommands": []any{map[string]any{"name": "init", "description": "create AGENTS.md"}}})
}

// acpTurn appends one ACP turn: a thought, maybe a plan, output, a tool
// call and its completion; the last turn reports the agent's usage (no
// model: not counted).
func (s *rsession) acpTurn(last bool) {
	x, th := s.x, s.th
	thought := th.words(x, "The {noun} handling lives in {file}; a small change there fits.")
	s.tick(x.Millis(200, 3000))
	s.add(ProjectionRaw, KindThought, thought, map[string]any{"content": map[string]any{"type": "text", "text": thought}})
	if x.Chance(0.5) {
		s.tick(x.Millis(2, 40))
		s.add(ProjectionRaw, KindPlan, "{[{Read the code high completed} {Make the change high in_progress}]}", map[string]any{"entries": []any{
			map[string]any{"content": "Read the code", "priority": "high", "status": "completed"},
			map[string]any{"content": "Make the change", "priority": "high", "status": "in_progress"}}})
	}
	for _, part := range []string{"I'll make the change", " and run the tests."} {
		s.tick(x.Millis(4, 30))
		s.add(ProjectionOutputDelta, KindOutput, part, map[string]any{"content": map[string]any{"type": "text", "text": part}})
	}
	call := "call_" + x.Chars(6, base32Alphabet)
	s.tick(x.Millis(5, 40))
	s.add(ProjectionRaw, KindToolUse, ": ", map[string]any{"toolCallId": call, "title": th.testCommand(), "kind": "execute", "status": "in_progress"})
	s.tick(x.Millis(100, 9000))
	s.add(ProjectionRaw, KindToolUse, "tool call update: "+call, map[string]any{"toolCallId": call, "status": "completed",
		"content": []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": "ok  \t" + th.pkg}}}})
	if last {
		in, out := x.Between(4000, 40000), x.Between(100, 2000)
		s.tick(x.Millis(1, 10))
		s.add(ProjectionRaw, KindMetric, fmt.Sprintf("in=%d out=%d requests=%d", in, out, x.Between(1, 4)),
			map[string]any{"usage": map[string]any{"inputTokens": in, "outputTokens": out}})
	}
}
