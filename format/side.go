package format

import "time"

// EndsBeside is implemented by a format whose runtime writes a session's
// end beside its journals, not as a line (Go pkg/session: exit_reason in
// metadata.json). The finalizer asks it, cheaply, before it judges the
// whole file to learn whether the session is over (State.Over after every
// line, the side files loaded).
type EndsBeside interface {
	// EndWritten tells whether the side files of the journal at path say
	// a run ended (the lines may still show it resumed since).
	EndWritten(path string) bool
}

// EndReasoner is implemented by the State of a format whose end is
// written beside the journal (EndsBeside): how the session ended, "" while
// it is not over. verify reports it as a line's end reason would be.
type EndReasoner interface {
	EndReason() string
}

// SideRecords is implemented by a format whose runtime keeps records
// beside its journals that ship as entries of their own (Go pkg/session:
// checkpoint manifests, and metadata.json's summary once a run ends). The
// finalizer asks on each pass over a session's main journal (a journal
// that is its own Path.Group), finished or not, and ships the records;
// marks are what the ledger keeps for the session between passes, and
// next, stored once the records are in Loki, are the marks to set.
type SideRecords interface {
	// SideRecords returns the records of the session of the main journal
	// at path that marks do not show shipped. over tells whether the
	// journal's lines and side files say the session is over now (it reads
	// the whole file: called only when a summary may be due). A side file
	// that cannot be read now (half rewritten) yields no record: the next
	// pass tries again.
	SideRecords(path string, over func() bool, marks Marks) (recs []SideRecord, next Marks)
}

// Marks are short facts a format keeps for one session between the
// finalizer's passes: which checkpoints were shipped, the cost counted so
// far. Names and values are the format's.
type Marks map[string]string

// SideRecord is one entry a format builds from a side file.
type SideRecord struct {
	// EventType is one of the format's EventTypes.
	EventType string
	Role      Role
	Time      time.Time
	// Line is the entry's text, a JSON object.
	Line []byte
	// Annotations are annotation kinds: neutral ones or the format's.
	Annotations []string
	// Model and EndReason ship as the lines' model and end_reason do.
	Model, EndReason string
	// CostUSD, when HasCost, is what the record adds to the session's
	// cost (a summary's growth since the session's previous one), shipped
	// as cost_usd, attributed to Model.
	CostUSD float64
	HasCost bool
	// ReportedCostUSD, when HasReported, is a cost the runtime states (a
	// cumulative total): shipped as reported_cost_usd, never summed.
	ReportedCostUSD float64
	HasReported     bool
}

// OwnsBeside is implemented by a format whose session keeps files beside
// its journal that only reading them tells apart (OrbitMesh: one file per
// run attempt in a directory of the session's, resume tokens in a
// directory every session shares, each naming its session inside).
// Retention deletes them right after it deleted the journal.
type OwnsBeside interface {
	// Beside returns the files that belong to the journal at path alone
	// and are done with at now, to delete with it, and the directories to
	// remove once they are empty (deepest first).
	Beside(path string, now time.Time) (files, dirs []string)
}
