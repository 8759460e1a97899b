package integrity

// field identifies a known field of the buffer schema (version 1).
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
	fNone field = 255
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

// fieldOf maps a JSON key to its field, or fNone.
func fieldOf(key []byte) field {
	switch string(key) {
	case "type":
		return fType
	case "timestamp":
		return fTimestamp
	case "job_id":
		return fJobID
	case "session_id":
		return fSessionID
	case "seq":
		return fSeq
	case "buffer_schema_version":
		return fBufferSchemaVersion
	case "agent_id":
		return fAgentID
	case "pod_name":
		return fPodName
	case "worker_job_id":
		return fWorkerJobID
	case "checkpoint_id":
		return fCheckpointID
	case "step_index":
		return fStepIndex
	case "schema_version":
		return fSchemaVersion
	case "model":
		return fModel
	case "prompt_hash":
		return fPromptHash
	case "message_count":
		return fMessageCount
	case "prompt_tokens":
		return fPromptTokens
	case "completion_tokens":
		return fCompletionTokens
	case "finish_reason":
		return fFinishReason
	case "tool_use_count":
		return fToolUseCount
	case "duration_ms":
		return fDurationMs
	case "invocation_id":
		return fInvocationID
	case "tool_name":
		return fToolName
	case "input_hash":
		return fInputHash
	case "input_summary":
		return fInputSummary
	case "is_side_effect":
		return fIsSideEffect
	case "success":
		return fSuccess
	case "result_summary":
		return fResultSummary
	case "error_code":
		return fErrorCode
	case "checkpoint_size_bytes":
		return fCheckpointSizeBytes
	case "reason":
		return fReason
	case "total_events":
		return fTotalEvents
	case "final_step_index":
		return fFinalStepIndex
	}
	return fNone
}

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
