package cortex

import (
	"fmt"
	"unicode/utf8"

	"github.com/journalship/journalship/internal/sample"
)

// Limits from the v1 schema.
const (
	maxInputSummary  = 1024
	maxResultSummary = 4096
	maxTokensParam   = 8192
)

// step appends one agent step. It reports true when the session cannot go
// on (the pod crashed or a tool failed for good).
func (b *sessBuilder) step(sp stepPlan) bool {
	js, x := b.js, b.js.x
	idx := js.step
	b.lastStep = idx
	req := &evLLMRequest{Model: sp.model, StepIndex: idx, MessageCount: js.messages, MaxTokens: maxTokensParam,
		PromptHash: sample.SHA256Hex(js.id, b.sid, fmt.Sprint(idx), sp.model, fmt.Sprint(js.ctx))}
	b.add(TypeLLMRequest, req, &req.header, x.Between64(2, 15)).model = sp.model

	calls := b.calls(sp)
	b.response(sp, idx, len(calls))
	added, msgs := b.recs[len(b.recs)-1].completion+30, 1
	if !sp.approval {
		for i, c := range calls {
			if stop := b.tool(sp, i, c); stop {
				return true
			}
			added += tokensOf(c.input) + tokensOf(c.result)
			msgs++
		}
	}
	if sp.failLast {
		b.fatal(idx, calls[len(calls)-1])
		return true
	}
	if sp.approval && len(calls) > 0 {
		js.pending = calls[0].input
	}
	b.checkpoint(idx, added, msgs, sp.compact)
	return false
}

// response appends LLM_RESPONSE with realistic token counts and latency.
func (b *sessBuilder) response(sp stepPlan, idx, tools int) {
	js, x := b.js, b.js.x
	finish, comp := "end_turn", x.Between64(150, 2500)
	switch {
	case sp.badFinish:
		finish, comp = "content_filter", x.Between64(5, 60)
	case tools > 0:
		finish, comp = "tool_use", x.Between64(60, 600)+int64(80*(tools-1))
	case sp.finish == "max_tokens":
		finish, comp = "max_tokens", maxTokensParam
	}
	prompt := js.ctx + x.Between64(20, 400)
	dur := 300 + comp*x.Between64(8, 25) + prompt/1000*x.Between64(10, 40)
	resp := &evLLMResponse{StepIndex: idx, PromptTokens: prompt, CompletionTokens: comp,
		FinishReason: finish, ToolUseCount: tools, DurationMs: dur}
	r := b.add(TypeLLMResponse, resp, &resp.header, dur)
	r.model, r.prompt, r.completion = sp.model, prompt, comp
	r.invalid, r.torn = sp.badFinish, sp.tornResp
}

// calls generates the tool calls the LLM asks for in this step.
func (b *sessBuilder) calls(sp stepPlan) []toolCall {
	js, x := b.js, b.js.x
	out := make([]toolCall, 0, sp.tools)
	for i := range sp.tools {
		def := randomTool(x)
		if i == 0 && sp.firstTool != "" {
			def = toolByName(sp.firstTool)
		}
		fail := sp.failLast && i == sp.tools-1
		if !fail && !sp.crash && def.name != approvalTool {
			fail = x.Chance(0.06)
		}
		target := 0
		if i == 0 && sp.longResult {
			target = b.g.limit * 2
		}
		c := makeCall(def, js.th, x, fail, target, b.g.limit)
		if i == 0 && sp.longSummary {
			c.input = longWriteInput(js.th, x)
		}
		if def.name == approvalTool && js.pending != "" && !sp.approval {
			c.input, js.pending = js.pending, ""
		}
		out = append(out, c)
	}
	return out
}

// longWriteInput returns a write_file input well over maxInputSummary.
func longWriteInput(th theme, x *rng) string {
	content := fill(x.Between(1300, 2600), 1<<20, func() string { return th.codeLine(x) })
	return objJSON(kv{"path", th.path(x, false)}, kv{"content", content})
}

