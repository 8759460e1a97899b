package grafana

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/internal/sample/kinds"
)

// What each format's lines are in the format-neutral terms the dashboards
// query (role, end_reason, tool_name, invocation_id, the event_type
// label), written out here from docs/formats/*.md and the tables of
// docs/loki.md and docs/formats.md, never read from the formats' code. Test files may name event types (the
// seam test reads only the product's files).

// cortexRoles: Cortex Plane's eleven types (docs/formats/cortex-plane.md).
var cortexRoles = map[string]string{
	cortex.TypeSessionStart: "session_start", cortex.TypeCheckpointLoaded: "checkpoint",
	cortex.TypeLLMRequest: "llm_request", cortex.TypeLLMResponse: "llm_response",
	cortex.TypeToolStart: "tool_call", cortex.TypeToolResult: "tool_result",
	cortex.TypeCheckpointWritten: "checkpoint", cortex.TypeApprovalRequested: "status",
	cortex.TypeStateTransition: "status", cortex.TypeError: "error", cortex.TypeSessionEnd: "session_end",
}

// codeliaRoles: docs/formats/codelia.md, Roles (agent.event: see roleOf).
var codeliaRoles = map[string]string{
	"header": "session_start", "run.start": "message", "run.context": "other", "agent.event": "other",
	"tool.output": "tool_result", "llm.request": "llm_request", "llm.response": "llm_response",
	"run.status": "status", "run.error": "error", "run.end": "session_end",
}

// orbitmeshRoles: docs/formats/orbitmesh.md, part B, Record kinds.
var orbitmeshRoles = map[string]string{
	"message.user": "message", "message.assistant": "message", "message.tool": "message", "message.system": "message",
	"run.started": "status", "run.waiting": "status", "run.resumed": "status",
	"run.completed": "session_end", "run.failed": "session_end", "run.cancelled": "session_end", "run.interrupted": "session_end",
	"status.derived": "status",
	"token.minted":   "other", "token.consumed": "other", "token.revoked": "other", "token.expired": "other",
}

// orbitmeshRuntimeRoles: docs/formats/orbitmesh.md, part A, event_type
// and role (by event_type: kind error ships as runtime_error); a metric
// with a Claude usage is refined in roleOf.
var orbitmeshRuntimeRoles = map[string]string{
	"user": "message", "output": "message", "thought": "message", "system": "message",
	"tool_use": "tool_call", "runtime_error": "error", "plan": "other", "metric": "other",
}

// claudeRoles: docs/formats/claude-code.md, section 5 (event_type values,
// Roles); user and system lines are refined in roleOf.
var claudeRoles = map[string]string{
	"user": "message", "assistant": "llm_response", "system": "status", "progress": "other", "attachment": "other",
	"summary": "other", "file-history-snapshot": "checkpoint", "queue-operation": "other",
	"custom-title": "other", "ai-title": "other", "agent-name": "other", "last-prompt": "other", "pr-link": "other",
	"permission-mode": "other", "agent-setting": "other", "bridge-session": "other", "worktree-state": "other",
	"result": "session_end", "stream_event": "other",
}

// codexRoles: docs/formats/codex.md, section 5 (Roles), for the event
// types docs/formats.md lists; a token_count is refined in roleOf.
var codexRoles = map[string]string{
	"session_meta": "session_start",
	"turn_context": "status", "task_started": "status", "task_complete": "status", "turn_aborted": "status",
	"thread_rolled_back": "status", "entered_review_mode": "status", "exited_review_mode": "status", "token_count": "status",
	"message":       "message",
	"function_call": "tool_call", "custom_tool_call": "tool_call", "local_shell_call": "tool_call", "web_search_call": "tool_call",
	"tool_search_call": "tool_call", "image_generation_call": "tool_call",
	"function_call_output": "tool_result", "custom_tool_call_output": "tool_result", "tool_search_output": "tool_result",
	"compacted": "checkpoint", "compaction": "checkpoint", "context_compaction": "checkpoint", "context_compacted": "checkpoint",
	"error": "error",
	"state": "other", "reasoning": "other", "ghost_snapshot": "other", "user_message": "other", "agent_message": "other",
	"agent_reasoning": "other", "agent_reasoning_raw_content": "other", "undo_completed": "other", "thread_name_updated": "other",
	"item_completed": "other", "patch_apply_end": "other", "mcp_tool_call_end": "other", "web_search_end": "other",
	"exec_command_end": "other", "image_generation_end": "other", "view_image_tool_call": "other", "thread_goal_updated": "other",
}

