// Package gosession is the Go pkg/session store format of Goat
// (github.com/jg-phare/goat; docs/formats/go-session.md): one directory
// per session, <base>/<session id>/, holding two append-only journals,
// messages.jsonl (the conversation, one chat message per line) and
// transcript.jsonl (the SDK messages, for replay), beside metadata.json
// (rewritten in place, read, never tailed) and checkpoints/<id>/
// manifest.json (read once).
//
// Lines are read with the neutral scanner (integrity.Capture): the schema
// of a message is in schema.go, the per-line judgement in judge.go, the
// per-file continuity (repeated uuids, timestamps going back, tool results
// without their call), the derived state and the session's end in
// state.go, the path layout in path.go. The side files are read by
// ReadMetadata (metadata.go) and Checkpoints (checkpoint.go); the summary
// entry and the checkpoint entries built from them are the finalizer's.
package gosession

import (
	"fmt"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Name is the format label value.
const Name = "go-session"

// The event_type values (docs/formats/go-session.md, In Loki). A message
// ships as its role, a transcript line as TypeTranscript; TypeMetadata
// (the summary entry) and TypeCheckpoint (one entry per manifest) are
// shipped by the finalizer from ReadMetadata and Checkpoints.
const (
	TypeUser       = "user"
	TypeAssistant  = "assistant"
	TypeTool       = "tool"
	TypeSystem     = "system"
	TypeTranscript = "transcript"
	TypeMetadata   = "metadata"
	TypeCheckpoint = "checkpoint"
)

var eventTypes = []string{TypeUser, TypeAssistant, TypeTool, TypeSystem, TypeTranscript, TypeMetadata, TypeCheckpoint}

// The format's own annotation kinds (docs/formats/go-session.md,
// Annotations). The judge sets the first three on lines; the other two go
// on the summary entry (SideRecords).
const (
	// NoteUUIDRepeat: a message's uuid was already seen in the file.
	NoteUUIDRepeat = "uuid_repeat"
	// NoteTimestampRegression: a message's timestamp is before the
	// previous message's (detail: the previous timestamp, as written).
	NoteTimestampRegression = "timestamp_regression"
	// NoteToolResultWithoutCall: a tool message answers a call no earlier
	// assistant message of the file issued (detail: the tool_call_id).
	NoteToolResultWithoutCall = "tool_result_without_call"
	// NoteMetadataIDMismatch: metadata.json names another session than its
	// directory (the summary's session_id is the directory's; the
	// metadata's is not shipped); see Metadata.IDMismatch.
	NoteMetadataIDMismatch = "metadata_id_mismatch"
	// NoteCostIncludesParent: a fork's first summary ships a cost that
	// includes its source's (parent_session_id in the entry names it).
	NoteCostIncludesParent = "cost_includes_parent"
	// NoteCostInParent: a subagent's summary; its total_cost_usd is the
	// cost tracker it shares with its parent's run, counted in the
	// parent's summary, so it adds nothing (subagent_of in the entry
	// names the parent session).
	NoteCostInParent = "cost_in_parent"
)

var annotations = []string{NoteUUIDRepeat, NoteTimestampRegression, NoteToolResultWithoutCall,
	NoteMetadataIDMismatch, NoteCostIncludesParent, NoteCostInParent}

// The derived states of a messages.jsonl (docs/formats/go-session.md,
// Derived state).
const (
	StateIdle     = "idle"
	StateThinking = "thinking"
	StateActing   = "acting"
)

// The defaults of Config.
const (
	DefaultMaxTrackedIDs    = 1 << 20
	DefaultMaxOpenCalls     = 1024
	DefaultMaxMetadataBytes = 1 << 20
	DefaultMaxParentScan    = 64 << 20
)

// Config bounds what a file's state remembers and what the side files may
// weigh.
type Config struct {
	// MaxTrackedIDs bounds the message uuids, and apart the tool call ids,
	// a file's state remembers (as 8-byte hashes); past it new ones are not
	// checked: no uuid_repeat, no tool_result_without_call for them.
	// Default 1 048 576.
	MaxTrackedIDs int
	// MaxOpenCalls bounds the unanswered tool calls a file's state keeps
	// with their id and name for Open; past it they are only counted.
	// Default 1024.
	MaxOpenCalls int
	// MaxMetadataBytes bounds metadata.json and checkpoint manifests: a
	// larger file is unknown. Default 1 MiB.
	MaxMetadataBytes int64
	// MaxParentScanBytes bounds the bytes of the sibling sessions'
	// messages.jsonl read, once per run summary, to find a subagent's
	// parent (ParentOf). Default 64 MiB.
	MaxParentScanBytes int64
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{MaxTrackedIDs: DefaultMaxTrackedIDs, MaxOpenCalls: DefaultMaxOpenCalls,
		MaxMetadataBytes: DefaultMaxMetadataBytes, MaxParentScanBytes: DefaultMaxParentScan}
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	switch {
	case c.MaxTrackedIDs < 1:
		return fmt.Errorf("go-session: MaxTrackedIDs %d is not >= 1", c.MaxTrackedIDs)
	case c.MaxOpenCalls < 1:
		return fmt.Errorf("go-session: MaxOpenCalls %d is not >= 1", c.MaxOpenCalls)
	case c.MaxMetadataBytes < 1:
		return fmt.Errorf("go-session: MaxMetadataBytes %d is not >= 1", c.MaxMetadataBytes)
	case c.MaxParentScanBytes < 0:
		return fmt.Errorf("go-session: MaxParentScanBytes %d is not >= 0", c.MaxParentScanBytes)
	}
	return nil
}

// Format is the Go pkg/session store. Immutable, safe for concurrent use.
type Format struct{ cfg Config }

// New returns the format with DefaultConfig.
func New() *Format { return &Format{cfg: DefaultConfig()} }

// NewWith returns the format with cfg, or cfg's error.
func NewWith(cfg Config) (*Format, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Format{cfg: cfg}, nil
}

// Config returns the format's configuration (for reading the side files
// with its MaxMetadataBytes).
func (f *Format) Config() Config { return f.cfg }

// Name implements format.Format.
func (*Format) Name() string { return Name }

// EventTypes implements format.Format.
func (*Format) EventTypes() []string { return append([]string(nil), eventTypes...) }

// Annotations implements format.Format.
func (*Format) Annotations() []string { return append([]string(nil), annotations...) }

// Layouts implements format.Format.
func (*Format) Layouts() []string {
	return []string{"<root>/<session_id>/messages.jsonl (the conversation; root: the store's base directory; " +
		"metadata.json and checkpoints/<id>/manifest.json beside it are read, not tailed)",
		"<root>/<session_id>/transcript.jsonl (SDK messages for replay)"}
}

// Seq implements format.Format: the store numbers nothing.
func (*Format) Seq() format.SeqRule { return format.SeqRule{Used: false} }

// Scope implements format.Format: continuity and the derived state need
// every line.
func (*Format) Scope() format.Scope { return format.ScopeAllLines }

// NewJudge implements format.Format.
func (*Format) NewJudge() format.Judge { return &judge{} }

// NewState implements format.Format. The state does no I/O until Load
// (format.SideFiles) tells it its journal: which of the two it is and the
// metadata.json beside it. Without Load each line is judged as what its
// content says (a top-level role: a message; else a transcript line) and
// the session is never over.
func (f *Format) NewState(p format.Path) format.State { return newState(&f.cfg, p) }

// Sniff implements format.Format: a message (a JSON object with a string
// role among user, assistant, tool and system and a non-empty string uuid;
// or, as Goat's store writes it, a non-empty string uuid, a timestamp and
// that role nested in "message", without a top-level role or type) or an
// SDK message (a string type among the Agent SDK's message types,
// with a string session_id or uuid, and without Claude Code's transcript
// envelope, sessionId or parentUuid). Codelia, OrbitMesh and Cortex Plane
// lines have none of these shapes; a Claude Code stream-json capture has
// the second (Goat writes the same SDK messages): the path decides.
func (*Format) Sniff(first []byte) bool {
	var c integrity.Capture
	if c.Scan(first, sniffPaths) != "" {
		return false
	}
	if role, ok := c.Str(sRole); ok && roleOf(role) != rOther {
		uuid, ok := c.Str(sUUID)
		return ok && len(uuid) > 0
	}
	if role, ok := c.Str(sMessageRole); ok && roleOf(role) != rOther && !c.Has(sRole) && !c.Has(sType) {
		uuid, ok := c.Str(sUUID)
		return ok && len(uuid) > 0 && c.Has(sTimestamp)
	}
	typ, ok := c.Str(sType)
	if !ok || !sdkType(typ) || c.Has(sSessionIDCamel) || c.Has(sParentUUID) {
		return false
	}
	_, sid := c.Str(sSessionID)
	_, uuid := c.Str(sUUID)
	return sid || uuid
}

var sniffPaths = integrity.MustPaths("role", "uuid", "type", "session_id", "sessionId", "parentUuid",
	"message.role", "timestamp")

const (
	sRole = iota
	sUUID
	sType
	sSessionID
	sSessionIDCamel
	sParentUUID
	sMessageRole
	sTimestamp
)

// sdkTypes are the Claude Agent SDK's message types, which Goat mirrors.
var sdkTypes = []string{"system", "assistant", "user", "result", "stream_event",
	"tool_progress", "tool_use_summary", "auth_status"}

func sdkType(t []byte) bool {
	for _, s := range sdkTypes {
		if string(t) == s {
			return true
		}
	}
	return false
}
