// Package codelia is the Codelia session store format
// (docs/formats/codelia.md): one file per run,
// <root>/sessions/YYYY/MM/DD/<run_id>.jsonl, opened by a header record and
// followed by run.*, llm.*, tool.output and agent.event records.
//
// Lines are read with the neutral scanner (integrity.Capture); the schema
// of each record type is in schema.go, the per-line judgement in judge.go,
// the per-file continuity (header, invocation pairing, event order, the
// run's end) in state.go and the path layout in path.go.
package codelia

import (
	"errors"
	"fmt"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Name is the format label value.
const Name = "codelia"

// Config selects what the format accepts and how much a file's state may
// remember.
type Config struct {
	// KnownSchemaVersions are the header schema_version values judged
	// strictly; a file declaring any other version is judged best-effort
	// (docs/formats/codelia.md, Header and schema versions). Default: [1].
	KnownSchemaVersions []int64
	// MaxOpenRequests bounds the unanswered llm.requests a file's state
	// tracks by seq; beyond it they are only counted
	// (docs/formats/codelia.md, Continuity). Default: 1024.
	MaxOpenRequests int
}

// DefaultConfig returns the configuration for schema version 1.
func DefaultConfig() Config {
	return Config{KnownSchemaVersions: []int64{1}, MaxOpenRequests: 1024}
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	if len(c.KnownSchemaVersions) == 0 {
		return errors.New("codelia: at least one known schema version is required")
	}
	for _, v := range c.KnownSchemaVersions {
		if v < 1 {
			return fmt.Errorf("codelia: schema version %d is not >= 1", v)
		}
	}
	if c.MaxOpenRequests < 1 {
		return fmt.Errorf("codelia: MaxOpenRequests %d is not >= 1", c.MaxOpenRequests)
	}
	return nil
}

// known tells whether a schema version is judged strictly.
func (c *Config) known(v int64) bool {
	for _, k := range c.KnownSchemaVersions {
		if k == v {
			return true
		}
	}
	return false
}

// Format is the Codelia session store. It is immutable and safe for
// concurrent use.
type Format struct{ cfg Config }

// New returns the format with the default configuration.
func New() *Format { return &Format{cfg: DefaultConfig()} }

// NewWith returns the format with cfg, or cfg's error.
func NewWith(cfg Config) (*Format, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.KnownSchemaVersions = append([]int64(nil), cfg.KnownSchemaVersions...)
	return &Format{cfg: cfg}, nil
}

// Name implements format.Format.
func (*Format) Name() string { return Name }

// EventTypes implements format.Format: the record types as written
// (docs/formats/codelia.md, In Loki).
func (*Format) EventTypes() []string { return append([]string(nil), typeNames[1:]...) }

// The format's annotation kinds (Note.Kind); docs/formats/codelia.md,
// Annotations.
const (
	NoteHeaderMissing          = "header_missing"
	NoteHeaderMisplaced        = "header_misplaced"
	NoteSchemaVersionUnknown   = "schema_version_unknown"
	NoteRunIDMismatch          = "run_id_mismatch"
	NoteFileNameMismatch       = "file_name_mismatch"
	NoteDateMismatch           = "date_mismatch"
	NoteRequestSeqGap          = "request_seq_gap"
	NoteRequestSeqRepeat       = "request_seq_repeat"
	NoteRequestSeqRegression   = "request_seq_regression"
	NoteResponseWithoutRequest = "response_without_request"
	NoteEventSeqRepeat         = "event_seq_repeat"
	NoteEventSeqRegression     = "event_seq_regression"
	NoteUnknownStatus          = "unknown_status"
	NoteUnknownOutcome         = "unknown_outcome"
	NoteUnknownInputType       = "unknown_input_type"
)

// Annotations implements format.Format.
func (*Format) Annotations() []string {
	return []string{NoteHeaderMissing, NoteHeaderMisplaced, NoteSchemaVersionUnknown,
		NoteRunIDMismatch, NoteFileNameMismatch, NoteDateMismatch,
		NoteRequestSeqGap, NoteRequestSeqRepeat, NoteRequestSeqRegression,
		NoteResponseWithoutRequest, NoteEventSeqRepeat, NoteEventSeqRegression,
		NoteUnknownStatus, NoteUnknownOutcome, NoteUnknownInputType}
}

// Layouts implements format.Format.
func (*Format) Layouts() []string {
	return []string{"<root>/sessions/YYYY/MM/DD/<run_id>.jsonl (root ~/.codelia; sessions/state/ is not read)"}
}

// Sniff implements format.Format: a JSON object that is a header with an
// integer schema_version and a run_id, or a record of another known type
// with a run_id (docs/formats/codelia.md, Detection).
func (f *Format) Sniff(first []byte) bool {
	j := f.newJudge()
	var a integrity.Arena
	var ev format.Event
	j.Judge(first, nil, &a, &ev)
	if ev.Outcome == integrity.Corrupt || ev.EventType == "" || len(ev.RunID) == 0 {
		return false
	}
	return ev.EventType != typeNames[tHeader] || ev.HasSchemaVersion
}

// Seq implements format.Format: no generic sequence; the format judges its
// own two sequences in State (docs/formats/codelia.md, Continuity).
func (*Format) Seq() format.SeqRule { return format.SeqRule{Used: false} }

// Scope implements format.Format: continuity needs every line.
func (*Format) Scope() format.Scope { return format.ScopeAllLines }

// NewJudge implements format.Format.
func (f *Format) NewJudge() format.Judge { return f.newJudge() }

func (f *Format) newJudge() *judge { return &judge{cfg: &f.cfg} }

// NewState implements format.Format.
func (f *Format) NewState(p format.Path) format.State { return newState(&f.cfg, p) }
