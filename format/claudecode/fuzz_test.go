package claudecode

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

func FuzzJudge(f *testing.F) {
	for _, l := range valid {
		f.Add([]byte(l))
	}
	for _, l := range stream {
		f.Add([]byte(l))
	}
	formattest.AddFiles(f, "testdata/*.jsonl")
	f.Add([]byte(`{"type":1,"t\u0079pe":"user"}`))
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"\u005b\ud83d\ude00Request"}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a"} , 3, {"type":"text"}]}}`))
	cf := New()
	known := cf.EventTypes()
	kinds := cf.Annotations()
	paths := []string{mainPath, agentPath, root + "/" + project + "/agent-x.jsonl", "/srv/c/x/run.jsonl"}
	f.Fuzz(func(t *testing.T, data []byte) {
		j := cf.NewJudge()
		a := integrity.NewArena(1 << 10)
		var ev format.Event
		check := func(line []byte) {
			if got, want := ev.Outcome == integrity.Corrupt, formattest.CorruptOracle(line, "type"); got != want {
				t.Fatalf("corrupt=%t (%q), encoding/json says %t: %q", got, ev.CorruptReason, want, line)
			}
			formattest.CheckEvent(t, &ev, known, kinds)
			if ev.Outcome == integrity.Corrupt && ev.State != "" {
				t.Fatalf("corrupt line keeps what was learned: %+v", ev)
			}
			if ev.Outcome == integrity.SchemaInvalid && ev.Usage.Has {
				t.Fatal("a schema-invalid line ships usage")
			}
			if u := ev.Usage; u.Has && (ev.EventType != "assistant" || u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 || u.CacheWrite1h < 0) {
				t.Fatalf("usage %+v on %q", u, ev.EventType)
			}
			if ev.Ends && (ev.EventType != "result" || ev.Terminal) {
				t.Fatalf("ends on %q (terminal %t)", ev.EventType, ev.Terminal)
			}
			if ev.HasTime && ev.Time.IsZero() {
				t.Fatal("a zero time")
			}
		}
		j.Judge(data, nil, a, &ev)
		check(data)
		for _, path := range paths {
			p, _ := cf.Claim(path)
			st := cf.NewState(p)
			for l := range bytes.SplitSeq(data, []byte("\n")) {
				a.Reset(1 << 10)
				j.Judge(l, st, a, &ev)
				check(l)
				if ev.Outcome != integrity.Corrupt && ev.State != st.Derived() {
					t.Fatalf("line state %q, file state %q", ev.State, st.Derived())
				}
			}
			over, terminal := st.Over()
			if over != terminal || over != (st.Derived() == StateIdle) {
				t.Fatalf("over=%t terminal=%t derived=%q", over, terminal, st.Derived())
			}
			for _, o := range st.Open() {
				if !strings.HasPrefix(o, "tool_use ") && !strings.HasSuffix(o, "were never answered") {
					t.Fatalf("open %q", o)
				}
			}
		}
	})
}

func FuzzClaim(f *testing.F) {
	for _, s := range []string{mainPath, agentPath, root + "/" + project + "/agent-x.jsonl", root + "/p/notes.jsonl",
		root + "/p/s/subagents/agent-x.jsonl", root + "/p/" + sessionID + "/tool-results/x.jsonl",
		"/var/goat/sessions/s/messages.jsonl", "", "/", "a/.jsonl", "//subagents/agent-.jsonl", `C:\p\x.jsonl`} {
		f.Add(s)
	}
	cf := New()
	f.Fuzz(func(t *testing.T, path string) {
		p, ok := cf.Claim(path)
		m, isSub := MainTranscript(path)
		if !ok {
			if isSub {
				t.Fatalf("%q: a main transcript for a path not claimed", path)
			}
			return
		}
		if !strings.HasSuffix(path, ".jsonl") || p.Format != Name || p.Group == "" {
			t.Fatalf("claimed %q as %+v", path, p)
		}
		if p.SessionID != "" && !integrity.IsUUID([]byte(p.SessionID)) {
			t.Fatalf("session %q of %q", p.SessionID, path)
		}
		if p.Problem == "" && p.SessionID == "" && p.AgentID == "" || p.Problem != "" && p.SessionID != "" {
			t.Fatalf("%q: problem %q with session %q agent %q", path, p.Problem, p.SessionID, p.AgentID)
		}
		switch {
		case isSub:
			if p.Group != m || p.AgentID == "" || !strings.HasSuffix(m, ".jsonl") {
				t.Fatalf("subagent %q: %+v, main %q", path, p, m)
			}
			if _, ok := cf.Claim(m); !ok && p.SessionID != "" {
				t.Fatalf("subagent %q: its main transcript %q is not claimed", path, m)
			}
		case p.Group != path:
			t.Fatalf("%q: group %q", path, p.Group)
		}
		base := filepath.Base(filepath.ToSlash(path))
		if base == "messages.jsonl" || base == "transcript.jsonl" {
			t.Fatalf("claimed a Go pkg/session journal %q", path)
		}
		_ = cf.NewState(p).(*State).Project()
	})
}
