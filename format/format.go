package format

import (
	"time"

	"github.com/journalship/journalship/integrity"
)

// Format is one journal format: how its files are laid out, how a line is
// judged, and when a session is over. Implementations are immutable and
// safe for concurrent use; the per-goroutine and per-file parts come from
// NewJudge and NewState.
type Format interface {
	// Name is the format's value of the format label: short, lower case,
	// fixed ("cortex", "codelia", …).
	Name() string
	// EventTypes are the format's values of the event_type label, a
	// bounded list. Lines of other types ship as "other", unreadable ones
	// as "corrupt".
	EventTypes() []string
	// Annotations are the format's own annotation kinds (Note.Kind).
	Annotations() []string
	// Layouts describes the default path layouts, for people ("<root>/
	// <job_id>/session_<ts>_<pod>.jsonl").
	Layouts() []string
	// Claim tells whether path is one of the format's journals and what
	// its name says. A path the format recognises but finds wrong (a
	// malformed date) is claimed with Path.Problem set.
	Claim(path string) (Path, bool)
	// Sniff tells whether a file's first line looks like this format's.
	Sniff(first []byte) bool
	// Seq is the rule the pipeline applies to Event.Seq across a file.
	Seq() SeqRule
	// NewJudge returns a judge for one goroutine.
	NewJudge() Judge
	// NewState returns the state of one file, fed lines in file order as
	// Scope says; nil when the format keeps none.
	NewState(p Path) State
	// Scope says which lines a State needs.
	Scope() Scope
}

// Scope is which lines of a file a format's State must see.
type Scope uint8

// The scopes.
const (
	// ScopeFirstLine: the first line (a header, a session start) and then
	// any lines; the pipeline reads the first line from disk when a chunk
	// does not start the file.
	ScopeFirstLine Scope = iota
	// ScopeAllLines: every line in file order; the pipeline replays the
	// file from its start when a chunk does not continue where the State
	// stopped (a retry, a restart).
	ScopeAllLines
)

// Judge judges lines of one format. Not safe for concurrent use.
type Judge interface {
	// Judge judges line (without its newline) into ev, copying what it
	// keeps into a. st is the file's state (nil when unknown or when the
	// format keeps none): Judge reads it (a header's schema version) and
	// advances it by this line.
	Judge(line []byte, st State, a *integrity.Arena, ev *Event)
}

// State is what a format remembers of one file's lines, in file order:
// headers, pairing, derived state.
type State interface {
	// Open lists what the file leaves unfinished if it ends now (a request
	// never answered), as sentences for people; nil when nothing is open.
	Open() []string
	// Over tells whether the lines so far end the session or run, and
	// whether that end is terminal.
	Over() (over, terminal bool)
	// Derived is the state derived from the lines so far ("" when the
	// format derives none).
	Derived() string
}

// SideFiles is implemented by a State that also reads files beside the
// journal (snapshots rewritten in place). The pipeline calls Load when it
// starts the file's state; Load must treat an absent, half-written or
// invalid side file as unknown, never fail.
type SideFiles interface {
	Load(journalPath string)
}

// SessionDir is implemented by a format whose session is a main journal
// and a directory beside it (Claude Code: <session>.jsonl and <session>/,
// which holds its subagents' journals). The member journals' Path.Group
// is the main journal's path; retention deletes the directory's files with
// the main journal, and only when every member journal is in Loki too.
type SessionDir interface {
	// SessionDir returns the directory that belongs to the main journal at
	// path; ok is false when path is no main journal.
	SessionDir(path string) (dir string, ok bool)
}

// Withdrawer is implemented by a State that counts something once per
// file across lines (Claude Code's usage per response): the pipeline
// calls Withdraw right after judging a line it will not ship (longer than
// it may send), so that what the line counted is counted by a later line
// instead of nowhere.
type Withdrawer interface {
	// Withdraw undoes what the last judged line counted.
	Withdraw()
}

// Refuser is implemented by a format that knows paths which are never its
// journals whatever their first line says (another runtime's files that
// look alike, beside its own): content detection does not pick it for
// them.
type Refuser interface {
	// Refuses tells whether path is never one of the format's journals.
	Refuses(path string) bool
}

// SeqRule is how a format numbers its lines with Event.Seq.
type SeqRule struct {
	// Used: the format numbers lines; with false Event.Seq is never judged.
	Used bool
	// Start is the seq of the first numbered line of a file, when
	// HasStart; otherwise the first line may carry any seq.
	Start    int64
	HasStart bool
	// Gaps: each line is one past the one before, and a gap means lines
	// were lost. With false only repeats and regressions are annotated.
	Gaps bool
}

// Integrity returns the rule as integrity judges a line's seq by it, and
// whether the format numbers its lines at all.
func (r SeqRule) Integrity() (rule integrity.SeqRule, used bool) {
	return integrity.SeqRule{Start: r.Start, HasStart: r.HasStart, Gaps: r.Gaps}, r.Used
}

// StartState returns the state of a file of format f whose path says p,
// as every reader of a whole file starts it: with the side files beside
// journalPath loaded (SideFiles); "" loads none (a stream read from
// elsewhere). nil when the format keeps no state.
func StartState(f Format, p Path, journalPath string) State {
	st := f.NewState(p)
	if sf, ok := st.(SideFiles); ok && journalPath != "" {
		sf.Load(journalPath)
	}
	return st
}

// Path is what a journal's path says.
type Path struct {
	Format    string // the format that claimed it
	JobID     string
	SessionID string
	RunID     string
	Pod       string
	// AgentID is the agent whose journal the file is, when the path says
	// (a Claude Code subagent transcript, agent-<id>.jsonl).
	AgentID string
	Started time.Time // when the session began, when the name says
	// Group is the path retention deletes together with the file: the
	// file itself, or a session directory.
	Group string
	// Companions are files beside the journal that belong to it alone
	// (snapshots rewritten in place): never tailed, deleted with it.
	Companions []string
	// Problem says what is wrong with a path the format claimed ("" when
	// nothing is).
	Problem string
}

// Rereader is implemented by a format whose runtime reads its own journal
// back (to resume a session). verify reads each line that way too, beside
// the shipper's judgement, and reports where the two disagree.
type Rereader interface {
	// Reread reads a trimmed, non-empty line as the runtime's reader does;
	// accepted tells whether the shipper's judge accepted the line (not
	// corrupt). reason is "" when the reader accepts the line, else why it
	// refuses it; notJSON: the refusal is its JSON parser's. view is the
	// bytes the reader sees: the line, or a copy it repaired (invalid UTF-8
	// replaced, as a JavaScript runtime's decoder does).
	Reread(line []byte, accepted bool) (view []byte, reason string, notJSON bool)
}
