package orbitmesh

// Record kinds (the `kind` field), as the OrbitMesh plan names them, plus
// the unknown one the generator uses to exercise forward compatibility.
const (
	KindMessageUser      = "message.user"
	KindMessageAssistant = "message.assistant"
	KindMessageTool      = "message.tool"
	KindMessageSystem    = "message.system"
	KindRunStarted       = "run.started"
	KindRunWaiting       = "run.waiting"
	KindRunResumed       = "run.resumed"
	KindRunCompleted     = "run.completed"
	KindRunFailed        = "run.failed"
	KindRunCancelled     = "run.cancelled"
	KindRunInterrupted   = "run.interrupted"
	KindStatusDerived    = "status.derived"
	KindTokenMinted      = "token.minted"
	KindTokenConsumed    = "token.consumed"
	KindTokenRevoked     = "token.revoked"
	KindTokenExpired     = "token.expired"
	// KindMemoryCompacted is no kind of the plan: lines of this kind carry
	// the "unknown_type" annotation.
	KindMemoryCompacted = "memory.compacted"
)

// The derived statuses, in increasing precedence.
const (
	StatusIdle               = "idle"
	StatusRunning            = "running"
	StatusWaiting            = "waiting"
	StatusInterruptedWaiting = "interrupted_waiting"
	StatusInterruptedStartup = "interrupted_startup"
)

// run.interrupted reasons.
const (
	ReasonProcessRestart = "process_restart"
	ReasonWaitTimeout    = "wait_timeout"
)

// Wait kinds of run.waiting.
const (
	WaitToolResult = "tool_result"
	WaitApproval   = "approval"
)

// The structs below fix the JSON key order: seq, ts, kind first, then the
// record's own fields.

// head is the common part of every record.
type head struct {
	Seq  int64  `json:"seq"`
	TS   string `json:"ts"`
	Kind string `json:"kind"`
}

func (h *head) hd() *head { return h }

// body is a record's JSON object.
type body interface{ hd() *head }

type msgUser struct {
	head
	MessageID string `json:"message_id"`
	Content   string `json:"content"`
}

type toolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // a JSON object as a string, as providers send it
}

type msgAssistant struct {
	head
	MessageID string     `json:"message_id"`
	RunID     string     `json:"run_id"`
	Content   string     `json:"content"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
}

type msgTool struct {
	head
	MessageID  string `json:"message_id"`
	RunID      string `json:"run_id"`
	ToolCallID string `json:"tool_call_id"`
	ToolName   string `json:"tool_name"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error,omitempty"`
}

type msgSystem struct {
	head
	MessageID string `json:"message_id"`
	Content   string `json:"content"`
}

type runStarted struct {
	head
	RunID            string `json:"run_id"`
	BootID           string `json:"boot_id"`
	TriggerMessageID string `json:"trigger_message_id"`
}

type runWaiting struct {
	head
	RunID         string `json:"run_id"`
	WaitKind      string `json:"wait_kind"`
	ResumeTokenID string `json:"resume_token_id"`
	DeadlineAt    string `json:"deadline_at"`
}

type runResumed struct {
	head
	RunID         string `json:"run_id"`
	ResumeTokenID string `json:"resume_token_id"`
}

type runEnded struct {
	head
	RunID       string `json:"run_id"`
	DurationMS  int64  `json:"duration_ms"`
	Error       string `json:"error,omitempty"`        // run.failed
	CancelledBy string `json:"cancelled_by,omitempty"` // run.cancelled
}

type runInterrupted struct {
	head
	RunID    string `json:"run_id"`
	Reason   string `json:"reason"`
	BootID   string `json:"boot_id"`  // the boot that found the run cut off
	Detector string `json:"detector"` // which recovery flow wrote it
}

type statusDerived struct {
	head
	Status string `json:"status"`
}

type tokenRecord struct {
	head
	TokenID   string `json:"token_id"`
	RunID     string `json:"run_id"`
	WaitKind  string `json:"wait_kind,omitempty"`  // token.minted
	ExpiresAt string `json:"expires_at,omitempty"` // token.minted
	Reason    string `json:"reason,omitempty"`     // token.revoked, token.expired
}

type memoryCompacted struct {
	head
	RunID           string `json:"run_id"`
	DroppedMessages int    `json:"dropped_messages"`
	SummaryChars    int    `json:"summary_chars"`
}
