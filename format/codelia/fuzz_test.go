package codelia

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// corruptOracle tells with encoding/json whether a line is corrupt: not
// valid UTF-8, not JSON, not an object, or its first "type" member is not
// a string (encoding/json itself keeps the last duplicate).
func corruptOracle(line []byte) bool {
	if !utf8.Valid(line) || !json.Valid(line) {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return true
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return true
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return true
		}
		if key == "type" {
			return v[0] != '"'
		}
	}
	return true
}

func FuzzJudge(f *testing.F) {
	for _, l := range valid {
		f.Add([]byte(l))
	}
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"type":1,"t\u0079pe":"header"}`))
	f.Add([]byte(`{"t\u0079pe":"run.end","run_id":"r","ts":"2026-02-03T12:00:00+01:00","outcome":"x"}`))
	cf := New()
	known := cf.EventTypes()
	kinds := cf.Annotations()
	p, _ := cf.Claim(runPath)
	f.Fuzz(func(t *testing.T, data []byte) {
		j := cf.NewJudge()
		a := integrity.NewArena(1 << 10)
		var ev format.Event
		check := func(line []byte) {
			if got, want := ev.Outcome == integrity.Corrupt, corruptOracle(line); got != want {
				t.Fatalf("corrupt=%t (%q), encoding/json says %t: %q", got, ev.CorruptReason, want, line)
			}
			switch ev.Outcome {
			case integrity.Corrupt:
				if ev.CorruptReason == "" || ev.EventType != "" || ev.NoteCount != 0 || len(ev.Violations) != 0 {
					t.Fatalf("corrupt line keeps what was learned: %+v", ev)
				}
			case integrity.SchemaInvalid:
				if len(ev.Violations) == 0 {
					t.Fatal("schema_invalid without violations")
				}
			default:
				if len(ev.Violations) != 0 {
					t.Fatalf("valid with violations %v", ev.Violations)
				}
			}
			if ev.EventType != "" && !slices.Contains(known, ev.EventType) {
				t.Fatalf("event_type %q", ev.EventType)
			}
			for _, n := range ev.Notes[:ev.NoteCount] {
				if !slices.Contains(kinds, n.Kind) {
					t.Fatalf("note %q not in Annotations()", n.Kind)
				}
			}
			if ev.HasPair && ev.EventType != "llm.request" && ev.EventType != "llm.response" {
				t.Fatalf("pair on %q", ev.EventType)
			}
		}
		j.Judge(data, nil, a, &ev)
		check(data)
		st := cf.NewState(p)
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			j.Judge(l, st, a, &ev)
			check(l)
		}
		over, terminal := st.Over()
		if over != terminal {
			t.Fatal("every end is terminal")
		}
		_ = st.Open()
	})
}

func FuzzClaim(f *testing.F) {
	for _, s := range []string{runPath, "sessions/2024/02/29/x.jsonl", "/r/sessions/2026/02/30/x.jsonl",
		"/home/dev/.codelia/sessions/state/" + runID + ".json", "/r/sessions/state/sessions/2026/01/01/x.jsonl",
		"/data/sessions/job/session_20260203T120000Z_pod.jsonl", "", "/", "sessions//0000/00/00/.jsonl"} {
		f.Add(s)
	}
	cf := New()
	f.Fuzz(func(t *testing.T, path string) {
		p, ok := cf.Claim(path)
		if !ok {
			return
		}
		if !strings.HasSuffix(path, ".jsonl") || p.RunID == "" || p.Group != path || p.Format != Name {
			t.Fatalf("claimed %q as %+v", path, p)
		}
		parts := strings.Split(filepath.ToSlash(path), "/")
		for i := 0; i+1 < len(parts); i++ {
			if parts[i] == "sessions" && parts[i+1] == "state" {
				t.Fatalf("claimed %q under sessions/state", path)
			}
		}
		if p.Problem == "" && (p.Started.IsZero() || !p.Started.Equal(p.Started.Truncate(24*time.Hour)) || p.Started.Location() != time.UTC) {
			t.Fatalf("started %v for %q", p.Started, path)
		}
		if p.Problem != "" && !p.Started.IsZero() {
			t.Fatalf("a wrong date with a start: %+v", p)
		}
	})
}
