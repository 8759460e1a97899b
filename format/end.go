package format

import (
	"context"
	"fmt"
	"time"
)

// End is how a format's runtime says that a session or run is over:
// declared by its Descriptor, read by the verdict (package verdict).
type End uint8

// The ends.
const (
	// EndLine: a line ends the session (the judge sets Event.Ends), and
	// State.Over after every line says whether for good.
	EndLine End = iota
	// EndBeside: the runtime writes the end beside the journal (the
	// Format implements EndsBeside); its lines may show a run resumed
	// since, so State.Over, the side files loaded, decides.
	EndBeside
	// EndQuiet: the runtime writes no end record (Claude Code, Codex):
	// State.Over says the session is idle, and it is over once its files
	// stayed unchanged for the quiet period (the finalizer's StaleAfter,
	// retention's QuietPeriod); retention's post-terminal period starts
	// after that.
	EndQuiet
)

// String names the end for people.
func (e End) String() string {
	switch e {
	case EndBeside:
		return "written beside the journal"
	case EndQuiet:
		return "idle and quiet"
	}
	return "an end line"
}

// Unit is what retention deletes together, declared by a format's
// Descriptor; its Claim says it of each path (Path.Group), and the
// conformance suite checks that the two agree.
type Unit uint8

// The units.
const (
	// UnitFile: each journal alone (a run, a session), with the files
	// that are its own (Path.Companions, OwnsBeside): Path.Group is the
	// journal.
	UnitFile Unit = iota
	// UnitDirectory: the journals of a directory that ends as one (a
	// Cortex Plane job; the format is a GroupEnder), each once the group
	// has ended, then the directory once empty: Path.Group is the
	// directory.
	UnitDirectory
	// UnitSession: a main journal with its session's directory (the
	// format is a SessionDir), once every member journal is in Loki too:
	// Path.Group is the main journal.
	UnitSession
)

// String names the unit for people.
func (u Unit) String() string {
	switch u {
	case UnitDirectory:
		return "a directory of sessions (a job)"
	case UnitSession:
		return "a main journal with its session directory"
	}
	return "each journal alone"
}

// GroupState is what is known of a group of journals that ends as one (a
// Cortex Plane job, whose sessions share its directory).
type GroupState struct {
	// Terminal is true when the group is over for good (a job completed,
	// failed, cancelled, or deleted from its database).
	Terminal bool
	// Status is the status as its source spells it ("completed",
	// "RUNNING", "approval_pause", "missing", ...), for logs.
	Status string
	// FinishedAt is when the group ended; zero when unknown (retention
	// then uses the newest mtime of its files).
	FinishedAt time.Time
}

// GroupEnder is implemented by a format whose journals share a directory
// that ends as one (Path.Group is that directory): it reads the group's
// state from its journals (Cortex Plane: the latest session's last line).
type GroupEnder interface {
	// GroupEnd returns the state of the group whose directory is dir. An
	// error means it could not be read; a directory with no journal is a
	// group that has not ended.
	GroupEnd(dir string) (GroupState, error)
}

// GroupStatus is a source of group states other than the journals (the
// job database of a Cortex Plane cluster). The verdict asks it instead of
// the format's GroupEnder when one is configured.
type GroupStatus interface {
	// Group returns the state of the group whose directory is dir.
	Group(ctx context.Context, dir string) (GroupState, error)
}

// GroupError is a failure to learn a group's state. When Unreachable is
// true the source as a whole is unusable (a database that cannot be
// reached, a query the database refuses): retention then deletes nothing
// more in its sweep. Otherwise only that group is kept.
type GroupError struct {
	Source      string // "journal", "postgres"
	Group       string // the group's directory
	Unreachable bool
	Err         error
}

func (e *GroupError) Error() string {
	if e.Group == "" {
		return fmt.Sprintf("%s status: %v", e.Source, e.Err)
	}
	return fmt.Sprintf("%s status of %s: %v", e.Source, e.Group, e.Err)
}

// Unwrap returns the cause.
func (e *GroupError) Unwrap() error { return e.Err }

// Retryable is true: a source that failed may answer next time.
func (e *GroupError) Retryable() bool { return true }