// goSessionRoles: docs/formats/go-session.md, section 5 (Roles): a
// message's role, every transcript.jsonl line, and the entries the
// finalizer builds from metadata.json and the checkpoint manifests.
var goSessionRoles = map[string]string{
	"user": "message", "system": "message", "assistant": "llm_response", "tool": "tool_result",
	"transcript": "other", "metadata": "session_end", "checkpoint": "checkpoint",
}

// rolesOf are each format's known types and their roles. Every format
// of kinds.All() needs its table here: rolesMissing names those without.
var rolesOf = map[string]map[string]string{cortexDir: cortexRoles, codeliaDir: codeliaRoles,
	orbitmeshDir: joined(orbitmeshRoles, orbitmeshRuntimeRoles), claudeDir: claudeRoles, codexDir: codexRoles,
	goSessionDir: goSessionRoles}

// rolesMissing lists the formats of kinds.All() that have no table in
// rolesOf, each with the page its table is to be written out from.
func rolesMissing() []string {
	var out []string
	for _, k := range kinds.All() {
		if _, ok := rolesOf[k.Format]; !ok {
			out = append(out, fmt.Sprintf("%s (%s): write out its page's roles (docs/formats/) in roles_test.go's rolesOf", k.Format, k.Title))
		}
	}
	return out
}

// TestEveryFormatHasItsRoles: the world holds every format of
// kinds.All(), and the roles its lines ship are written out here from
// the format's page, never read from its code; a new format's table is
// the one thing to add.
func TestEveryFormatHasItsRoles(t *testing.T) {
	for _, m := range rolesMissing() {
		t.Errorf("no roles table for format %s", m)
	}
}

