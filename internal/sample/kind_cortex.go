package sample

import "time"

// CortexKind is the Cortex Plane generator's Kind.
var CortexKind = Kind{
	Format: FormatName, Title: "Cortex Plane",
	Simulated: `Cortex Plane buffers, ROOT/<job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl
(--jobs jobs a round, their sessions one after the other)`,
	Unit: "job", Units: "jobs", File: "session", DemoRoot: "sessions", MinFaults: MinFaultJobs,
	Generate: func(seed int64, n int, start time.Time, faults bool) (*Corpus, error) {
		return Generate(Config{Seed: seed, Jobs: n, Start: start.UTC(), Faults: faults,
			Models: append([]string(nil), DefaultModels...)})
	},
	Fixture: func() (*Corpus, error) { return Generate(FixtureConfig()) },
	Writer:  func(f File) string { return f.JobID },
	Place:   placeCortex,
	Stamp:   stampCortex,
}

// placeCortex names a Cortex Plane session after the time it starts:
// <job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl.
func placeCortex(f File, t time.Time) string {
	return f.JobID + "/session_" + t.UTC().Format(fileNameLayout) + "_" + f.Pod + ".jsonl"
}

// stampCortex sets a Cortex Plane line's timestamp, its only time.
func stampCortex(line string, t time.Time) (string, time.Duration) {
	was, ok := TimeAt(line, `"timestamp":"`)
	if !ok {
		return line, 0
	}
	return Restamp(line, t), t.Sub(was)
}
