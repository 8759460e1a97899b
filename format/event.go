package format

import (
	"math"
	"time"

	"github.com/journalship/journalship/integrity"
)

// Role is what a line is, across formats.
type Role uint8

// The roles. A format maps each of its event types to one.
const (
	RoleOther        Role = iota // anything else (also unknown types)
	RoleSessionStart             // a session or run begins (a header)
	RoleLLMRequest               // a request to a model
	RoleLLMResponse              // a model's answer, with its token usage
	RoleToolCall                 // a tool is called
	RoleToolResult               // a tool's result
	RoleCheckpoint               // state saved or loaded
	RoleStatus                   // a status change of the session or run
	RoleSessionEnd               // the session or run ends
	RoleMessage                  // a chat message (user, assistant, tool)
	RoleError                    // an error the runtime reports
	roleCount
)

var roleNames = [roleCount]string{"other", "session_start", "llm_request", "llm_response",
	"tool_call", "tool_result", "checkpoint", "status", "session_end", "message", "error"}

// String returns the role's name ("llm_response", …).
func (r Role) String() string {
	if r < roleCount {
		return roleNames[r]
	}
	return "other"
}

// Usage is the token usage a line reports. Input counts every prompt
// token, those read from or written to a cache included (OpenAI's
// prompt_tokens; a format whose runtime counts them apart, as Anthropic's
// API does, adds them in): tokens_in is then comparable across formats,
// and cost charges Input-CacheRead-CacheWrite at the input price.
type Usage struct {
	Input, Output         int64
	CacheRead, CacheWrite int64 // prompt tokens read from / written to a cache, part of Input
	// CacheWrite1h is the part of CacheWrite written to a one-hour cache
	// (Anthropic's extended TTL, priced apart); 0 when the runtime does
	// not tell the lifetimes apart.
	CacheWrite1h int64
	Has          bool
}

// AddCounts adds counts (never negative: tokens, missing seqs) without
// overflowing: a sum past the int64 range saturates, so a hostile line's
// huge counts can never wrap to a negative count that a metric would
// refuse.
func AddCounts(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Flags are the format-neutral annotations of one line besides its
// outcome.
type Flags uint16

// Line flags.
const (
	// UnknownType: the line's type is none of its format's types.
	UnknownType Flags = 1 << iota
	// BestEffort: judged only by the fields every version of the format
	// guarantees (the file declares a schema version journalship does not
	// know).
	BestEffort
	// DuplicateKey: a field the format reads appears twice in the object.
	DuplicateKey
	// SavesCheckpoint: the line saves a checkpoint the runtime can resume
	// from (CheckpointID names it, when the line does).
	SavesCheckpoint
	// SideEffect: the tool call changes something outside the agent (a
	// resume must not repeat it blindly).
	SideEffect
)

// MaxNotes bounds a line's format-specific annotations.
const MaxNotes = 4

// Note is a format-specific annotation of one line: Kind is one of the
// format's Annotations(); Detail, when set, is shipped under the metadata
// key Kind (for example "after 7"). Both point to constants or into the
// arena: collecting notes does not allocate.
type Note struct {
	Kind   string
	Detail []byte
}

// Event is what a format learned from one line. Byte slices point into the
// Arena passed to Judge and stay valid until it is reset.
type Event struct {
	Outcome       integrity.Outcome
	CorruptReason string // set when Outcome is Corrupt
	Violations    []integrity.Violation
	Flags         Flags
	Notes         [MaxNotes]Note
	NoteCount     int

	// EventType is the line's type as shipped in the event_type label: one
	// of the format's EventTypes(), or "" for an unknown type ("other").
	EventType string
	// TypeName is the type as written, for an unknown type.
	TypeName []byte
	Role     Role

	Time    time.Time
	HasTime bool

	// Seq is the line's number in the format's sequence (SeqRule).
	Seq    int64
	HasSeq bool
	// Pair is the key that pairs a response with its request (Cortex
	// Plane's step_index, Codelia's invocation seq).
	Pair    int64
	HasPair bool

	SessionID, RunID, JobID, AgentID []byte
	Pod                              []byte
	Model                            []byte
	// ToolName and ToolCallID name a tool call or result (ToolCallID pairs
	// them).
	ToolName, ToolCallID []byte
	Usage                Usage
	// Bill names, on the whole node, the billed unit Usage belongs to (0:
	// none): a unit copied into other journals counts once, under the
	// first journal to ship it (the pipeline keeps the claims in the
	// ledger). A format that sets it must give a copy of the unit the
	// same Bill wherever it is written.
	Bill uint64
	// CheckpointID names the checkpoint a SavesCheckpoint line saves.
	CheckpointID []byte
	// EndReason is how a line that Ends says the session or run ended
	// (its reason or outcome, as written).
	EndReason []byte
	// CostUSD is a cost the line states itself (not computed from tokens).
	CostUSD float64
	HasCost bool
	// State is the state derived from the file after this line ("" when
	// the format derives none).
	State string
	// Ends: the line ends its session or run; Terminal: and it will not
	// resume.
	Ends, Terminal bool

	SchemaVersion    int64
	HasSchemaVersion bool
}

// Reset clears e for reuse, keeping the Violations backing array.
func (e *Event) Reset() {
	v := e.Violations[:0]
	*e = Event{Violations: v}
}

// Violate records a broken schema rule; field and reason should be
// constants so that it does not allocate.
func (e *Event) Violate(field, reason string) {
	e.Violations = append(e.Violations, integrity.Violation{Field: field, Reason: reason})
	e.Outcome = max(e.Outcome, integrity.SchemaInvalid)
}

// Corrupt marks the line corrupt for reason, dropping what was learned.
func (e *Event) Corrupt(reason string) {
	v := e.Violations[:0]
	*e = Event{Outcome: integrity.Corrupt, CorruptReason: reason, Violations: v}
}

// Note adds a format-specific annotation (dropped past MaxNotes).
func (e *Event) Note(kind string, detail []byte) {
	if e.NoteCount < MaxNotes {
		e.Notes[e.NoteCount] = Note{Kind: kind, Detail: detail}
		e.NoteCount++
	}
}

// HasNote tells whether the line carries the annotation kind.
func (e *Event) HasNote(kind string) bool {
	for _, n := range e.Notes[:e.NoteCount] {
		if n.Kind == kind {
			return true
		}
	}
	return false
}

// Begin starts judging a line: it scans line with c for the paths p and
// returns the string value of the path typeID, the line's type. A line
// that is not a JSON object, or whose type is not a string, is marked
// corrupt (with noType as the reason for the latter) and ok is false.
func Begin(c *integrity.Capture, line []byte, p *integrity.Paths, typeID int, noType string, ev *Event) (name []byte, ok bool) {
	if reason := c.Scan(line, p); reason != "" {
		ev.Corrupt(reason)
		return nil, false
	}
	if name, ok = c.Str(typeID); !ok {
		ev.Corrupt(noType)
	}
	return name, ok
}