// joined is the union of maps with disjoint keys.
func joined(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// known tells whether typ is one of the format's types.
func known(format, typ string) bool {
	_, ok := rolesOf[format][typ]
	return ok
}

// roleOf is the role a line ships: none when corrupt, "other" for a type
// the format does not know, and a Codelia agent.event is a tool call when
// its event.type is tool_call; an OrbitMesh metric whose raw is a Claude
// message_start or message_delta with a usage is an LLM response; a Claude Code user line with a tool_result
// block is a tool result, a system line an error (api_error), a
// checkpoint (compact_boundary, microcompact_boundary) or a session start
// (a stream-json init); a Codex token_count that ships usage (the truth
// gives it tokens, a copy counted elsewhere too) is an LLM response.
func roleOf(format string, l sample.Line, fields map[string]any) string {
	switch {
	case l.Corrupt:
		return ""
	case !known(format, l.Type):
		return "other"
	case format == codeliaDir && l.Type == "agent.event" && jsonText(nested(fields, "event", "type")) == "tool_call":
		return "tool_call"
	case format == orbitmeshDir && l.Type == "metric" && claudeUsage(fields):
		return "llm_response"
	case format == codexDir && l.Type == "token_count" && (l.PromptTokens > 0 || l.CompletionTokens > 0):
		return "llm_response"
	case format == claudeDir && l.Type == "user" && slices.ContainsFunc(blocks(fields), isBlock("tool_result")):
		return "tool_result"
	case format == claudeDir && l.Type == "system":
		switch sub := jsonText(fields["subtype"]); {
		case sub == "api_error":
			return "error"
		case sub == "compact_boundary" || sub == "microcompact_boundary":
			return "checkpoint"
		case sub == "init" && streamJSON(fields):
			return "session_start"
		}
	}
	return rolesOf[format][l.Type]
}

// blocks are a Claude Code user or assistant line's content blocks, up to
// the first element that is not an object.
func blocks(fields map[string]any) []map[string]any {
	arr, _ := nested(fields, "message", "content").([]any)
	var out []map[string]any
	for _, v := range arr {
		b, ok := v.(map[string]any)
		if !ok {
			break
		}
		out = append(out, b)
	}
	return out
}

func isBlock(typ string) func(map[string]any) bool {
	return func(b map[string]any) bool { return b["type"] == typ }
}

// streamJSON: a Claude Code line of the stream-json dialect (session_id,
// no sessionId).
func streamJSON(fields map[string]any) bool {
	_, snake := fields["session_id"].(string)
	_, camel := fields["sessionId"]
	return snake && !camel
}

// endReasonOf is the end_reason a line ships: how a line that ends a
// session or run says it ended, as written (Cortex Plane's reason,
// Codelia's outcome or terminal status, OrbitMesh's run end kind, or the
// terminal_reason of the attempt a runtime-shaped OrbitMesh line is the
// first past the end of: om follows the file's lines, nil for the other
// formats).
func endReasonOf(format string, l sample.Line, fields map[string]any, om *omEnds) string {
	if l.Corrupt {
		return ""
	}
	switch format {
	case cortexDir:
		if l.Type == cortex.TypeSessionEnd {
			return jsonText(fields["reason"])
		}
	case codeliaDir:
		switch st := jsonText(fields["status"]); {
		case l.Type == "run.end":
			return jsonText(fields["outcome"])
		case l.Type == "run.status" && slices.Contains([]string{"completed", "error", "cancelled"}, st):
			return st
		}
	case orbitmeshDir:
		if r, ends := om.end(l, fields); ends {
			return r
		}
		// A second run.interrupted of a run leaves the run's state as
		// it was (duplicate_interrupt): it ends nothing.
		if r, ok := strings.CutPrefix(l.Type, "run."); ok && orbitmeshRoles[l.Type] == "session_end" && !slices.Contains(l.Expect, "duplicate_interrupt") {
			return r
		}
	case claudeDir:
		// Only a headless run's result ends anything (its subtype); a
		// transcript writes no end line.
		if l.Type == "result" {
			return jsonText(fields["subtype"])
		}
	}
	return ""
}

// toolOf is the tool_name and invocation_id of a tool call or result.
// issued holds the names of the tool ids issued before the line in its
// file: a Claude Code assistant line names its first tool_use (and
// issues every one), a user line the first tool_result's tool_use_id and
// the name of the tool_use it answers; a Codex call its name and call_id
// (and issues it), an output its call_id and its call's name
// (docs/formats/codex.md, Model and ids); a Go pkg/session assistant
// message its first call's name and id (the first tool_calls entry with
// an id: an entry without one is no call) and issues every call, a tool
// message its tool_call_id and the name of the open call it answers,
// else its own name (docs/formats/go-session.md, Model and ids).
func toolOf(format string, l sample.Line, fields map[string]any, issued map[string]string) (name, invocation string) {
	switch {
	case l.Corrupt && (format == codexDir || format == goSessionDir):
		return "", ""
	case format == codexDir:
		return codexTool(l, fields, issued)
	case format == goSessionDir:
		return goSessionTool(l, fields, issued)
	case format == codeliaDir && l.Type == "agent.event":
		return jsonText(nested(fields, "event", "tool")), jsonText(nested(fields, "event", "tool_call_id"))
	case format == codeliaDir:
		return jsonText(fields["tool"]), jsonText(fields["tool_call_id"])
	case format == orbitmeshDir:
		// Neither shape names a tool in a field of its own (a tool_use
		// record's tool is in its raw, in the provider's words).
		return "", ""
	case format == claudeDir && l.Corrupt:
		return "", ""
	case format == claudeDir && l.Type == "assistant":
		first := true
		for _, b := range blocks(fields) {
			if b["type"] != "tool_use" {
				continue
			}
			id, _ := b["id"].(string)
			n, _ := b["name"].(string)
			if first {
				name, invocation, first = n, id, false
			}
			if id != "" {
				issued[id] = n
			}
		}
		return name, invocation
	case format == claudeDir && l.Type == "user":
		for _, b := range blocks(fields) {
			if id, ok := b["tool_use_id"].(string); ok && b["type"] == "tool_result" {
				return issued[id], id
			}
		}
		return "", ""
	case format == cortexDir:
		return jsonText(fields["tool_name"]), jsonText(fields["invocation_id"])
	}
	return "", ""
}

// codexCalls are the Codex calls and the tool each names when it states
// none (docs/formats/codex.md, Model and ids).
var codexCalls = map[string]string{"function_call": "", "custom_tool_call": "", "local_shell_call": "local_shell",
	"web_search_call": "web_search", "tool_search_call": "tool_search", "image_generation_call": ""}

// codexTool is a Codex line's tool and call id: a call's, an output's.
func codexTool(l sample.Line, fields map[string]any, issued map[string]string) (name, invocation string) {
	p, _ := fields["payload"].(map[string]any)
	id, _ := p["call_id"].(string)
	if dflt, call := codexCalls[l.Type]; call {
		name, _ = p["name"].(string)
		name = cmp.Or(name, dflt)
		if id != "" {
			issued[id] = name
		}
		return name, id
	}
	if codexRoles[l.Type] == "tool_result" {
		return issued[id], id
	}
	return "", ""
}

// goSessionTool is a Go pkg/session message's tool and call id.
func goSessionTool(l sample.Line, fields map[string]any, issued map[string]string) (name, invocation string) {
	m := goSessionMessage(fields)
	switch l.Type {
	case "assistant":
		calls, _ := m["tool_calls"].([]any)
		for _, c := range calls {
			call, _ := c.(map[string]any)
			id, _ := call["id"].(string)
			if id == "" {
				continue
			}
			n, _ := nested(call, "function", "name").(string)
			if n == "" {
				n, _ = call["name"].(string)
			}
			if invocation == "" {
				name, invocation = n, id
			}
			issued[id] = n
		}
		return name, invocation
	case "tool":
		id, _ := m["tool_call_id"].(string)
		if id == "" {
			return "", "" // it answers no call
		}
		n, open := issued[id]
		if !open {
			n, _ = m["name"].(string)
		}
		delete(issued, id)
		return n, id
	}
	return "", ""
}

// goSessionMessage is the object holding a Go pkg/session message's own
// fields: its "message" when the line is nested (no top-level role, a
// message object), else the line (docs/formats/go-session.md, section 3).
func goSessionMessage(fields map[string]any) map[string]any {
	if _, flat := fields["role"]; !flat {
		if m, ok := fields["message"].(map[string]any); ok {
			return m
		}
	}
	return fields
}

// agentOf is the agent_id a line ships: a Claude Code conversation line's
// own agentId, else its file's agent (docs/formats/claude-code.md, Model
// and ids).
func agentOf(format string, l sample.Line, fields map[string]any, file *sample.File) string {
	if format == claudeDir && !l.Corrupt && slices.Contains([]string{"user", "assistant", "system", "progress", "attachment"}, l.Type) {
		if id, ok := fields["agentId"].(string); ok && id != "" {
			return id
		}
	}
	return file.AgentID
}

// nested reads a value under an object path of a decoded line.
func nested(m map[string]any, path ...string) any {
	var v any = m
	for _, k := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[k]
	}
	return v
}
