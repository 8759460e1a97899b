// Package orbitmesh is the OrbitMesh session log format
// (docs/formats/orbitmesh.md): <root>/sessions/<session_id>.messages.jsonl,
// an append-only log of records numbered by seq, beside two snapshots
// rewritten in place (<session_id>.json and <session_id>.tokens.json) that
// are read, never tailed.
//
// Besides the line schema the format derives the session's status (idle,
// running, waiting, interrupted_waiting, interrupted_startup) from the log
// and, when the caller gives it one, the snapshot; see State.
package orbitmesh

import (
	"errors"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Name is the format label value.
const Name = "orbitmesh"

// The format's own annotation kinds (docs/formats/orbitmesh.md,
// Annotations).
const (
	// NoteStatusDisagrees: a status.derived record states another status
	// than the rules derive at that point; the detail is the derived one.
	NoteStatusDisagrees = "status_disagrees"
	// NoteDuplicateInterrupt: a second run.interrupted for the same run.
	NoteDuplicateInterrupt = "duplicate_interrupt"
)

var annotations = []string{NoteStatusDisagrees, NoteDuplicateInterrupt}

// Config tunes the format.
type Config struct {
	// Now is the clock that wait deadlines and token expiries are compared
	// with when a State derives the current status (Derived, and lines
	// without a readable ts). Default time.Now.
	Now func() time.Time
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config { return Config{Now: time.Now} }

// Validate reports a Config the format cannot use.
func (c Config) Validate() error {
	if c.Now == nil {
		return errors.New("orbitmesh: Config.Now is nil")
	}
	return nil
}

// Format is the OrbitMesh session log. Immutable, safe for concurrent use.
type Format struct{ cfg Config }

// New returns the format with DefaultConfig.
func New() *Format { return &Format{cfg: DefaultConfig()} }

// NewWith returns the format with cfg, once validated.
func NewWith(cfg Config) (*Format, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Format{cfg: cfg}, nil
}

// Name implements format.Format.
func (*Format) Name() string { return Name }

// EventTypes implements format.Format: the record kinds of
// docs/formats/orbitmesh.md, Records. A message.<x> not listed ships as
// "other" without being an unknown type.
func (*Format) EventTypes() []string { return eventTypes }

// Annotations implements format.Format.
func (*Format) Annotations() []string { return annotations }

// Layouts implements format.Format.
func (*Format) Layouts() []string {
	return []string{"<root>/sessions/<session_id>.messages.jsonl (snapshots <session_id>.json and <session_id>.tokens.json beside it are read, not tailed)"}
}

// Sniff implements format.Format: a JSON object with an integer seq, a
// string ts and a string kind in one of the families message., run.,
// status. or token.
func (*Format) Sniff(first []byte) bool {
	var c integrity.Capture
	if c.Scan(first, sniffPaths) != "" {
		return false
	}
	if _, ok := c.Int(sSeq); !ok {
		return false
	}
	if _, ok := c.Str(sTS); !ok {
		return false
	}
	k, ok := c.Str(sKind)
	if !ok {
		return false
	}
	for _, p := range []string{"message.", "run.", "status.", "token."} {
		if len(k) > len(p) && string(k[:len(p)]) == p {
			return true
		}
	}
	return false
}

var sniffPaths = integrity.MustPaths("seq", "ts", "kind")

const (
	sSeq = iota
	sTS
	sKind
)

// Seq implements format.Format: seq rises by one per record; a file may
// start at any seq (docs/formats/orbitmesh.md, seq continuity).
func (*Format) Seq() format.SeqRule {
	return format.SeqRule{Used: true, HasStart: false, Gaps: true}
}

// Scope implements format.Format: the derived status needs every line.
func (*Format) Scope() format.Scope { return format.ScopeAllLines }

// NewJudge implements format.Format.
func (*Format) NewJudge() format.Judge { return &judge{} }

// NewState implements format.Format. It does no I/O: the caller reads the
// snapshot (ReadSnapshot) and hands it over with State.UseSnapshot.
func (f *Format) NewState(format.Path) format.State { return &State{now: f.cfg.Now} }
