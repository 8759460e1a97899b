package cortex

import "github.com/journalship/journalship/integrity"

// The buffer schema (version 1, docs/formats/cortex-plane.md section 3):
// its fields, the rule each field's value must satisfy, and which fields
// each event type defines, requires and lets be null.

// field identifies a known field of the buffer schema (version 1). It is
// the field's key id in bufferKeys.
type field uint8

const (
	fType field = iota
	fTimestamp
	fJobID
	fSessionID
	fSeq
	fBufferSchemaVersion
	fAgentID
	fPodName
	fWorkerJobID
	fCheckpointID
	fStepIndex
	fSchemaVersion
	fModel
	fPromptHash
	fMessageCount
	fPromptTokens
	fCompletionTokens
	fFinishReason
	fToolUseCount
	fDurationMs
	fInvocationID
	fToolName
	fInputHash
	fInputSummary
	fIsSideEffect
	fSuccess
	fResultSummary
	fErrorCode
	fCheckpointSizeBytes
	fReason
	fTotalEvents
	fFinalStepIndex
	fieldCount
	fNone = field(integrity.NoKey) // any other key
)

// mask is a set of fields.
type mask uint64

func maskOf(fs ...field) mask {
	var m mask
	for _, f := range fs {
		m |= 1 << f
	}
	return m
}

func (m mask) has(f field) bool { return m&(1<<f) != 0 }

// check is the rule a field's value must satisfy.
type check uint8

const (
	cString       check = iota // any string
	cNonEmpty                  // string, minLength 1
	cUUID                      // string, format uuid
	cDateTime                  // string, format date-time (RFC 3339)
	cHex64                     // string, ^[a-f0-9]{64}$
	cInt0                      // integer >= 0
	cInt1                      // integer >= 1
	cInt                       // any integer
	cBool                      // boolean
	cFinishReason              // enum of LLM_RESPONSE.finish_reason
	cEndReason                 // enum of SESSION_END.reason
	cMax1024                   // string, maxLength 1024
	cMax4096                   // string, maxLength 4096
	cTypeName                  // the type field itself
)

type fieldSpec struct {
	name  string
	check check
}

var fields = [fieldCount]fieldSpec{
	fType:                {"type", cTypeName},
	fTimestamp:           {"timestamp", cDateTime},
	fJobID:               {"job_id", cUUID},
	fSessionID:           {"session_id", cUUID},
	fSeq:                 {"seq", cInt0},
	fBufferSchemaVersion: {"buffer_schema_version", cInt1},
	fAgentID:             {"agent_id", cUUID},
	fPodName:             {"pod_name", cString},
	fWorkerJobID:         {"worker_job_id", cString},
	fCheckpointID:        {"checkpoint_id", cUUID},
	fStepIndex:           {"step_index", cInt0},
	fSchemaVersion:       {"schema_version", cInt},
	fModel:               {"model", cString},
	fPromptHash:          {"prompt_hash", cHex64},
	fMessageCount:        {"message_count", cInt1},
	fPromptTokens:        {"prompt_tokens", cInt0},
	fCompletionTokens:    {"completion_tokens", cInt0},
	fFinishReason:        {"finish_reason", cFinishReason},
	fToolUseCount:        {"tool_use_count", cInt0},
	fDurationMs:          {"duration_ms", cInt0},
	fInvocationID:        {"invocation_id", cUUID},
	fToolName:            {"tool_name", cNonEmpty},
	fInputHash:           {"input_hash", cHex64},
	fInputSummary:        {"input_summary", cMax1024},
	fIsSideEffect:        {"is_side_effect", cBool},
	fSuccess:             {"success", cBool},
	fResultSummary:       {"result_summary", cMax4096},
	fErrorCode:           {"error_code", cString},
	fCheckpointSizeBytes: {"checkpoint_size_bytes", cInt0},
	fReason:              {"reason", cEndReason},
	fTotalEvents:         {"total_events", cInt0},
	fFinalStepIndex:      {"final_step_index", cInt0},
}

// bufferKeys are the schema's field names compiled for integrity's member
// scan, which hands out each member with its field (fNone for any other
// key). The uuid and hash fields are given their shape, so that the scan
// checks such a value as it reads it (eight bytes at a time) and the judge
// need not look at it again (Slot.Shaped).
var bufferKeys = func() *integrity.Keys {
	keys := make([]integrity.Key, fieldCount)
	for f := range fieldCount {
		keys[f].Name = fields[f].name
		switch fields[f].check {
		case cUUID:
			keys[f].Shape = integrity.ShapeUUID
		case cHex64:
			keys[f].Shape = integrity.ShapeHex64
		}
	}
	return integrity.MustKeys(keys...)
}()

