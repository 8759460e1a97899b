package cortex

import (
	"time"

	"github.com/journalship/journalship/integrity"
)

// Kind is an event type of the Cortex Plane buffer.
type Kind uint8

// Event kinds of buffer schema version 1. KindUnknown is any other type.
const (
	KindUnknown Kind = iota
	KindSessionStart
	KindCheckpointLoaded
	KindLLMRequest
	KindLLMResponse
	KindToolStart
	KindToolResult
	KindCheckpointWritten
	KindApprovalRequested
	KindStateTransition
	KindError
	KindSessionEnd
	kindCount
)

var kindNames = [kindCount]string{
	"", "SESSION_START", "CHECKPOINT_LOADED", "LLM_REQUEST", "LLM_RESPONSE",
	"TOOL_START", "TOOL_RESULT", "CHECKPOINT_WRITTEN", "APPROVAL_REQUESTED",
	"STATE_TRANSITION", "ERROR", "SESSION_END",
}

// String returns the event type as written in journals, or "" for
// KindUnknown.
func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return ""
}

// KindOf maps an event type name to its Kind.
func KindOf(name []byte) Kind {
	switch string(name) {
	case "SESSION_START":
		return KindSessionStart
	case "CHECKPOINT_LOADED":
		return KindCheckpointLoaded
	case "LLM_REQUEST":
		return KindLLMRequest
	case "LLM_RESPONSE":
		return KindLLMResponse
	case "TOOL_START":
		return KindToolStart
	case "TOOL_RESULT":
		return KindToolResult
	case "CHECKPOINT_WRITTEN":
		return KindCheckpointWritten
	case "APPROVAL_REQUESTED":
		return KindApprovalRequested
	case "STATE_TRANSITION":
		return KindStateTransition
	case "ERROR":
		return KindError
	case "SESSION_END":
		return KindSessionEnd
	}
	return KindUnknown
}

// Flags are the per-line annotations that are not violations.
type Flags uint16

// Line flags.
const (
	// UnknownType: the type is not one of the known event types.
	UnknownType Flags = 1 << iota
	// BestEffort: judged with only the version-independent fields because
	// the session declared an unknown buffer_schema_version.
	BestEffort
	// DuplicateKey: a known field appears more than once in the object.
	DuplicateKey
)

// Event is what the validator learned from one line, in the buffer's own
// terms (the format's Judge maps it onto the neutral format.Event). Byte
// slices point into the Arena passed to Validate and stay valid until the
// arena is reset.
type Event struct {
	Outcome       integrity.Outcome
	CorruptReason string // set when Outcome is Corrupt
	Violations    []integrity.Violation
	Flags         Flags

	Kind     Kind
	TypeName []byte

	Timestamp    time.Time
	HasTimestamp bool

	JobID, SessionID []byte
	Seq              int64
	HasSeq           bool

	// SESSION_START
	AgentID          []byte
	PodName          []byte
	SchemaVersion    int64
	HasSchemaVersion bool

	// LLM_REQUEST, LLM_RESPONSE, CHECKPOINT_*
	Model            []byte
	StepIndex        int64
	HasStepIndex     bool
	PromptTokens     int64
	CompletionTokens int64
	HasTokens        bool
	FinishReason     []byte
	CheckpointID     []byte

	// TOOL_START, TOOL_RESULT
	InvocationID []byte
	ToolName     []byte
	SideEffect   bool // TOOL_START's is_side_effect is true

	// SESSION_END: the reason as written, kept even when it is none of
	// the schema's values (verify reports it).
	EndReason []byte
}

// Reset clears e for reuse, keeping the Violations backing array.
func (e *Event) Reset() {
	v := e.Violations[:0]
	*e = Event{Violations: v}
}

// ViolationText renders the violations as "field: reason; field: reason".
func (e *Event) ViolationText() string { return integrity.ViolationText(e.Violations) }

func (e *Event) violate(field, reason string) {
	e.Violations = append(e.Violations, integrity.Violation{Field: field, Reason: reason})
}
