package orbitmesh

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Kind is the generator as the CLI and the tests use it.
var Kind = sample.Kind{
	Format: FormatName, Unit: "session", Units: "sessions", File: "session", DemoRoot: "orbitmesh", MinFaults: MinFaultSessions,
	Generate: func(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
		return Generate(Config{Seed: seed, Sessions: n, Start: start.UTC(), Faults: faults,
			Models: append([]string(nil), DefaultModels...)})
	},
	Fixture:       func() (*sample.Corpus, error) { return Generate(FixtureConfig()) },
	SeedWithStart: true,
	Writer:        sample.BySession,
	Place:         sample.AtRel,
	Stamp:         sample.StampOwnTime(`"ts":"`),
}
