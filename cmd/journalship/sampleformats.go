package main

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/claudecode"
	"github.com/journalship/journalship/internal/sample/codelia"
	"github.com/journalship/journalship/internal/sample/gosession"
	"github.com/journalship/journalship/internal/sample/orbitmesh"
)

// sampleFormat is one journal format that `simulate` and `demo` write:
// its generator (internal/sample and its subpackages) and what a live
// writer needs to know about its files. Nothing here names a record type:
// the generators write the records, the simulator only moves times.
type sampleFormat struct {
	name      string // the format label, as format/registry names it
	unit      string // what one count of --jobs is (a Cortex Plane job, a Codelia run, ...)
	units     string
	file      string // what one file holds (a Cortex Plane session, a Codelia run, a Claude Code transcript, ...)
	demoRoot  string // the format's root under the demo's work directory
	minFaults int    // the fewest units a corpus with every fault scenario needs
	// generate returns n units starting at start, with the fault scenarios
	// (the demo) or clean (the simulator, which adds crashes of its own).
	generate func(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error)
	// seedWithStart: the generator draws file names from the seed alone,
	// so the simulator mixes the round's start time into the seed, and a
	// restarted simulator never picks a name it already wrote.
	seedWithStart bool
	// writer is what a live writer writes one file after another: the
	// files with the same key (a job's sessions, a session's runs, a
	// Claude Code session's main transcript and then its subagents').
	writer func(sample.File) string
	// place is the file's path under the root when its writer opens it at
	// t (Cortex Plane and Codelia paths carry the start time or date).
	place func(f sample.File, t time.Time) string
	// stamp returns line stamped with t, and by how much its times moved.
	stamp func(line string, t time.Time) (string, time.Duration)
	// diesWhole: one process writes all of a session's files, so a crash
	// in any of them means no side files (Go pkg/session's metadata.json
	// never gets its exit_reason). Otherwise each file is its own run
	// (Codelia) or writer (a Claude Code subagent), and only a crash of the
	// last one does.
	diesWhole bool
}

// sampleFormats are the formats written, in the order they are shown.
var sampleFormats = []*sampleFormat{
	{name: sample.FormatName, unit: "job", units: "jobs", file: "session", demoRoot: "sessions", minFaults: sample.MinFaultJobs,
		generate: generateCortex, writer: func(f sample.File) string { return f.JobID },
		place: placeCortex, stamp: stampCortex},
	{name: codelia.FormatName, unit: "run", units: "runs", file: "run", demoRoot: "codelia", minFaults: codelia.MinFaultRuns,
		generate: generateCodelia, seedWithStart: true, writer: func(f sample.File) string { return f.SessionID },
		place: placeCodelia, stamp: stampTimes},
	{name: orbitmesh.FormatName, unit: "session", units: "sessions", file: "session", demoRoot: "orbitmesh", minFaults: orbitmesh.MinFaultSessions,
		generate: generateOrbitMesh, seedWithStart: true, writer: func(f sample.File) string { return f.SessionID },
		place: func(f sample.File, _ time.Time) string { return f.Rel }, stamp: stampTimes},
	// A Claude Code session is its main transcript and its subagents'
	// transcripts, all with its SessionID: one writer writes them in the
	// corpus's order (the main transcript, then each subagent's), so a
	// subagent file's state finds the main transcript complete when it
	// starts. The sidecars in the session's directory (agent-<id>.meta.json)
	// come once the session's last file is complete.
	{name: claudecode.FormatName, unit: "session", units: "sessions", file: "transcript", demoRoot: "claude/projects", minFaults: claudecode.MinFaultSessions,
		generate: generateClaudeCode, seedWithStart: true, writer: func(f sample.File) string { return f.SessionID },
		place: func(f sample.File, _ time.Time) string { return f.Rel }, stamp: stampClaudeCode},
	// A Go pkg/session session is a directory: one writer writes its
	// messages.jsonl, then its transcript.jsonl (whose lines have no time
	// of their own), then metadata.json and its checkpoints, which say the
	// run ended, moved as its last timed line was.
	{name: gosession.FormatName, unit: "session", units: "sessions", file: "journal", demoRoot: "go-session", minFaults: gosession.MinFaultSessions,
		generate: generateGoSession, seedWithStart: true, writer: func(f sample.File) string { return f.SessionID },
		place: func(f sample.File, _ time.Time) string { return f.Rel }, stamp: stampGoSession, diesWhole: true},
}

