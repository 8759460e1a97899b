package codex

import (
	"slices"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// kind is a line's kind: the envelope's type, or the legacy dialect's
// line shapes (docs/formats/codex.md, Records).
type kind uint8

const (
	kUnknown      kind = iota // an envelope type journalship does not know
	kSessionMeta              // session_meta, or the legacy header
	kTurnContext              // turn_context
	kResponseItem             // response_item, or a legacy bare item
	kEventMsg                 // event_msg
	kCompacted                // compacted
	kState                    // legacy {"record_type":"state"}
)

// envelopeKinds are the envelope's types, by kind.
var envelopeKinds = [...]struct {
	name string
	k    kind
}{{"session_meta", kSessionMeta}, {"turn_context", kTurnContext}, {"response_item", kResponseItem},
	{"event_msg", kEventMsg}, {"compacted", kCompacted}}

func kindOf(name []byte) kind {
	for _, e := range envelopeKinds {
		if string(name) == e.name {
			return e.k
		}
	}
	return kUnknown
}

// eventType is a line's event_type: its kind, or for response_item and
// event_msg lines the payload's type.
type eventType uint8

const (
	eNone eventType = iota // unknown: ships as "other"
	eSessionMeta
	eTurnContext
	eCompacted
	eState
	// response_item payloads (and legacy bare items).
	eMessage
	eReasoning
	eFunctionCall
	eFunctionCallOutput
	eCustomToolCall
	eCustomToolCallOutput
	eLocalShellCall
	eWebSearchCall
	eToolSearchCall
	eToolSearchOutput
	eImageGenerationCall
	eGhostSnapshot
	eCompaction
	eContextCompaction
	// event_msg payloads.
	eUserMessage
	eAgentMessage
	eAgentReasoning
	eAgentReasoningRaw
	eTokenCount
	eTaskStarted
	eTaskComplete
	eTurnAborted
	eContextCompacted
	eThreadRolledBack
	eEnteredReviewMode
	eExitedReviewMode
	eUndoCompleted
	eThreadNameUpdated
	eItemCompleted
	ePatchApplyEnd
	eMCPToolCallEnd
	eWebSearchEnd
	eExecCommandEnd
	eImageGenerationEnd
	eViewImageToolCall
	eThreadGoalUpdated
	eError
	eventCount
)

// eventNames are the event_type values, as written.
var eventNames = [eventCount]string{"", "session_meta", "turn_context", "compacted", "state",
	"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
	"custom_tool_call_output", "local_shell_call", "web_search_call", "tool_search_call",
	"tool_search_output", "image_generation_call", "ghost_snapshot", "compaction", "context_compaction",
	"user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content", "token_count",
	"task_started", "task_complete", "turn_aborted", "context_compacted", "thread_rolled_back",
	"entered_review_mode", "exited_review_mode", "undo_completed", "thread_name_updated",
	"item_completed", "patch_apply_end", "mcp_tool_call_end", "web_search_end", "exec_command_end",
	"image_generation_end", "view_image_tool_call", "thread_goal_updated", "error"}

// aliases are payload types the runtime's reader accepts under another
// name.
var aliases = [...]struct {
	name string
	e    eventType
}{{"compaction_summary", eCompaction}, {"turn_started", eTaskStarted}, {"turn_complete", eTaskComplete}}

// payloadType returns the event type of a payload type of kind k
// (response_item or event_msg), eNone when unknown.
func payloadType(k kind, name []byte) eventType {
	lo, hi := eMessage, eContextCompaction
	if k == kEventMsg {
		lo, hi = eUserMessage, eError
	}
	for e := lo; e <= hi; e++ {
		if string(name) == eventNames[e] {
			return e
		}
	}
	for _, a := range aliases {
		if string(name) == a.name && a.e >= lo && a.e <= hi {
			return a.e
		}
	}
	return eNone
}

// roles maps each event type onto its neutral role; the judge refines
// token_count (llm_response only when it ships usage)
// (docs/formats/codex.md, Roles).
var roles = [eventCount]format.Role{
	eSessionMeta:          format.RoleSessionStart,
	eTurnContext:          format.RoleStatus,
	eCompacted:            format.RoleCheckpoint,
	eMessage:              format.RoleMessage,
	eFunctionCall:         format.RoleToolCall,
	eFunctionCallOutput:   format.RoleToolResult,
	eCustomToolCall:       format.RoleToolCall,
	eCustomToolCallOutput: format.RoleToolResult,
	eLocalShellCall:       format.RoleToolCall,
	eWebSearchCall:        format.RoleToolCall,
	eToolSearchCall:       format.RoleToolCall,
	eToolSearchOutput:     format.RoleToolResult,
	eImageGenerationCall:  format.RoleToolCall,
	eCompaction:           format.RoleCheckpoint,
	eContextCompaction:    format.RoleCheckpoint,
	eTokenCount:           format.RoleLLMResponse,
	eTaskStarted:          format.RoleStatus,
	eTaskComplete:         format.RoleStatus,
	eTurnAborted:          format.RoleStatus,
	eContextCompacted:     format.RoleCheckpoint,
	eThreadRolledBack:     format.RoleStatus,
	eEnteredReviewMode:    format.RoleStatus,
	eExitedReviewMode:     format.RoleStatus,
	eError:                format.RoleError,
}

// isCall tells whether the type issues a tool call.
func (e eventType) isCall() bool {
	return e == eFunctionCall || e == eCustomToolCall || e == eLocalShellCall || e == eToolSearchCall
}

// isOutput tells whether the type answers a tool call.
func (e eventType) isOutput() bool {
	return e == eFunctionCallOutput || e == eCustomToolCallOutput || e == eToolSearchOutput
}

// reasonNoType is the corrupt reason of a JSON object that is no Codex
// line: without a string "type", and not a legacy header or state line.
const reasonNoType = `no string "type"`

// topFields are the paths of the envelope outside the payload (the
// legacy paths hold names no line has in their place: a legacy line's
// fields are its payload's).
var (
	topEnvelope = []string{"type", "timestamp", "payload", "record_type", "id"}
	topLegacy   = []string{"type", "-timestamp", "-payload", "record_type", "-id"}
)

// Ids of the top fields.
const (
	pType = iota
	pTimestamp
	pPayload
	pRecordType
	pTopID
	topCount
)

// payloadFields are the payload's members the judge reads: under
// "payload." in the envelope, at the top level of a legacy line, with
// the same ids in both path sets (but the type, which a legacy line
// has at pType).
var payloadFields = slices.Concat([]string{
	"type", "id", "timestamp", "cwd", "originator", "cli_version", "instructions", "git",
	"model_provider", "forked_from_id", "source",
	"model", "approval_policy", "sandbox_policy", "effort", "summary", "turn_id",
	"role", "content", "phase", "name", "call_id", "arguments", "output", "input", "status", "action",
	"encrypted_content", "message", "text", "reason", "last_agent_message", "num_turns",
	"replacement_history", "model_context_window", "info", "rate_limits",
	"info.model_context_window"},
	usagePaths("info.total_token_usage"), usagePaths("info.last_token_usage"))

// usagePaths are a TokenUsage object under prefix and its counters, in
// the order of the u offsets.
func usagePaths(prefix string) []string {
	return []string{prefix, prefix + ".input_tokens", prefix + ".cached_input_tokens",
		prefix + ".output_tokens", prefix + ".reasoning_output_tokens", prefix + ".total_tokens"}
}

// Offsets of a TokenUsage's members from the id of its object.
const (
	uObject = iota
	uInput
	uCached
	uOutput
	uReasoning
	uTotal
	usageFields
)

// Ids of payloadFields, after the top fields.
const (
	fType = topCount + iota
	fID
	fTimestamp
	fCwd
	fOriginator
	fCLIVersion
	fInstructions
	fGit
	fModelProvider
	fForkedFromID
	fSource
	fModel
	fApprovalPolicy
	fSandboxPolicy
	fEffort
	fSummary
	fTurnID
	fRole
	fContent
	fPhase
	fName
	fCallID
	fArguments
	fOutput
	fInput
	fStatus
	fAction
	fEncryptedContent
	fMessage
	fText
	fReason
	fLastAgentMessage
	fNumTurns
	fReplacementHistory
	fModelContextWindow
	fInfo
	fRateLimits
	fInfoContextWindow
	fTotal // info.total_token_usage, then its counters
)

// fLast is info.last_token_usage, then its counters.
const fLast = fTotal + usageFields

// envelopePaths and legacyPaths are the fields the judge reads, compiled
// once; the ids are their indexes, the names the violations' field
// names.
var (
	envelopePaths = integrity.MustPaths(slices.Concat(topEnvelope, prefixed("payload.", payloadFields))...)
	legacyPaths   = integrity.MustPaths(slices.Concat(topLegacy, []string{"-type"}, payloadFields[1:])...)
)

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// checkEnvelope applies the envelope's schema: a timestamp (the line's
// time) and an object payload.
func checkEnvelope(k *format.Checker) bool {
	k.ReqTime(pTimestamp)
	return k.ReqObj(pPayload)
}

// checkSessionMeta applies a session_meta payload's schema (and the
// legacy header's, legacy: whose timestamp is the line's time).
func checkSessionMeta(k *format.Checker, legacy bool) {
	k.ReqNonEmpty(fID)
	if legacy {
		k.ReqTime(fTimestamp)
		k.OptStrOrNull(fInstructions)
		k.OptObjOrNull(fGit)
		return
	}
	k.ReqStr(fTimestamp)
	k.ReqStr(fCwd)
	k.ReqStr(fOriginator)
	k.ReqStr(fCLIVersion)
	k.OptStrOrNull(fInstructions)
	k.OptObjOrNull(fGit)
	k.OptStrOrNull(fModelProvider)
	k.OptStrOrNull(fForkedFromID)
}

// checkTurnContext applies a turn_context payload's schema.
func checkTurnContext(k *format.Checker) {
	k.ReqStr(fCwd)
	k.Present(fApprovalPolicy, true)
	if kind := k.Present(fSandboxPolicy, true); kind != integrity.JSONAbsent && kind != integrity.JSONObject {
		k.Bad(fSandboxPolicy, format.ReasonObject)
	}
	k.ReqNonEmpty(fModel)
	k.OptStrOrNull(fEffort)
	k.OptStr(fSummary)
	k.OptStr(fTurnID)
}

// checkItem applies the schema of a response item's payload of type e
// (unknown types pass).
func checkItem(k *format.Checker, e eventType) {
	switch e {
	case eMessage:
		k.ReqStr(fRole)
		k.ReqArr(fContent)
		k.OptStr(fPhase)
	case eReasoning:
		k.ReqArr(fSummary)
		k.OptArrOrNull(fContent)
		k.OptStrOrNull(fEncryptedContent)
	case eFunctionCall:
		k.ReqNonEmpty(fName)
		k.ReqStr(fArguments)
		k.ReqNonEmpty(fCallID)
	case eFunctionCallOutput, eCustomToolCallOutput:
		k.ReqNonEmpty(fCallID)
		k.ReqStrOrArr(fOutput)
	case eCustomToolCall:
		k.ReqNonEmpty(fCallID)
		k.ReqNonEmpty(fName)
		k.ReqStr(fInput)
		k.OptStr(fStatus)
	case eLocalShellCall:
		k.Str(fCallID, false, true, true)
		k.ReqStr(fStatus)
		k.ReqObj(fAction)
	case eWebSearchCall:
		k.OptStr(fStatus)
		k.OptObj(fAction)
	case eToolSearchCall, eToolSearchOutput:
		k.Str(fCallID, false, true, true)
	}
}

// checkEvent applies the schema of an event_msg payload of type e
// (unknown types pass).
func checkEvent(k *format.Checker, e eventType) {
	switch e {
	case eUserMessage, eAgentMessage:
		k.ReqStr(fMessage)
		k.OptStr(fPhase)
	case eAgentReasoning, eAgentReasoningRaw:
		k.ReqStr(fText)
	case eTokenCount:
		if k.Obj(fInfo, true, true) {
			checkUsage(k, fTotal)
			checkUsage(k, fLast)
			k.OptInt0OrNull(fInfoContextWindow)
		}
		k.OptObjOrNull(fRateLimits)
	case eTaskStarted:
		k.OptStr(fTurnID)
		k.OptInt0OrNull(fModelContextWindow)
	case eTaskComplete:
		k.OptStr(fTurnID)
		k.OptStrOrNull(fLastAgentMessage)
	case eTurnAborted:
		k.ReqStr(fReason)
		k.OptStrOrNull(fTurnID)
	case eThreadRolledBack:
		k.ReqInt0(fNumTurns)
	case ePatchApplyEnd, eMCPToolCallEnd, eWebSearchEnd, eExecCommandEnd, eImageGenerationEnd:
		k.OptStr(fCallID)
	}
}

// checkUsage applies a TokenUsage object's schema at id: an object whose
// five counters are integers >= 0.
func checkUsage(k *format.Checker, id int) {
	if !k.ReqObj(id + uObject) {
		return
	}
	for i := uInput; i < usageFields; i++ {
		k.ReqInt0(id + i)
	}
}

// checkCompacted applies a compacted payload's schema.
func checkCompacted(k *format.Checker) {
	k.ReqStr(fMessage)
	k.OptArrOrNull(fReplacementHistory)
}
