package codelia

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

func FuzzJudge(f *testing.F) {
	for _, l := range valid {
		f.Add([]byte(l))
	}
	formattest.AddFiles(f, "testdata/*.jsonl")
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
			if got, want := ev.Outcome == integrity.Corrupt, formattest.CorruptOracle(line, "type"); got != want {
				t.Fatalf("corrupt=%t (%q), encoding/json says %t: %q", got, ev.CorruptReason, want, line)
			}
			formattest.CheckEvent(t, &ev, known, kinds)
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