// lookupSampleFormat returns the sample format named name, or nil.
func lookupSampleFormat(name string) *sampleFormat {
	for _, f := range sampleFormats {
		if f.name == name {
			return f
		}
	}
	return nil
}

// sampleFormatNames lists the names of sampleFormats.
func sampleFormatNames() []string {
	names := make([]string, len(sampleFormats))
	for i, f := range sampleFormats {
		names[i] = f.name
	}
	return names
}

// count is "4 jobs", "1 run".
func (f *sampleFormat) count(n int) string { return plural(n, f.unit, f.units) }

// generateCortex generates Cortex Plane jobs.
func generateCortex(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
	return sample.Generate(sample.Config{Seed: seed, Jobs: n, Start: start.UTC(), Faults: faults,
		Models: append([]string(nil), sample.DefaultModels...)})
}

// generateCodelia generates Codelia runs.
func generateCodelia(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
	return codelia.Generate(codelia.Config{Seed: seed, Runs: n, Start: start.UTC(), Faults: faults,
		Models: append([]string(nil), codelia.DefaultModels...)})
}

// generateOrbitMesh generates OrbitMesh sessions.
func generateOrbitMesh(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
	return orbitmesh.Generate(orbitmesh.Config{Seed: seed, Sessions: n, Start: start.UTC(), Faults: faults,
		Models: append([]string(nil), orbitmesh.DefaultModels...)})
}

// generateClaudeCode generates Claude Code sessions.
func generateClaudeCode(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
	return claudecode.Generate(claudecode.Config{Seed: seed, Sessions: n, Start: start.UTC(), Faults: faults,
		Models: append([]string(nil), claudecode.DefaultModels...)})
}

// generateGoSession generates Go pkg/session sessions.
func generateGoSession(seed int64, n int, start time.Time, faults bool) (*sample.Corpus, error) {
	return gosession.Generate(gosession.Config{Seed: seed, Sessions: n, Start: start.UTC(), Faults: faults,
		Models: append([]string(nil), gosession.DefaultModels...)})
}

// stampGoSession sets a Go pkg/session message's timestamp (RFC 3339 with
// nanoseconds and the writer's offset, as Go writes it) to t, and moves
// every other time in it by as much; an SDK message of transcript.jsonl
// has no time and stays as it is.
func stampGoSession(line string, t time.Time) (string, time.Duration) {
	m := goSessionTime.FindStringSubmatch(line)
	if m == nil {
		return line, 0
	}
	was, err := time.Parse(time.RFC3339Nano, m[1])
	if err != nil {
		return line, 0
	}
	d := t.Sub(was) // to the nanosecond, as Go writes them: moving back restores the line
	return shiftTimes(line, d), d
}

// goSessionTime is a message's own time: its first timestamp member.
var goSessionTime = regexp.MustCompile(`"timestamp":"([^"]+)"`)

// placeCortex names a Cortex Plane session after the time it starts:
// <job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl.
func placeCortex(f sample.File, t time.Time) string {
	return f.JobID + "/session_" + t.UTC().Format(fileNameLayout) + "_" + f.Pod + ".jsonl"
}

// placeCodelia files a Codelia run under the UTC date it starts, which
// stampTimes makes its header's started_at: sessions/YYYY/MM/DD/<run_id>.jsonl.
func placeCodelia(f sample.File, t time.Time) string {
	return "sessions/" + t.UTC().Format("2006/01/02") + "/" + path.Base(f.Rel)
}

