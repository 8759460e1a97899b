package codex

import (
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Kind is the generator as the CLI and the tests use it: one rollout per
// session, named after the time its writer opens it.
var Kind = sample.Kind{
	Format: FormatName, Title: "Codex CLI",
	Simulated: `Codex CLI rollouts under a Codex home:
ROOT/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl (--jobs
sessions a round, each one file; no end record: a session is
over once idle and quiet)`,
	Unit: "session", Units: "sessions", File: "rollout", DemoRoot: "codex", MinFaults: MinFaultSessions,
	Generate: func(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
		return Generate(Config{Seed: seed, Sessions: n, Start: start.UTC(), Faults: faults,
			Models: append([]string(nil), DefaultModels...)})
	},
	Fixture: func() (*sample.Corpus, error) { return Generate(FixtureConfig()) },
	Writer:  sample.BySession,
	Place:   place,
	Stamp:   stampLine,
}

// place names the rollout after the time its writer opens it, as Codex
// does: sessions/YYYY/MM/DD/rollout-<t>-<id>.jsonl.
func place(f sample.File, t time.Time) string {
	if !strings.HasPrefix(f.Rel, "sessions/") || f.SessionID == "" {
		return f.Rel
	}
	return rel(t, f.SessionID)
}

// stampLine sets a line's time (its top-level timestamp, the first in
// the line) to t and moves every other time it holds (a session_meta's
// start) by as much. A line without one stays as it is.
func stampLine(line string, t time.Time) (string, time.Duration) {
	was, ok := sample.TimeAt(line, `"timestamp":"`)
	if !ok {
		return line, 0
	}
	return sample.MoveTimes(line, was, t)
}