// kindSpec is the schema of one event type: the fields it defines, the ones
// it requires and the ones that may be null.
type kindSpec struct {
	known    mask
	required mask
	nullable mask
}

var (
	baseKnown    = maskOf(fType, fTimestamp, fJobID, fSessionID, fSeq)
	baseRequired = maskOf(fType, fTimestamp, fJobID, fSessionID)
	// withSeq is what every event-specific schema requires in addition.
	withSeq = baseRequired | maskOf(fSeq)
	// bestEffortRequired are the fields the seed guarantees in every version.
	bestEffortRequired = maskOf(fType, fTimestamp, fJobID)
)

var kinds = [kindCount]kindSpec{
	KindUnknown: {known: baseKnown, required: baseRequired},
	KindSessionStart: {
		known:    baseKnown | maskOf(fBufferSchemaVersion, fAgentID, fPodName, fWorkerJobID),
		required: withSeq | maskOf(fBufferSchemaVersion, fAgentID, fPodName),
		nullable: maskOf(fWorkerJobID),
	},
	KindCheckpointLoaded: {
		known:    baseKnown | maskOf(fCheckpointID, fStepIndex, fSchemaVersion),
		required: withSeq | maskOf(fCheckpointID, fStepIndex),
		nullable: maskOf(fCheckpointID, fStepIndex, fSchemaVersion),
	},
	KindLLMRequest: {
		known:    baseKnown | maskOf(fModel, fStepIndex, fPromptHash, fMessageCount),
		required: withSeq | maskOf(fModel, fStepIndex),
	},
	KindLLMResponse: {
		known:    baseKnown | maskOf(fStepIndex, fPromptTokens, fCompletionTokens, fFinishReason, fToolUseCount, fDurationMs),
		required: withSeq | maskOf(fStepIndex, fPromptTokens, fCompletionTokens, fFinishReason),
	},
	KindToolStart: {
		known:    baseKnown | maskOf(fInvocationID, fToolName, fInputHash, fInputSummary, fIsSideEffect),
		required: withSeq | maskOf(fInvocationID, fToolName, fInputHash),
	},
	KindToolResult: {
		known:    baseKnown | maskOf(fInvocationID, fToolName, fSuccess, fDurationMs, fResultSummary, fErrorCode),
		required: withSeq | maskOf(fInvocationID, fToolName, fSuccess, fDurationMs),
		nullable: maskOf(fErrorCode),
	},
	KindCheckpointWritten: {
		known:    baseKnown | maskOf(fCheckpointID, fStepIndex, fCheckpointSizeBytes),
		required: withSeq | maskOf(fCheckpointID, fStepIndex),
	},
	// The seed lists these three types in the base enum without a schema of
	// their own: only the base schema applies.
	KindApprovalRequested: {known: baseKnown, required: baseRequired},
	KindStateTransition:   {known: baseKnown, required: baseRequired},
	KindError:             {known: baseKnown, required: baseRequired},
	KindSessionEnd: {
		known:    baseKnown | maskOf(fReason, fTotalEvents, fFinalStepIndex),
		required: withSeq | maskOf(fReason, fTotalEvents),
	},
}

// Violation reasons. Constants, so that collecting them never allocates.
const (
	reasonRequired   = "required field missing"
	reasonDuplicate  = "duplicate key"
	reasonNotString  = "must be a string"
	reasonNotInteger = "must be an integer"
	reasonNotBool    = "must be a boolean"
	reasonMin0       = "must be >= 0"
	reasonMin1       = "must be >= 1"
	reasonEmpty      = "must not be empty"
	reasonUUID       = "must be a uuid"
	reasonDateTime   = "must be an RFC 3339 date-time"
	reasonHex64      = "must match ^[a-f0-9]{64}$"
	reasonMax1024    = "longer than 1024 characters"
	reasonMax4096    = "longer than 4096 characters"
	reasonFinish     = "must be one of end_turn, tool_use, max_tokens, stop_sequence"
	reasonEndReason  = "must be one of completed, failed, approval_pause, cancelled"
	reasonNull       = "must not be null"
	reasonOutOfRange = "integer out of range"
)
