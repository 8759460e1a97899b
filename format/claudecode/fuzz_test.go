package claudecode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
	for _, l := range stream {
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
			if got, want := ev.Outcome == integrity.Corrupt, corruptOracle(line); got != want {
				t.Fatalf("corrupt=%t (%q), encoding/json says %t: %q", got, ev.CorruptReason, want, line)
			}
			switch ev.Outcome {
			case integrity.Corrupt:
				if ev.CorruptReason == "" || ev.EventType != "" || ev.NoteCount != 0 || len(ev.Violations) != 0 || ev.State != "" {
					t.Fatalf("corrupt line keeps what was learned: %+v", ev)
				}
			case integrity.SchemaInvalid:
				if len(ev.Violations) == 0 {
					t.Fatal("schema_invalid without violations")
				}
				if ev.Usage.Has {
					t.Fatal("a schema-invalid line ships usage")
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
