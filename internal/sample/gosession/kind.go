package gosession

import (
	"regexp"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Kind is the generator as the CLI and the tests use it.
//
// A session is a directory: one writer writes its messages.jsonl, then
// its transcript.jsonl (whose lines have no time of their own), then
// metadata.json and its checkpoints, which say the run ended, moved as
// its last timed line was.
var Kind = sample.Kind{
	Format: FormatName, Title: "Go pkg/session",
	Simulated: `Go pkg/session stores, ROOT/<session_id>/messages.jsonl, then
ROOT/<session_id>/transcript.jsonl (--jobs sessions a round;
metadata.json, which says how the run ended, and the
checkpoints written when the session's files are complete)`,
	Unit: "session", Units: "sessions", File: "journal", DemoRoot: "go-session", MinFaults: MinFaultSessions,
	Generate: func(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
		return Generate(Config{Seed: seed, Sessions: n, Start: start.UTC(), Faults: faults,
			Models: append([]string(nil), DefaultModels...)})
	},
	Fixture:       func() (*sample.Corpus, error) { return Generate(FixtureConfig()) },
	Golden:        "gosession",
	SeedWithStart: true,
	Writer:        sample.BySession,
	Place:         sample.AtRel,
	Stamp:         stamp,
	DiesWhole:     true,
}

// stamp sets a message's timestamp (RFC 3339 with nanoseconds and the
// writer's offset, as Go writes it) to t, and moves every other time in
// it by as much; an SDK message of transcript.jsonl has no time and stays
// as it is.
func stamp(line string, t time.Time) (string, time.Duration) {
	m := messageTime.FindStringSubmatch(line)
	if m == nil {
		return line, 0
	}
	was, err := time.Parse(time.RFC3339Nano, m[1])
	if err != nil {
		return line, 0
	}
	d := t.Sub(was) // to the nanosecond, as Go writes them: moving back restores the line
	return sample.ShiftTimes(line, d), d
}

// messageTime is a message's own time: its first timestamp member.
var messageTime = regexp.MustCompile(`"timestamp":"([^"]+)"`)
