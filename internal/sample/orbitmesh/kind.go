package orbitmesh

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Kind is the generator as the CLI and the tests use it.
var Kind = sample.Kind{
	Format: FormatName, Title: "OrbitMesh",
	Simulated: `OrbitMesh message logs, ROOT/sessions/<session_id>.messages.jsonl
(--jobs sessions a round; the snapshot and token index beside
the log, <session_id>.json and .tokens.json, written when the
log is complete)`,
	Unit: "session", Units: "sessions", File: "session", DemoRoot: "orbitmesh", MinFaults: MinFaultSessions,
	Generate: func(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
		return Generate(Config{Seed: seed, Sessions: n, Start: start.UTC(), Faults: faults,
			Models: append([]string(nil), DefaultModels...)})
	},
	Fixture:       func() (*sample.Corpus, error) { return Generate(FixtureConfig()) },
	Golden:        "orbitmesh",
	SeedWithStart: true,
	Writer:        sample.BySession,
	Place:         sample.AtRel,
	Stamp:         sample.StampOwnTime(`"ts":"`),
}