// tool appends TOOL_START and TOOL_RESULT for call i. It reports true when
// the pod crashed while writing the result.
func (b *sessBuilder) tool(sp stepPlan, i int, c toolCall) bool {
	x := b.js.x
	summary := truncRunes(c.input, maxInputSummary, "…")
	hash := sample.SHA256Hex(c.input)
	first := i == 0
	if first && sp.longSummary {
		summary = c.input
	}
	if first && sp.badHash {
		hash = "sha256:" + hash
	}
	inv := x.uuidV7(b.t)
	st := &evToolStart{InvocationID: inv, ToolName: c.name, InputHash: hash, InputSummary: summary, IsSideEffect: c.sideEffect}
	r := b.add(TypeToolStart, st, &st.header, x.Between64(1, 6))
	r.invalid = first && (sp.badHash || utf8.RuneCountInString(summary) > maxInputSummary)
	r.drop = first && sp.dropPair

	res := &evToolResult{InvocationID: inv, ToolName: c.name, Success: c.errCode == nil, DurationMs: c.durMs,
		ResultSummary: c.result, ErrorCode: c.errCode}
	r = b.add(TypeToolResult, res, &res.header, c.durMs)
	r.drop = first && sp.dropPair
	if first && sp.crash {
		r.crash = true
		return true
	}
	if first && sp.staleError {
		b.staleError(inv)
	}
	return false
}

// staleError appends an ERROR whose seq a late watchdog callback captured
// three events earlier: a seq regression.
func (b *sessBuilder) staleError(inv string) {
	x := b.js.x
	e := &evError{StepIndex: b.lastStep, ErrorCode: "TOOL_WATCHDOG_LATE",
		Message: fmt.Sprintf("watchdog fired after invocation %s had completed; soft timeout %dms", inv, 30000)}
	b.add(TypeError, e, &e.header, x.Between64(1, 40)).stale = 3
}

// fatal appends the ERROR that fails the session.
func (b *sessBuilder) fatal(idx int, c toolCall) {
	x := b.js.x
	code := "TOOL_FAILED"
	if c.errCode != nil {
		code = "TOOL_FAILED_" + *c.errCode
	}
	stack := fmt.Sprintf("Error: tool %s failed after 3 attempts\n    at ToolExecutor.run (/app/dist/agent/tools/executor.js:%d:19)\n"+
		"    at async StepRunner.executeTools (/app/dist/agent/step-runner.js:%d:7)\n    at async runAgent (/app/dist/worker/tasks/run-agent.js:%d:5)",
		c.name, x.Between(40, 400), x.Between(40, 400), x.Between(40, 200))
	e := &evError{StepIndex: idx, ErrorCode: code, StackTrace: &stack,
		Message: fmt.Sprintf("step %d failed: tool %s returned a non-retryable error", idx, c.name)}
	b.add(TypeError, e, &e.header, x.Between64(1, 20))
}

// checkpoint appends CHECKPOINT_WRITTEN and moves the job's checkpoint; a
// compaction then shrinks the context (MEMORY_COMPACTED, unknown to v1).
func (b *sessBuilder) checkpoint(idx int, added int64, msgs int, compact bool) {
	js, x := b.js, b.js.x
	js.ctx += added
	js.messages += msgs
	b.t = b.t.Add(millis(x.Between64(2, 30))) // flush + PostgreSQL UPDATE
	id := x.uuidV7(b.t)
	ck := &evCheckpointWritten{CheckpointID: id, StepIndex: idx, CheckpointSizeBytes: 2048 + js.ctx*3 + x.Between64(0, 900)}
	b.add(TypeCheckpointWritten, ck, &ck.header, 1)
	step := idx
	js.ckptID, js.ckptStep = &id, &step
	js.step = idx + 1
	if compact {
		before := js.ctx
		js.ctx = before * int64(x.Between(25, 40)) / 100
		js.messages = 3
		mc := &evMemoryCompacted{StepIndex: idx, TokensBefore: before, TokensAfter: js.ctx, Strategy: "summarize_oldest_turns"}
		b.add(TypeMemoryCompacted, mc, &mc.header, x.Between64(800, 4000)).unknown = true
	}
}

// tokensOf estimates the tokens of s (about four bytes a token).
func tokensOf(s string) int64 { return int64(len(s))/4 + 4 }
