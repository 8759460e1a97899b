package codelia

import (
	"path"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Kind is the generator as the CLI and the tests use it.
var Kind = sample.Kind{
	Format: FormatName, Title: "Codelia",
	Simulated: `Codelia run records, ROOT/sessions/YYYY/MM/DD/<run_id>.jsonl
(--jobs runs a round, a session's runs one after the other;
the session's state snapshot, ROOT/sessions/state/<session_id>.json,
written when its last run is complete)`,
	Unit: "run", Units: "runs", File: "run", DemoRoot: "codelia", MinFaults: MinFaultRuns,
	Generate: func(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
		return Generate(Config{Seed: seed, Runs: n, Start: start.UTC(), Faults: faults,
			Models: append([]string(nil), DefaultModels...)})
	},
	Fixture:       func() (*sample.Corpus, error) { return Generate(FixtureConfig()) },
	Golden:        "codelia",
	SeedWithStart: true,
	Writer:        sample.BySession,
	Place:         place,
	// A record's own time is its ts, a header's started_at (it has none).
	Stamp: sample.StampOwnTime(`"ts":"`, `"started_at":"`),
}

// place files a run under the UTC date it starts, which Stamp makes its
// header's started_at: sessions/YYYY/MM/DD/<run_id>.jsonl.
func place(f sample.File, t time.Time) string {
	return "sessions/" + t.UTC().Format("2006/01/02") + "/" + path.Base(f.Rel)
}
