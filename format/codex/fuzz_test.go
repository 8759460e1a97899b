package codex

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

// corruptOracle tells with encoding/json whether a line is corrupt: not
// one JSON object, or with a type that is not a string, or without a type
// and neither a legacy state line (a string record_type) nor a legacy
// header (a string id).
func corruptOracle(line []byte) bool {
	raw, object, has := formattest.FirstMember(line, "type")
	switch {
	case !object:
		return true
	case has:
		return raw[0] != '"'
	}
	for _, key := range []string{"record_type", "id"} {
		if v, _, ok := formattest.FirstMember(line, key); ok && v[0] == '"' {
			return false
		}
	}
	return true
}

func FuzzJudge(f *testing.F) {
	for _, l := range valid {
		f.Add([]byte(l))
	}
	formattest.AddFiles(f, "testdata/*.jsonl")
	formattest.AddFiles(f, "testdata/real/session-01.jsonl")
	f.Add([]byte(`{"type":1,"t\u0079pe":"event_msg"}`))
	f.Add([]byte(`{"record_type":"state","type":null}`))
	f.Add([]byte(`{"id":"x","timestamp":"2025-09-08T18:58:38Z"}` + "\n" + `{"type":"function_call","name":"a","arguments":"{}","call_id":"c"}`))
	cf := New()
	known, kinds := cf.EventTypes(), cf.Annotations()
	f.Fuzz(func(t *testing.T, data []byte) {
		j := cf.NewJudge()
		a := integrity.NewArena(1 << 10)
		var ev format.Event
		check := func(line []byte) {
			if got, want := ev.Outcome == integrity.Corrupt, corruptOracle(line); got != want {
				t.Fatalf("corrupt=%t (%q), encoding/json says %t: %q", got, ev.CorruptReason, want, line)
			}
			formattest.CheckEvent(t, &ev, known, kinds)
			if ev.Outcome == integrity.Corrupt && ev.State != "" {
				t.Fatalf("corrupt line keeps what was learned: %+v", ev)
			}
			if u := ev.Usage; u.Has && (ev.Outcome != integrity.Valid || ev.EventType != "token_count" ||
				u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheRead > u.Input || u.CacheWrite != 0 || ev.Bill == 0) {
				t.Fatalf("usage %+v (bill %d) on %q %v", u, ev.Bill, ev.EventType, ev.Outcome)
			}
			if ev.Ends || ev.Terminal {
				t.Fatal("Codex writes no end record")
			}
			if ev.HasTime && ev.Time.IsZero() {
				t.Fatal("a zero time")
			}
		}
		j.Judge(data, nil, a, &ev)
		check(data)
		if ev.Usage.Has {
			t.Fatal("usage without a state")
		}
		for _, path := range []string{mainPath, "/srv/x/out.jsonl"} {
			p, _ := cf.Claim(path)
			st := cf.NewState(p)
			var sum int64
			for l := range bytes.SplitSeq(data, []byte("\n")) {
				a.Reset(1 << 10)
				j.Judge(l, st, a, &ev)
				check(l)
				sum += ev.Usage.Input
				if ev.Outcome != integrity.Corrupt && ev.State != st.Derived() {
					t.Fatalf("line state %q, file state %q", ev.State, st.Derived())
				}
			}
			over, terminal := st.Over()
			if over != terminal || over != (st.Derived() == StateIdle) {
				t.Fatalf("over=%t terminal=%t derived=%q", over, terminal, st.Derived())
			}
			for _, o := range st.Open() {
				if !strings.HasPrefix(o, "call ") && !strings.HasSuffix(o, "were never answered") {
					t.Fatalf("open %q", o)
				}
			}
			if sum < 0 {
				t.Fatal("tokens wrapped")
			}
		}
	})
}

func FuzzClaim(f *testing.F) {
	for _, s := range []string{mainPath, root + "/archived_sessions/rollout-2026-02-23T12-41-04-" + sessionID + ".jsonl",
		root + "/sessions/2026/02/31/rollout-2026-02-31T12-41-04-" + sessionID + ".jsonl", "", "/", "rollout-.jsonl",
		`C:\Users\dev\.codex\sessions\2026\02\23\rollout-2026-02-23T12-41-04-` + sessionID + ".jsonl"} {
		f.Add(s)
	}
	cf := New()
	f.Fuzz(func(t *testing.T, path string) {
		p, ok := cf.Claim(path)
		if !ok {
			return
		}
		if !strings.HasSuffix(path, ".jsonl") || p.Format != Name || p.Group != path || !integrity.IsUUID([]byte(p.SessionID)) {
			t.Fatalf("claimed %q as %+v", path, p)
		}
		if p.Started.IsZero() != (p.Problem == problemNameTime) {
			t.Fatalf("%q: started %v, problem %q", path, p.Started, p.Problem)
		}
		if b, _ := json.Marshal(p.SessionID); len(b) != 38 {
			t.Fatalf("session %q", p.SessionID)
		}
	})
}
