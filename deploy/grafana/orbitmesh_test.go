package grafana

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/orbitmesh"
)

// What OrbitMesh's runtime-shaped records ship beyond their kind's role
// (docs/formats/orbitmesh.md, part A), read from the lines and the side
// files the corpus holds, never from the format's code.

// runtimeKinds are the eight kinds of the runtime's records (A2).
var runtimeKinds = []string{"user", "output", "thought", "tool_use", "error", "system", "plan", "metric"}

// runtimeShaped: a line is a record of the runtime's shape (A2): one of
// the eight kinds, or an unknown kind (none of part B's, no message.<x>)
// written with timestamp and without ts.
func runtimeShaped(fields map[string]any) bool {
	kind, ok := fields["kind"].(string)
	switch {
	case !ok:
		return false
	case slices.Contains(runtimeKinds, kind):
		return true
	case planKind(kind):
		return false
	}
	_, ts := fields["ts"]
	_, timestamp := fields["timestamp"]
	return timestamp && !ts
}

// planKind: kind is one of part B's record kinds or its message family
// (sections 3 and 5).
func planKind(kind string) bool {
	_, ok := orbitmeshRoles[kind]
	return ok || strings.HasPrefix(kind, "message.")
}

// claudeUsage: the record's raw is a Claude message_start with a usage
// object at raw.message.usage, or a message_delta with one at raw.usage
// (A2, the metric row; A3).
func claudeUsage(fields map[string]any) bool {
	switch jsonText(nested(fields, "raw", "type")) {
	case "message_start":
		_, ok := nested(fields, "raw", "message", "usage").(map[string]any)
		return ok
	case "message_delta":
		_, ok := nested(fields, "raw", "usage").(map[string]any)
		return ok
	}
	return false
}

// omAttempt is a run attempt file as A4 reads it.
type omAttempt struct {
	id                        string
	started, ended, heartbeat time.Time
	terminal                  string
}

// endedBy: the attempt is ended at t: at its ended_at, or, with a terminal
// reason and no ended_at, at its heartbeat_at (A5).
func (a *omAttempt) endedBy(t time.Time) bool {
	switch {
	case !a.ended.IsZero():
		return !a.ended.After(t)
	case a.terminal != "" && !a.heartbeat.IsZero():
		return !a.heartbeat.After(t)
	}
	return false
}

// omAttempts reads the attempt files of a log's session from the corpus's
// side files (<dir>/attempts/<session_id>/*.json), defensively as A4 says:
// a file that is not one JSON object with members of the right types is
// left out. They are ordered by started_at, then id.
func omAttempts(c *sample.Corpus, f *sample.File) []omAttempt {
	id := strings.TrimSuffix(path.Base(f.Rel), ".messages.jsonl")
	dir := path.Join(path.Dir(f.Rel), "attempts", id) + "/"
	var out []omAttempt
	for _, s := range c.Side {
		name, ok := strings.CutPrefix(s.Rel, dir)
		if !ok || strings.Contains(name, "/") || !strings.HasSuffix(name, ".json") {
			continue
		}
		var a struct {
			AttemptID      string `json:"attempt_id"`
			StartedAt      string `json:"started_at"`
			EndedAt        string `json:"ended_at"`
			TerminalReason string `json:"terminal_reason"`
			HeartbeatAt    string `json:"heartbeat_at"`
		}
		dec := json.NewDecoder(bytes.NewReader(s.Data))
		if err := dec.Decode(&a); err != nil || dec.More() || !bytes.HasPrefix(bytes.TrimSpace(s.Data), []byte("{")) {
			continue
		}
		at := omAttempt{id: a.AttemptID, terminal: a.TerminalReason}
		if at.id == "" {
			at.id = strings.TrimSuffix(name, ".json")
		}
		at.started, at.ended, at.heartbeat = sideTime(a.StartedAt), sideTime(a.EndedAt), sideTime(a.HeartbeatAt)
		out = append(out, at)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].started.Equal(out[j].started) {
			return out[i].id < out[j].id
		}
		return out[i].started.Before(out[j].started)
	})
	return out
}

// sideTime is an RFC 3339 time of a side file; zero when absent or
// unreadable.
func sideTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// omEnds follows a runtime-shaped log line by line and tells which lines
// end a run attempt (A5): the first record of the runtime's shape at or
// after the end of the latest attempt started by its time has the
// attempt's terminal_reason as its end reason. A line is judged at its
// timestamp, or, without a readable one, at the newest before it; corrupt
// lines and the plan's records end nothing.
type omEnds struct {
	attempts  []omAttempt
	newest    time.Time
	endMarked int // 1 + the index of the attempt whose end was marked
}

// end is the end_reason of the next line of the file, and whether it ends
// an attempt.
func (e *omEnds) end(l sample.Line, fields map[string]any) (reason string, ends bool) {
	if l.Corrupt || fields == nil || !runtimeShaped(fields) {
		return "", false
	}
	t := e.newest
	if s, ok := fields["timestamp"].(string); ok {
		if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
			t = ts
			if ts.After(e.newest) {
				e.newest = ts
			}
		}
	}
	k := -1
	for i := range e.attempts {
		if !e.attempts[i].started.After(t) {
			k = i
		}
	}
	if k < 0 || !e.attempts[k].endedBy(t) || e.endMarked == k+1 {
		return "", false
	}
	e.endMarked = k + 1
	return e.attempts[k].terminal, true
}

// TestOrbitMeshEnds holds the world's reading of A5's attempt ends, from
// the side files, to the generator's own account of the sessions it wrote
// (which lines end an attempt, with which reason), over the world's seed
// and others, so that the ends the panels are checked against are not
// this file's alone: a failed attempt's runtime_error line is one the
// milestones panel shows with its end reason.
func TestOrbitMeshEnds(t *testing.T) {
	reasons := map[string]int{}
	for seed := int64(runsSeed); seed < runsSeed+24; seed++ {
		cfg := orbitmesh.DefaultConfig()
		cfg.Seed, cfg.Start = seed, time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		c, truth, err := orbitmesh.GenerateWithTruth(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Files {
			f, st := &c.Files[i], truth[i]
			om := &omEnds{attempts: omAttempts(c, f)}
			var got []orbitmesh.End
			for k, l := range f.Lines {
				if r, ends := om.end(l, decodeObject(l.Text)); ends {
					got = append(got, orbitmesh.End{Line: k, Reason: r})
					reasons[r]++
				}
			}
			var want []orbitmesh.End
			for _, e := range st.Ends {
				want = append(want, orbitmesh.End{Line: e.Line, Reason: e.Reason})
			}
			if !slices.Equal(got, want) {
				t.Errorf("seed %d, %s (%s): attempt ends %v, the generator says %v", seed, f.Rel, st.Scenario, got, want)
			}
		}
	}
	for _, r := range []string{"completed", "failed", "cancelled", "interrupted"} {
		if reasons[r] == 0 {
			t.Errorf("no attempt ended %s over the seeds: %v", r, reasons)
		}
	}
}
