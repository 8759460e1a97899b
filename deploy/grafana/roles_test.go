package grafana

import (
	"slices"
	"strings"

	"github.com/journalship/journalship/internal/sample"
)

// What each format's lines are in the format-neutral terms the dashboards
// query (role, end_reason, tool_name, invocation_id, the event_type
// label), written out here from docs/formats/*.md and the README's tables,
// never read from the formats' code. Test files may name event types (the
// seam test reads only the product's files).

// cortexRoles: Cortex Plane's eleven types (docs/formats/cortex-plane.md).
var cortexRoles = map[string]string{
	sample.TypeSessionStart: "session_start", sample.TypeCheckpointLoaded: "checkpoint",
	sample.TypeLLMRequest: "llm_request", sample.TypeLLMResponse: "llm_response",
	sample.TypeToolStart: "tool_call", sample.TypeToolResult: "tool_result",
	sample.TypeCheckpointWritten: "checkpoint", sample.TypeApprovalRequested: "status",
	sample.TypeStateTransition: "status", sample.TypeError: "error", sample.TypeSessionEnd: "session_end",
}

// codeliaRoles: docs/formats/codelia.md, Roles (agent.event: see roleOf).
var codeliaRoles = map[string]string{
	"header": "session_start", "run.start": "message", "run.context": "other", "agent.event": "other",
	"tool.output": "tool_result", "llm.request": "llm_request", "llm.response": "llm_response",
	"run.status": "status", "run.error": "error", "run.end": "session_end",
}

// orbitmeshRoles: docs/formats/orbitmesh.md, Record kinds.
var orbitmeshRoles = map[string]string{
	"message.user": "message", "message.assistant": "message", "message.tool": "message", "message.system": "message",
	"run.started": "status", "run.waiting": "status", "run.resumed": "status",
	"run.completed": "session_end", "run.failed": "session_end", "run.cancelled": "session_end", "run.interrupted": "session_end",
	"status.derived": "status",
	"token.minted":   "other", "token.consumed": "other", "token.revoked": "other", "token.expired": "other",
}

// rolesOf are each format's known types and their roles.
var rolesOf = map[string]map[string]string{cortexDir: cortexRoles, codeliaDir: codeliaRoles, orbitmeshDir: orbitmeshRoles}

// known tells whether typ is one of the format's types.
func known(format, typ string) bool {
	_, ok := rolesOf[format][typ]
	return ok
}

// roleOf is the role a line ships: none when corrupt, "other" for a type
// the format does not know, and a Codelia agent.event is a tool call when
// its event.type is tool_call.
func roleOf(format string, l sample.Line, fields map[string]any) string {
	switch {
	case l.Corrupt:
		return ""
	case !known(format, l.Type):
		return "other"
	case format == codeliaDir && l.Type == "agent.event" && jsonText(nested(fields, "event", "type")) == "tool_call":
		return "tool_call"
	}
	return rolesOf[format][l.Type]
}

// endReasonOf is the end_reason a line ships: how a line that ends a
// session or run says it ended, as written (Cortex Plane's reason,
// Codelia's outcome or terminal status, OrbitMesh's run end kind).
func endReasonOf(format string, l sample.Line, fields map[string]any) string {
	if l.Corrupt {
		return ""
	}
	switch format {
	case cortexDir:
		if l.Type == sample.TypeSessionEnd {
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
		// A second run.interrupted of a run leaves the run's state as
		// it was (duplicate_interrupt): it ends nothing.
		if r, ok := strings.CutPrefix(l.Type, "run."); ok && orbitmeshRoles[l.Type] == "session_end" && !slices.Contains(l.Expect, "duplicate_interrupt") {
			return r
		}
	}
	return ""
}

// toolOf is the tool_name and invocation_id of a tool call or result.
func toolOf(format string, l sample.Line, fields map[string]any) (name, invocation string) {
	switch {
	case format == codeliaDir && l.Type == "agent.event":
		return jsonText(nested(fields, "event", "tool")), jsonText(nested(fields, "event", "tool_call_id"))
	case format == codeliaDir:
		return jsonText(fields["tool"]), jsonText(fields["tool_call_id"])
	}
	return jsonText(fields["tool_name"]), jsonText(fields["invocation_id"])
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
