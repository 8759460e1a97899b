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
	return []string{"<root>/sessions/<session_id>.messages.jsonl (beside it, read and not tailed: the session document <session_id>.json, " +
		"attempts/<session_id>/<attempt>.json, resume_tokens/<token>.json, and the plan's <session_id>.tokens.json)"}
}

// Sniff implements format.Format: a JSON object with an integer seq and a
// string kind, either as the runtime writes it (a string timestamp, one of
// the log's eight kinds and three projections) or as the plan shows it (a
// string ts, a kind in one of the families message., run., status. or
// token.).
func (*Format) Sniff(first []byte) bool {
	var c integrity.Capture
	if c.Scan(first, sniffPaths) != "" {
		return false
	}
	if _, ok := c.Int(sSeq); !ok {
		return false
	}
	k, ok := c.Str(sKind)
	if !ok {
		return false
	}
	if _, ok := c.Str(sTimestamp); ok {
		p, _ := c.Str(sProjection)
		return kindOf(k).current() && projectionOf(p)
	}
	if _, ok := c.Str(sTS); !ok {
		return false
	}
	for _, p := range []string{"message.", "run.", "status.", "token."} {
		if len(k) > len(p) && string(k[:len(p)]) == p {
			return true
		}
	}
	return false
}

var sniffPaths = integrity.MustPaths("seq", "ts", "kind", "timestamp", "projection")

const (
	sSeq = iota
	sTS
	sKind
	sTimestamp
	sProjection
)

// EndWritten implements format.EndsBeside: the latest run attempt beside
// the log has a terminal reason.
func (*Format) EndWritten(path string) bool {
	a := ReadSide(path).Attempts
	return len(a) > 0 && a[len(a)-1].TerminalReason != ""
}

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
