// Package codex is the OpenAI Codex CLI rollout format
// (docs/formats/codex.md): $CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-<time>-<uuid>.jsonl, the same names in archived_sessions/ and,
// for CLIs up to 0.7, directly in sessions/.
//
// A rollout is written in one of two dialects: the envelope
// ({"timestamp","type","payload"}, CLI 0.32 and later) and the legacy
// dialect of earlier CLIs (a header line, then bare response items and
// {"record_type":"state"} lines). Lines are read with the neutral scanner
// (integrity.Capture). The line types and their schema are in schema.go,
// the per-line judgement in judge.go, the token accounting in usage.go,
// the per-file state (call pairing, derived agent state, the model) in
// state.go and the path layout in path.go.
package codex

import (
	"fmt"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Name is the format label value.
const Name = "codex"

// Config bounds what a file's state remembers.
type Config struct {
	// MaxTrackedIDs bounds the call ids a file's State keeps as 64-bit
	// hashes (for pairing calls with their outputs). Past it an output
	// whose call is not known is no longer annotated. Default 1<<17.
	MaxTrackedIDs int
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config { return Config{MaxTrackedIDs: 1 << 17} }

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	if c.MaxTrackedIDs < 1 {
		return fmt.Errorf("codex: MaxTrackedIDs %d is not >= 1", c.MaxTrackedIDs)
	}
	return nil
}

// Format is the Codex rollout format. It is immutable and safe for
// concurrent use.
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

// EventTypes implements format.Format: the line types, and for
// response_item and event_msg lines their payload types
// (docs/formats/codex.md, event_type values).
func (*Format) EventTypes() []string { return append([]string(nil), eventNames[1:]...) }

// The format's annotation kinds (Note.Kind); docs/formats/codex.md,
// Annotations.
const (
	// NoteToolResultWithoutCall: an output answers a call_id no earlier
	// line of the file issued; detail: the id.
	NoteToolResultWithoutCall = "tool_result_without_call"
	// NoteCallIDRepeat: a call reuses a call_id an earlier line issued;
	// detail: the id.
	NoteCallIDRepeat = "call_id_repeat"
	// NoteSessionIDMismatch: a session_meta names another session than
	// the file's (history a fork or a sub-agent copied); detail: its id.
	NoteSessionIDMismatch = "session_id_mismatch"
	// NotePayloadTypeUnknown: a response_item or event_msg payload type
	// journalship does not know (newer runtimes add them); the line is
	// valid and ships as "other"; detail: the type.
	NotePayloadTypeUnknown = "payload_type_unknown"
	// NoteUsageBaseline: a file's first token usage states totals beyond
	// its last response (counted elsewhere): only the last response
	// ships.
	NoteUsageBaseline = "usage_baseline"
	// NoteUsageReset: the running totals went down (a CLI before 0.78
	// resumed, or the context window was filled): the last response
	// ships, if it used any; detail: "input 1355071 → 37208".
	NoteUsageReset = "usage_reset"
	// NoteUsageInconsistent: the totals grew by other than the last
	// response's usage (a line lost between): the growth ships.
	NoteUsageInconsistent = "usage_inconsistent"
	// NoteUsageUnverified: a token_count judged without its file's state:
	// nothing tells what the lines before it counted, so nothing ships.
	NoteUsageUnverified = "usage_unverified"
	// NoteModelUnknown: usage ships before any turn_context named the
	// model: it cannot be priced.
	NoteModelUnknown = "model_unknown"
)

var annotations = []string{NoteToolResultWithoutCall, NoteCallIDRepeat, NoteSessionIDMismatch,
	NotePayloadTypeUnknown, NoteUsageBaseline, NoteUsageReset, NoteUsageInconsistent,
	NoteUsageUnverified, NoteModelUnknown}

// Annotations implements format.Format.
func (*Format) Annotations() []string { return append([]string(nil), annotations...) }

// The derived agent states (docs/formats/codex.md, Derived agent state).
const (
	StateIdle     = "idle"
	StateActing   = "acting"
	StateThinking = "thinking"
)

// Layouts implements format.Format.
func (*Format) Layouts() []string {
	return []string{
		"<root>/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<session>.jsonl (root: $CODEX_HOME, ~/.codex)",
		"<root>/archived_sessions/rollout-YYYY-MM-DDThh-mm-ss-<session>.jsonl (an archived session)",
		"<root>/sessions/rollout-YYYY-MM-DDThh-mm-ss-<session>.jsonl (CLI 0.7 and earlier)",
	}
}

var sniffPaths = integrity.MustPaths("type", "payload", "payload.id", "id", "timestamp")

// Sniff implements format.Format: a session_meta line with a payload
// whose id is a string, or a legacy header: no type, a uuid id (the
// thread's; any log's first line may have some other id) and a string
// timestamp (docs/formats/codex.md, Detection).
func (*Format) Sniff(first []byte) bool {
	var c integrity.Capture
	if c.Scan(first, sniffPaths) != "" {
		return false
	}
	if !c.Has(0) {
		return c.IsUUID(3) && c.Get(4).Kind == integrity.JSONString
	}
	t, ok := c.Str(0)
	return ok && string(t) == "session_meta" && c.Get(1).Kind == integrity.JSONObject &&
		c.Get(2).Kind == integrity.JSONString
}

// Seq implements format.Format: Codex numbers no line.
func (*Format) Seq() format.SeqRule { return format.SeqRule{Used: false} }

// Scope implements format.Format: call pairing, the model, the token
// totals and the derived state need every line.
func (*Format) Scope() format.Scope { return format.ScopeAllLines }

// NewJudge implements format.Format.
func (*Format) NewJudge() format.Judge { return &judge{} }

// NewState implements format.Format.
func (f *Format) NewState(p format.Path) format.State { return newState(&f.cfg, p) }