// stampCortex sets a Cortex Plane line's timestamp, its only time.
func stampCortex(line string, t time.Time) (string, time.Duration) {
	was, ok := timeAt(line, `"timestamp":"`)
	if !ok {
		return line, 0
	}
	return restamp(line, t), t.Sub(was)
}

// ownTimeKeys are the keys of a Codelia or OrbitMesh record's own time:
// ts, or a Codelia header's started_at (it has no ts).
var ownTimeKeys = []string{`"ts":"`, `"started_at":"`}

// stampTimes sets the record's own time (the first of ownTimeKeys in the
// line) to t and moves every other time it holds (an OrbitMesh wait's
// deadline_at, a token's expires_at) by as much, so that what the record
// says about time stays what the generator meant.
func stampTimes(line string, t time.Time) (string, time.Duration) {
	key, at := "", -1
	for _, k := range ownTimeKeys {
		if i := strings.Index(line, k); i >= 0 && (at < 0 || i < at) {
			key, at = k, i
		}
	}
	if at < 0 {
		return line, 0
	}
	was, ok := timeAt(line, key)
	if !ok {
		return line, 0
	}
	return moveTimes(line, was, t)
}

// moveTimes moves every time in line by as much as its own time, was,
// moves to t.
func moveTimes(line string, was, t time.Time) (string, time.Duration) {
	d := t.Truncate(time.Millisecond).Sub(was)
	return shiftTimes(line, d), d
}

// stampClaudeCode sets a Claude Code line's own time (claudeCodeTime) to t
// and moves every other time it holds by as much (the time of a subagent
// message an agent_progress line embeds, a file backup's backupTime), as
// stampTimes does. A line without a time of its own (summary, custom-title
// and the other metadata lines) stays as it is.
func stampClaudeCode(line string, t time.Time) (string, time.Duration) {
	was, ok := claudeCodeTime(line)
	if !ok {
		return line, 0
	}
	return moveTimes(line, was, t)
}

// claudeCodeTime is a Claude Code line's own time: its top-level
// timestamp, or a file-history-snapshot's snapshot.timestamp. Not the
// first "timestamp" key of the line: an agent_progress line embeds the
// subagent's message, with its time, before its own.
func claudeCodeTime(line string) (time.Time, bool) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &top); err != nil {
		return timeAt(line, `"timestamp":"`) // not a JSON object: its first timestamp, if any
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
	t, err := time.Parse(timestampLayout, s)
	return t, err == nil
}

// timeAt parses the time after the first key in line (`"ts":"`).
func timeAt(line, key string) (time.Time, bool) {
	i := strings.Index(line, key)
	if i < 0 || len(line) < i+len(key)+len(timestampLayout) {
		return time.Time{}, false
	}
	i += len(key)
	t, err := time.Parse(timestampLayout, line[i:i+len(timestampLayout)])
	return t, err == nil
}

// quotedTime matches a JSON string holding an RFC 3339 time: UTC with
// milliseconds, as most generators write times (2026-02-23T14:30:22.000Z),
// or with any fraction and an offset, as Go writes them
// (2026-02-09T14:03:11.52133+01:00).
var quotedTime = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)"`)

// shiftTimes moves every time string in s by d, each written as it was: a
// millisecond UTC time keeps its length, another keeps its offset.
func shiftTimes(s string, d time.Duration) string {
	if d == 0 {
		return s
	}
	return quotedTime.ReplaceAllStringFunc(s, func(q string) string {
		text := q[1 : len(q)-1]
		if t, err := time.Parse(timestampLayout, text); err == nil {
			return `"` + t.Add(d).UTC().Format(timestampLayout) + `"`
		}
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			return q
		}
		return `"` + t.Add(d).Format(time.RFC3339Nano) + `"`
	})
}

// mixSeed is the seed of a round of a format whose file names come from
// the seed alone: the simulator's seed and round, and the round's start.
func mixSeed(seed int64, round int, start time.Time) int64 {
	return seed + int64(round) + start.UnixMilli()*0x9e3779b1
}
