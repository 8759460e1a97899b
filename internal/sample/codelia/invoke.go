package codelia

import (
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// The model invocations of a run: llm.request, llm.response, and the tool
// calls the response asks for (agent.event tool_call, tool.output).

// request appends an llm.request of seq carrying the conversation so far.
func (r *run) request(seq int64) *rec {
	r.wait(30, 400)
	input := obj{{"messages", append([]obj(nil), r.messages...)}, {"tools", toolDefs}, {"tool_choice", "auto"}, {"model", r.model}}
	rc := r.add(typeLLMRequest, seq, obj{{"model", r.modelRef()}, {"input", input}})
	rc.model = r.model
	r.reqSeq = seq
	return rc
}

// response appends the llm.response to seq: the assistant's message, its
// stop reason and the usage of output tokens.
func (r *run) response(seq int64, msg obj, stop string, output int64) *rec {
	r.clock = r.clock.Add(min(ms(600)+time.Duration(output)*ms(r.x.Between(8, 22)), 25*time.Second))
	u := r.prov.newUsage(r.x, r.model, r.prompt, r.prev, output)
	out := obj{{"messages", []obj{msg}}, {"usage", u}, {"stop_reason", stop}, {"provider_meta", obj{{"response_id", r.responseID()}}}}
	rc := r.add(typeLLMResponse, seq, obj{{"output", out}})
	rc.usage, rc.model = u, u.model
	r.prev = r.prompt
	return rc
}

// invoke appends the next invocation, of a step that calls tools:
// request and response. The calls' ids are in the response's message.
func (r *run) invoke(st step) (req, resp *rec, ids []string) {
	return r.invokeSeq(st, r.reqSeq+1)
}

// invokeSeq is invoke with the request's seq given.
func (r *run) invokeSeq(st step, seq int64) (req, resp *rec, ids []string) {
	req = r.request(seq)
	var calls []obj
	for _, c := range st.calls {
		id := r.toolCallID()
		ids = append(ids, id)
		args, _ := sample.Marshal(c.args)
		calls = append(calls, obj{{"id", id}, {"type", "function"}, {"function", obj{{"name", c.tool}, {"arguments", string(args)}}}})
	}
	var content any
	if st.text != "" {
		content = st.text
	}
	msg := obj{{"role", "assistant"}, {"content", content}, {"tool_calls", calls}}
	resp = r.response(seq, msg, "tool_use", tokensOf(msg)+r.x.Between64(8, 90))
	r.remember(msg)
	return req, resp, ids
}

// tools appends what the runtime writes while running a step's calls: the
// assistant's text, then per call agent.event tool_call and tool.output.
func (r *run) tools(st step, ids []string) {
	if st.text != "" {
		r.event(obj{{"type", "text"}, {"content", st.text}})
	}
	for i, c := range st.calls {
		r.toolCall(c, ids[i])
		r.toolOutput(c, ids[i])
	}
}

// toolCall appends the agent.event of a tool call.
func (r *run) toolCall(c call, id string) *rec {
	return r.event(obj{{"type", "tool_call"}, {"tool", c.tool}, {"args", c.args}, {"tool_call_id", id}})
}

// toolOutput appends the tool's output and adds it to the conversation.
func (r *run) toolOutput(c call, id string) *rec {
	if cmd, _ := c.args.Get("command").(string); strings.Contains(cmd, "test") {
		r.wait(900, 9000)
	} else {
		r.wait(4, 150)
	}
	fields := obj{{"tool", c.tool}, {"tool_call_id", id}, {"result_raw", c.result}}
	if r.v2 { // version 2: a result object instead of result_raw
		fields[2] = kv{"result", obj{{"text", c.result}, {"truncated", false}}}
	}
	if c.isError {
		fields = append(fields, kv{"is_error", true})
	}
	fields = append(fields, kv{"output_ref", obj{{"id", id}, {"byte_size", len(c.result)}, {"line_count", strings.Count(c.result, "\n")}}})
	rc := r.add(typeToolOutput, -1, fields)
	rc.invalid = r.v2 // result_raw is required in version 1
	r.remember(obj{{"role", "tool"}, {"tool_call_id", id}, {"content", c.result}})
	return rc
}

// answer appends the last invocation, whose response is the final answer
// without tool calls.
func (r *run) answer(text string) (req, resp *rec) {
	seq := r.reqSeq + 1
	req = r.request(seq)
	msg := obj{{"role", "assistant"}, {"content", text}}
	resp = r.response(seq, msg, r.prov.final, tokensOf(msg)+r.x.Between64(20, 160))
	r.remember(msg)
	r.final = text
	return req, resp
}

// finalEvent appends the agent.event of the final answer.
func (r *run) finalEvent(text string) *rec {
	return r.event(obj{{"type", "final"}, {"content", text}})
}

// remember adds a message to the conversation and its tokens to the next
// prompt.
func (r *run) remember(msg obj) {
	r.messages = append(r.messages, msg)
	r.prompt += tokensOf(msg)
}

// toolCallID returns a tool call id in the provider's form.
func (r *run) toolCallID() string {
	if r.prov.name == "anthropic" {
		return "toolu_01" + r.x.Chars(22, alnum)
	}
	return "call_" + r.x.Chars(24, alnum)
}

// responseID returns a provider response id.
func (r *run) responseID() string {
	switch r.prov.name {
	case "anthropic":
		return "msg_01" + r.x.Chars(22, alnum)
	case "openai":
		return "resp_" + r.x.Chars(48, hexLow)
	}
	return r.x.Chars(27, alnum)
}

// tokensOf estimates the tokens of messages: a token per four bytes of
// JSON, and a few per message.
func tokensOf(msgs ...obj) int64 {
	var n int64
	for _, m := range msgs {
		b, _ := sample.Marshal(m)
		n += int64(len(b))/4 + 4
	}
	return n
}
