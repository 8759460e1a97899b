package cortex

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Kind is the generator as the CLI and the tests use it.
var Kind = sample.Kind{
	Format: FormatName, Title: "Cortex Plane",
	Simulated: `Cortex Plane buffers, ROOT/<job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl
(--jobs jobs a round, their sessions one after the other)`,
	Unit: "job", Units: "jobs", File: "session", DemoRoot: "sessions", MinFaults: MinFaultJobs,
	Generate: func(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
		return Generate(Config{Seed: seed, Jobs: n, Start: start.UTC(), Faults: faults,
			Models: append([]string(nil), DefaultModels...)})
	},
	Fixture: func() (*sample.Corpus, error) { return Generate(FixtureConfig()) },
	Golden:  "cortex",
	Writer:  func(f sample.File) string { return f.JobID },
	Place:   place,
	Stamp:   stamp,
}

// place names a Cortex Plane session after the time it starts:
// <job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl.
func place(f sample.File, t time.Time) string {
	return f.JobID + "/session_" + t.UTC().Format(fileNameLayout) + "_" + f.Pod + ".jsonl"
}

// stamp sets a Cortex Plane line's timestamp, its only time.
func stamp(line string, t time.Time) (string, time.Duration) {
	was, ok := sample.TimeAt(line, `"timestamp":"`)
	if !ok {
		return line, 0
	}
	return sample.Restamp(line, t), t.Sub(was)
}
