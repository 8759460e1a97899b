// Package claudecode is the Claude Code session transcript format
// (docs/formats/claude-code.md): <root>/<project>/<session>.jsonl, the
// subagent transcripts <root>/<project>/<session>/subagents/agent-<id>.jsonl
// (and, CLI 2.0 and earlier, <root>/<project>/agent-<id>.jsonl), and the
// stream-json dialect a headless run prints (claude -p --output-format
// stream-json --verbose), captured to a file.
//
// Lines are read with the neutral scanner (integrity.Capture for the line,
// integrity.Members for each content block). The line types and their
// schema are in schema.go, the content blocks in blocks.go, the per-line
// judgement in judge.go, the token accounting in usage.go, the per-file
// state (continuity, tool pairing, derived agent state) in state.go, the
// main transcript a subagent file reads beside it in side.go and the path
// layout in path.go.
package claudecode

import (
	"errors"
	"fmt"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Name is the format label value.
const Name = "claude-code"

// Config bounds what a file's state remembers.
type Config struct {
	// MaxTrackedIDs bounds each set of ids a file's State keeps as 64-bit
	// hashes: the uuids (the file's and, for a subagent file, its main
	// transcript's), the tool_use ids, the responses counted (message.id)
	// and the main transcript's responses. Past it continuity is no longer
	// judged (continuity_unverified) and a new response ships its whole
	// usage. Default 1<<17 (131072: a session of that many lines is a
	// transcript of about 256 MiB; about 25 MiB of state at worst).
	MaxTrackedIDs int
	// MaxMainScan bounds the bytes of the session's main transcript a
	// subagent file's state reads (SideFiles.Load) to learn the responses
	// and uuids it replays; 0 reads nothing. Default 256 MiB.
	MaxMainScan int64
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{MaxTrackedIDs: 1 << 17, MaxMainScan: 256 << 20}
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	if c.MaxTrackedIDs < 1 {
		return fmt.Errorf("claudecode: MaxTrackedIDs %d is not >= 1", c.MaxTrackedIDs)
	}
	if c.MaxMainScan < 0 {
		return errors.New("claudecode: MaxMainScan is negative")
	}
	return nil
}

// Format is the Claude Code transcript format. It is immutable and safe
// for concurrent use.
type Format struct{ cfg Config }

// New returns the format with the default configuration.
func New() *Format { return &Format{cfg: DefaultConfig()} }

// NewWith returns the format with cfg, or cfg's error.
func NewWith(cfg Config) (*Format, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Format{cfg: cfg}, nil
}

// Config returns the format's configuration.
func (f *Format) Config() Config { return f.cfg }

// Name implements format.Format.
func (*Format) Name() string { return Name }

// EventTypes implements format.Format: the line types as written
// (docs/formats/claude-code.md, event_type values).
func (*Format) EventTypes() []string { return append([]string(nil), typeNames[1:]...) }

// The format's annotation kinds (Note.Kind); docs/formats/claude-code.md,
// Annotations.
const (
	// NoteParentMissing: the line's parentUuid (or logicalParentUuid)
	// names no line seen before it; detail: that uuid.
	NoteParentMissing = "parent_missing"
	// NoteUUIDRepeat: the line's uuid was already seen in the file.
	NoteUUIDRepeat = "uuid_repeat"
	// NoteToolResultWithoutCall: a tool_result answers a tool_use id no
	// earlier line issued; detail: the id.
	NoteToolResultWithoutCall = "tool_result_without_call"
	// NoteSessionIDMismatch: the line's session id is not the file's (a
	// fork's copied history); detail: the line's.
	NoteSessionIDMismatch = "session_id_mismatch"
	// NoteAgentIDMismatch: a subagent file's line names another agentId;
	// detail: the line's.
	NoteAgentIDMismatch = "agent_id_mismatch"
	// NoteUsageRegression: a counter of a response's usage went down;
	// detail: "output 310 → 9".
	NoteUsageRegression = "usage_regression"
	// NoteResponseReplayed: the response was counted elsewhere (the main
	// transcript, or this file under another requestId).
	NoteResponseReplayed = "response_replayed"
	// NoteUsageUnverified: an assistant line judged without its file's
	// state (the state could not be rebuilt: a file past the replay bound
	// after a restart, or gone): its usage is not shipped, since nothing
	// tells what its response's other lines already counted.
	NoteUsageUnverified = "usage_unverified"
	// NoteUnknownStopReason: a stop_reason journalship does not know;
	// detail: the value.
	NoteUnknownStopReason = "unknown_stop_reason"
	// NoteContinuityUnverified: the file's ids outgrew MaxTrackedIDs on
	// this line; continuity is no longer judged for the file.
	NoteContinuityUnverified = "continuity_unverified"
)

var annotations = []string{NoteParentMissing, NoteUUIDRepeat, NoteToolResultWithoutCall,
	NoteSessionIDMismatch, NoteAgentIDMismatch, NoteUsageRegression, NoteResponseReplayed,
	NoteUsageUnverified, NoteUnknownStopReason, NoteContinuityUnverified}

// Annotations implements format.Format.
func (*Format) Annotations() []string { return append([]string(nil), annotations...) }

// The derived agent states (docs/formats/claude-code.md, Derived agent
// state).
const (
	StateIdle     = "idle"
	StateActing   = "acting"
	StateThinking = "thinking"
)

// Layouts implements format.Format.
func (*Format) Layouts() []string {
	return []string{
		"<root>/<project>/<session>.jsonl (main transcript; root: Claude Code's projects directory)",
		"<root>/<project>/<session>/subagents/agent-<agent>.jsonl (subagent transcript)",
		"<root>/<project>/agent-<agent>.jsonl (subagent transcript, CLI 2.0 and earlier)",
		"any *.jsonl whose first line is stream-json (claude -p --output-format stream-json --verbose)",
	}
}

var sniffPaths = integrity.MustPaths("type", "sessionId", "session_id")

// Sniff implements format.Format: a JSON object with a string type and a
// string sessionId, or of type summary or file-history-snapshot (which
// carry none), or a stream-json system line with a string session_id
// (docs/formats/claude-code.md, Detection).
func (*Format) Sniff(first []byte) bool {
	var c integrity.Capture
	if c.Scan(first, sniffPaths) != "" {
		return false
	}
	t, ok := c.Str(0)
	if !ok {
		return false
	}
	if c.Get(1).Kind == integrity.JSONString {
		return true
	}
	switch string(t) {
	case "summary", "file-history-snapshot":
		return true
	case "system":
		return c.Get(2).Kind == integrity.JSONString
	}
	return false
}

// Seq implements format.Format: Claude Code numbers nothing; lines are
// linked by uuid (State).
func (*Format) Seq() format.SeqRule { return format.SeqRule{Used: false} }

// Scope implements format.Format: continuity, tool pairing, usage deltas
// and the derived state need every line.
func (*Format) Scope() format.Scope { return format.ScopeAllLines }

// NewJudge implements format.Format.
func (*Format) NewJudge() format.Judge { return &judge{} }

// NewState implements format.Format.
func (f *Format) NewState(p format.Path) format.State { return newState(&f.cfg, p) }
