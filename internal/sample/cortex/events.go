package cortex

// Event type names of the v1 schema, plus the unknown one the generator
// uses to exercise forward compatibility.
const (
	TypeSessionStart      = "SESSION_START"
	TypeCheckpointLoaded  = "CHECKPOINT_LOADED"
	TypeLLMRequest        = "LLM_REQUEST"
	TypeLLMResponse       = "LLM_RESPONSE"
	TypeToolStart         = "TOOL_START"
	TypeToolResult        = "TOOL_RESULT"
	TypeCheckpointWritten = "CHECKPOINT_WRITTEN"
	TypeApprovalRequested = "APPROVAL_REQUESTED"
	TypeStateTransition   = "STATE_TRANSITION"
	TypeError             = "ERROR"
	TypeSessionEnd        = "SESSION_END"
	// TypeMemoryCompacted is not part of v1: lines of this type carry the
	// "unknown_type" annotation.
	TypeMemoryCompacted = "MEMORY_COMPACTED"
)

// SESSION_END reasons.
const (
	EndCompleted     = "completed"
	EndFailed        = "failed"
	EndCancelled     = "cancelled"
	EndApprovalPause = "approval_pause"
)

// The structs below fix the JSON key order: the embedded header first, then
// the event's fields in the schema's order.

type header struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	JobID     string `json:"job_id"`
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
}

type evSessionStart struct {
	header
	BufferSchemaVersion int     `json:"buffer_schema_version"`
	AgentID             string  `json:"agent_id"`
	PodName             string  `json:"pod_name"`
	WorkerJobID         *string `json:"worker_job_id"`
}

type evCheckpointLoaded struct {
	header
	CheckpointID  *string `json:"checkpoint_id"`
	StepIndex     *int    `json:"step_index"`
	SchemaVersion *int    `json:"schema_version"`
}

type evLLMRequest struct {
	header
	Model        string `json:"model"`
	StepIndex    int    `json:"step_index"`
	PromptHash   string `json:"prompt_hash"`
	MessageCount int    `json:"message_count"`
	MaxTokens    int    `json:"max_tokens"`
}

type evLLMResponse struct {
	header
	StepIndex        int    `json:"step_index"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	FinishReason     string `json:"finish_reason"`
	ToolUseCount     int    `json:"tool_use_count"`
	DurationMs       int64  `json:"duration_ms"`
}

type evToolStart struct {
	header
	InvocationID string `json:"invocation_id"`
	ToolName     string `json:"tool_name"`
	InputHash    string `json:"input_hash"`
	InputSummary string `json:"input_summary"`
	IsSideEffect bool   `json:"is_side_effect"`
}

type evToolResult struct {
	header
	InvocationID  string  `json:"invocation_id"`
	ToolName      string  `json:"tool_name"`
	Success       bool    `json:"success"`
	DurationMs    int64   `json:"duration_ms"`
	ResultSummary string  `json:"result_summary"`
	ErrorCode     *string `json:"error_code"`
}

type evCheckpointWritten struct {
	header
	CheckpointID        string `json:"checkpoint_id"`
	StepIndex           int    `json:"step_index"`
	CheckpointSizeBytes int64  `json:"checkpoint_size_bytes"`
}

type approvalRouting struct {
	Channel   string   `json:"channel"`
	Target    string   `json:"target"`
	Approvers []string `json:"approvers"`
}

type evApprovalRequested struct {
	header
	ApprovalRequestID string          `json:"approval_request_id"`
	StepIndex         int             `json:"step_index"`
	Action            string          `json:"action"`
	TokenHash         string          `json:"token_hash"`
	Routing           approvalRouting `json:"routing"`
	ExpiresAt         string          `json:"expires_at"`
}

type evStateTransition struct {
	header
	OldStatus string `json:"old_status"`
	NewStatus string `json:"new_status"`
	Reason    string `json:"reason"`
}

type evError struct {
	header
	StepIndex  int     `json:"step_index"`
	ErrorCode  string  `json:"error_code"`
	Message    string  `json:"message"`
	StackTrace *string `json:"stack_trace"`
}

type evSessionEnd struct {
	header
	Reason         string `json:"reason"`
	TotalEvents    int    `json:"total_events"`
	FinalStepIndex int    `json:"final_step_index"`
}

type evMemoryCompacted struct {
	header
	StepIndex    int    `json:"step_index"`
	TokensBefore int64  `json:"tokens_before"`
	TokensAfter  int64  `json:"tokens_after"`
	Strategy     string `json:"strategy"`
}
