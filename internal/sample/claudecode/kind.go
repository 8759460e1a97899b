package claudecode

import (
	"encoding/json"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Kind is the generator as the CLI and the tests use it.
//
// A session is its main transcript and its subagents' transcripts, all
// with its SessionID: one writer writes them in the corpus's order (the
// main transcript, then each subagent's), so a subagent file's state
// finds the main transcript complete when it starts. The sidecars in the
// session's directory (agent-<id>.meta.json) come once the session's
// last file is complete.
var Kind = sample.Kind{
	Format: FormatName, Title: "Claude Code",
	Simulated: `Claude Code transcripts under Claude Code's projects directory:
ROOT/<project>/<session>.jsonl and its subagents'
ROOT/<project>/<session>/subagents/agent-<id>.jsonl (a 2.0 CLI's:
ROOT/<project>/agent-<id>.jsonl) (--jobs sessions a round, a
session's main transcript, then its subagents' one after the
other; their agent-<id>.meta.json sidecars written when the
session's last transcript is complete; no end record: a
session is over once idle and quiet)`,
	Unit: "session", Units: "sessions", File: "transcript", DemoRoot: "claude/projects", MinFaults: MinFaultSessions,
	Generate: func(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
		return Generate(Config{Seed: seed, Sessions: n, Start: start.UTC(), Faults: faults,
			Models: append([]string(nil), DefaultModels...)})
	},
	Fixture:       func() (*sample.Corpus, error) { return Generate(FixtureConfig()) },
	Golden:        "claudecode",
	SeedWithStart: true,
	Writer:        sample.BySession,
	Place:         sample.AtRel,
	Stamp:         stampLine,
}

// stampLine sets a line's own time (ownTime) to t and moves every other time
// it holds by as much (the time of a subagent message an agent_progress
// line embeds, a file backup's backupTime). A line without a time of its
// own (summary, custom-title and the other metadata lines) stays as it is.
func stampLine(line string, t time.Time) (string, time.Duration) {
	was, ok := ownTime(line)
	if !ok {
		return line, 0
	}
	return sample.MoveTimes(line, was, t)
}

// ownTime is a line's own time: its top-level timestamp, or a
// file-history-snapshot's snapshot.timestamp. Not the first "timestamp"
// key of the line: an agent_progress line embeds the subagent's message,
// with its time, before its own.
func ownTime(line string) (time.Time, bool) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &top); err != nil {
		return sample.TimeAt(line, `"timestamp":"`) // not a JSON object: its first timestamp, if any
	}
	raw, ok := top["timestamp"]
	if !ok {
		var snap map[string]json.RawMessage
		if json.Unmarshal(top["snapshot"], &snap) != nil {
			return time.Time{}, false
		}
		raw = snap["timestamp"]
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return time.Time{}, false
	}
	t, err := time.Parse(sample.TimestampLayout, s)
	return t, err == nil
}
