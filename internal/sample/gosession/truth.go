package gosession

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// The annotation kinds the truth expects (Line.Expect), in the order a
// line lists them: the neutral ones first, then the format's in the
// order of docs/formats/go-session.md's Continuity table.
const (
	AnnCorrupt               = sample.AnnCorrupt
	AnnSchemaInvalid         = sample.AnnSchemaInvalid
	AnnUnknownType           = sample.AnnUnknownType
	AnnDuplicateKey          = "duplicate_key"
	AnnUUIDRepeat            = "uuid_repeat"
	AnnTimestampRegression   = "timestamp_regression"
	AnnToolResultWithoutCall = "tool_result_without_call"
)

// The event types of the lines (Line.Type): a message's role, TypeOther
// for a role outside the four, TypeTranscript for every readable line of
// transcript.jsonl; "" for a corrupt line.
const (
	TypeUser       = "user"
	TypeAssistant  = "assistant"
	TypeTool       = "tool"
	TypeSystem     = "system"
	TypeOther      = "other"
	TypeTranscript = "transcript"
)

// Derived states (docs/formats/go-session.md, Derived state).
const (
	StateIdle     = "idle"
	StateActing   = "acting"
	StateThinking = "thinking"
)

// Session is the truth about one session directory, beyond its lines.
type Session struct {
	ID       string // the session id: the directory's name
	Dir      string // the directory, relative to the corpus root
	Scenario string // the scenario that wrote it (see the package doc)
	// Over: metadata.json has an exit_reason written after the newest
	// message (docs/formats/go-session.md, When a session is over).
	Over bool
	// State is the derived state at the end of messages.jsonl: the last
	// message's, idle once Over.
	State string
	// MetadataReadable: metadata.json exists and is one complete JSON
	// object. The fields below are as it states them, zero when it is
	// not readable; ExitReason may be stale (Over says whether it counts).
	MetadataReadable     bool
	ExitReason           string
	TurnCount            int
	TotalCostUSD         float64
	ParentID             string
	Model, AgentName     string
	CWD                  string
	CreatedAt, UpdatedAt time.Time
	// Checkpoints are the complete manifests, by created_at (a
	// half-written one is left out).
	Checkpoints []Checkpoint
	// Unanswered are the tool call ids messages.jsonl's assistant
	// messages issued that no tool message answers, in the order issued.
	Unanswered []string
	// Transcript: the session has a transcript.jsonl.
	Transcript bool
	// Nested: written as Goat's store writes (messages nested in
	// "message"; metadata.json named by id, the latest run's own turn
	// count and cost, created_at the run's start), else in the spec's
	// shape (flat messages; metadata named by session_id, cumulative).
	Nested bool
}

// Checkpoint is one complete checkpoints/<dir>/manifest.json.
type Checkpoint struct {
	ID    string    // checkpoint_id (seed shape) or user_message_uuid (Goat's)
	Dir   string    // the directory's name
	Time  time.Time // created_at
	Files int       // entries of files
}

// isOver applies the document's rule to a readable metadata.json: an
// exit_reason, updated_at after created_at, and updated_at not before
// the newest message timestamp.
func isOver(m *metaDoc, newest time.Time, hasNewest bool) bool {
	if m.ExitReason == "" || !m.UpdatedAt.After(m.CreatedAt) {
		return false
	}
	return !hasNewest || !m.UpdatedAt.Before(newest)
}

// fileTruth follows messages.jsonl's lines in order, as the rules of
// docs/formats/go-session.md say a reader must, from the facts the
// generator recorded of each line it wrote.
type fileTruth struct {
	model             string // the metadata's model, "" when unreadable
	seen              map[string]bool
	issued            map[string]bool
	open              []string // issued, not answered, in order
	prev, newest      time.Time
	hasPrev, hasNewer bool
	state             string
}

func newFileTruth(model string) *fileTruth {
	return &fileTruth{model: model, seen: map[string]bool{}, issued: map[string]bool{}, state: StateIdle}
}

// corrupt is the truth of a line nothing can be read of: no type, no
// state (the state goes on from the line before it), not a message for
// continuity.
func (t *fileTruth) corrupt(off int64, text string) sample.Line {
	return sample.Line{Offset: off, Text: text, Seq: -1, Corrupt: true, Expect: []string{AnnCorrupt}}
}

// line is the truth of a readable message.
func (t *fileTruth) line(off int64, text string, r *rec) sample.Line {
	known := r.role == TypeUser || r.role == TypeAssistant || r.role == TypeTool || r.role == TypeSystem
	l := sample.Line{Offset: off, Text: text, Type: r.role, Seq: -1, Valid: known && !r.invalid}
	if !known {
		l.Type = TypeOther
	}
	if r.invalid {
		l.Expect = append(l.Expect, AnnSchemaInvalid)
	}
	if !known {
		l.Expect = append(l.Expect, AnnUnknownType)
	}
	if r.dupKey {
		l.Expect = append(l.Expect, AnnDuplicateKey)
	}
	if r.uuid != "" {
		if t.seen[r.uuid] {
			l.Expect = append(l.Expect, AnnUUIDRepeat)
		}
		t.seen[r.uuid] = true
	}
	if r.hasAt {
		if t.hasPrev && r.at.Before(t.prev) {
			l.Expect = append(l.Expect, AnnTimestampRegression)
		}
		t.prev, t.hasPrev = r.at, true
		if !t.hasNewer || r.at.After(t.newest) {
			t.newest, t.hasNewer = r.at, true
		}
	}
	switch {
	case !known: // read for continuity only: no calls, no answer, no state
	case r.role == TypeTool:
		if r.answers != "" {
			if !t.issued[r.answers] {
				l.Expect = append(l.Expect, AnnToolResultWithoutCall)
			}
			t.close(r.answers)
		}
		t.state = StateThinking
	case r.role == TypeAssistant:
		for _, id := range r.calls {
			if !t.isOpen(id) {
				t.open = append(t.open, id)
			}
			t.issued[id] = true
		}
		t.state = StateIdle
		if r.entries > 0 {
			t.state = StateActing
		}
		l.Model = t.model
	case r.role == TypeUser:
		t.state = StateThinking
	}
	l.State = t.state
	return l
}

func (t *fileTruth) isOpen(id string) bool {
	for _, o := range t.open {
		if o == id {
			return true
		}
	}
	return false
}

func (t *fileTruth) close(id string) {
	for i, o := range t.open {
		if o == id {
			t.open = append(t.open[:i:i], t.open[i+1:]...)
			return
		}
	}
}
