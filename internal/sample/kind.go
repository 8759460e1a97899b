package sample

import "time"

// Kind is one format's generator as the rest of journalship uses it: the
// CLI's demo and simulate, and every test that needs each format's
// journals. Each generator package declares its Kind; package
// internal/sample/kinds lists them, one line each. Nothing here names a
// record type: the generators write the records, a live writer only
// moves times.
type Kind struct {
	// Format is the format label, as format/registry names it.
	Format string
	// Title is the runtime's name for people ("Claude Code").
	Title string
	// Simulated says, for journalship simulate's help, what a live writer
	// of the format writes under its root and what one round holds (lines
	// of at most 62 columns).
	Simulated string
	// Unit is what one count of a corpus is (a Cortex Plane job, a
	// Codelia run, a session), Units its plural.
	Unit, Units string
	// File is what one file holds (a session, a run, a transcript).
	File string
	// DemoRoot is the format's root under the demo's work directory.
	DemoRoot string
	// MinFaults is the fewest units a corpus with every fault scenario
	// needs.
	MinFaults int
	// Generate returns n units starting at start, with the fault
	// scenarios or clean.
	Generate func(seed int64, n int, start time.Time, faults bool) (*Corpus, error)
	// Fixture returns the corpus the tests share: every fault scenario,
	// small.
	Fixture func() (*Corpus, error)
	// Golden is the generator's directory under internal/sample when its
	// Fixture is also kept on disk, in its testdata/corpus and
	// testdata/truth.json, so that a change to what the generator writes
	// shows as a diff of those files: kinds' TestGolden keeps them equal.
	// "" when it is not.
	Golden string
	// SeedWithStart: the generator draws file names from the seed alone,
	// so a live writer mixes its round's start time into the seed, and a
	// restarted one never picks a name it already wrote.
	SeedWithStart bool
	// Writer is what a live writer writes one file after another: the
	// files with the same key (a job's sessions, a session's runs, a
	// Claude Code session's main transcript and then its subagents').
	Writer func(File) string
	// Place is the file's path under the root when its writer opens it at
	// t (a name that carries the start time or date); nil: File.Rel.
	Place func(f File, t time.Time) string
	// Stamp returns line stamped with t, and by how much its times moved.
	Stamp func(line string, t time.Time) (string, time.Duration)
	// DiesWhole: one process writes all of a session's files, so a crash
	// in any of them means no side files. Otherwise each file is its own
	// run or writer, and only a crash of the last one does.
	DiesWhole bool
}

// BySession is a Kind.Writer: the files of one session, one after the
// other.
func BySession(f File) string { return f.SessionID }

// AtRel is a Kind.Place: the file's own path.
func AtRel(f File, _ time.Time) string { return f.Rel }
