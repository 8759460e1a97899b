package gosession

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

// corruptOracle tells with encoding/json whether a line of journal is
// corrupt: not valid UTF-8, not JSON, not an object; a message without a
// string role as its first "role" member; a line of unknown journal with
// neither that nor a "type" member.
func corruptOracle(line []byte, journal Journal) bool {
	role, object, hasRole := formattest.FirstMember(line, "role")
	if !object {
		return true
	}
	stringRole := hasRole && role[0] == '"' || !hasRole && nestedStringRole(line)
	switch journal {
	case Transcript:
		return false
	case Messages:
		return !stringRole
	}
	_, _, hasType := formattest.FirstMember(line, "type")
	return !stringRole && !hasType
}

// nestedStringRole tells whether line's only "message" member is an
// object whose first "role" member is a string (Goat's MessageEntry).
func nestedStringRole(line []byte) bool {
	msg, _, has := formattest.FirstMember(line, "message")
	if !has || msg[0] != '{' || members(line, "message") != 1 {
		return false
	}
	role, _, has := formattest.FirstMember(msg, "role")
	return has && role[0] == '"'
}

// members counts the top-level members key of the JSON object line.
func members(line []byte, key string) int {
	var obj []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0
	}
	for dec.More() {
		k, err := dec.Token()
		var v json.RawMessage
		if err != nil || dec.Decode(&v) != nil {
			return 0
		}
		if k == key {
			obj = append(obj, v)
		}
	}
	return len(obj)
}

func FuzzJudge(f *testing.F) {
	for _, l := range valid {
		f.Add([]byte(l))
	}
	formattest.AddFiles(f, "testdata/sessions/*/*.jsonl")
	f.Add([]byte(`{"role":1,"r\u006fle":"user"}`))
	f.Add([]byte(`{"r\u006fle":"tool","tool_call_id":"a\u0000","uuid":"\ud800","timestamp":"2026-02-09T14:00:00.000000000001+14:00"}`))
	f.Add([]byte(`{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"x"}},[],"s",{"id":"\"]"}]}`))
	f.Add([]byte(`{"type":"result","total_cost_usd":1e400}`))
	f.Add([]byte(`{"uuid":"u","timestamp":"2026-11-26T11:48:20.073093635Z","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"Read"}}]}}`))
	f.Add([]byte(`{"uuid":"u","message":{"role":"tool","tool_call_id":"c"},"message":{"role":"user"}}`))
	f.Add([]byte(`{"uuid":"u","message":{"r\u006fle":"tool","role":1,"tool_call_id":5,"name":[]}}`))
	f.Add([]byte(`{"uuid":"u","message":{}}`))
	gf := New()
	known := gf.EventTypes()
	kinds := gf.Annotations()
	p, _ := gf.Claim(sessionPath)
	states := []string{"", StateIdle, StateThinking, StateActing}
	f.Fuzz(func(t *testing.T, data []byte) {
		j := gf.NewJudge()
		a := integrity.NewArena(1 << 10)
		var ev format.Event
		check := func(line []byte, journal Journal) {
			if got, want := ev.Outcome == integrity.Corrupt, corruptOracle(line, journal); got != want {
				t.Fatalf("%s: corrupt=%t (%q), encoding/json says %t: %q", journal, got, ev.CorruptReason, want, line)
			}
			formattest.CheckEvent(t, &ev, known, kinds)
			if ev.Outcome == integrity.Corrupt && ev.State != "" {
				t.Fatalf("corrupt line keeps what was learned: %+v", ev)
			}
			if ev.EventType == TypeMetadata || ev.EventType == TypeCheckpoint {
				t.Fatalf("a line judged %s: those are the finalizer's", ev.EventType)
			}
			if ev.Outcome != integrity.Corrupt && ev.EventType == "" && ev.Flags&format.UnknownType == 0 {
				t.Fatal("other without unknown_type")
			}
			if ev.HasCost && (ev.EventType != TypeTranscript || ev.CostUSD < 0 || math.IsInf(ev.CostUSD, 0) || math.IsNaN(ev.CostUSD)) {
				t.Fatalf("cost %v on %q", ev.CostUSD, ev.EventType)
			}
			if !slices.Contains(states, ev.State) || ev.Ends || ev.Terminal || ev.HasSeq || ev.Usage.Has {
				t.Fatalf("state %q ends=%t seq=%t usage=%t", ev.State, ev.Ends, ev.HasSeq, ev.Usage.Has)
			}
			if ev.EventType == TypeTranscript && (ev.State != "" || ev.HasTime || ev.NoteCount > 0) {
				t.Fatalf("a transcript line with a state, time or notes: %+v", ev)
			}
		}
		j.Judge(data, nil, a, &ev)
		check(data, NotAJournal)
		for _, journal := range []Journal{NotAJournal, Messages, Transcript} {
			st := gf.NewState(p).(*State)
			st.journal = journal
			st.UseMetadata(Metadata{Read: true, ExitReason: "end_turn", Model: "m",
				UpdatedAt: time.Date(2026, 2, 9, 15, 0, 0, 0, time.UTC), HasUpdatedAt: true})
			for l := range bytes.SplitSeq(data, []byte("\n")) {
				j.Judge(l, st, a, &ev)
				check(l, journal)
			}
			over, terminal := st.Over()
			if over != terminal {
				t.Fatal("every end is terminal")
			}
			if d := st.Derived(); !slices.Contains(states, d) || (journal == Transcript) != (d == "") && journal != NotAJournal {
				t.Fatalf("%s derived %q", journal, d)
			}
			if journal == Transcript && st.Open() != nil {
				t.Fatal("a transcript leaves no call open")
			}
			_ = st.Open()
		}
	})
}

func FuzzClaim(f *testing.F) {
	for _, s := range []string{sessionPath, "/b/s/transcript.jsonl", "s/messages.jsonl", "/messages.jsonl",
		"messages.jsonl", "/b/s/metadata.json", "/b/s/checkpoints/c/manifest.json", "/b/s/checkpoints/c/messages.jsonl",
		"/root/-proj/0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl", "/root/-proj/u/subagents/agent-a.jsonl",
		"", "/", "//messages.jsonl", "a/../messages.jsonl", "a/./transcript.jsonl", "a/messages.jsonl/"} {
		f.Add(s)
	}
	gf := New()
	f.Fuzz(func(t *testing.T, path string) {
		p, ok := gf.Claim(path)
		if !ok {
			if JournalOf(path) != NotAJournal {
				t.Fatalf("%q is a journal but not claimed", path)
			}
			return
		}
		base := filepath.Base(path)
		if base != MessagesFile && base != TranscriptFile || strings.HasSuffix(path, "/") {
			t.Fatalf("claimed %q", path)
		}
		dir := filepath.Dir(path)
		if p.Format != Name || p.Group != filepath.Join(dir, MessagesFile) || p.SessionID != filepath.Base(dir) ||
			p.SessionID == "" || p.SessionID == "." || p.SessionID == ".." || p.SessionID == "/" || p.Problem != "" {
			t.Fatalf("claimed %q as %+v", path, p)
		}
		for _, side := range []string{filepath.Join(dir, MetadataFile), filepath.Join(dir, CheckpointsDir)} {
			if _, ok := gf.Claim(side); ok {
				t.Fatalf("side file %q of %q claimed", side, path)
			}
		}
		if filepath.Base(filepath.Dir(dir)) == CheckpointsDir {
			t.Fatalf("claimed %q under checkpoints/", path)
		}
	})
}

// FuzzMetadata: any bytes as metadata.json, read through the file and
// parsed directly: the same verdict, unknown all or nothing, fields in
// range; and the result drives a state without panicking.
func FuzzMetadata(f *testing.F) {
	f.Add([]byte(specMetadata))
	f.Add([]byte(specMetadata[:100]))
	f.Add([]byte(`{"id":"x","parent_id":"p","turn_count":1e2,"total_cost_usd":-0,"created_at":"0001-01-01T00:00:00Z","updated_at":"2026-02-09T14:00:00+14:00"}`))
	f.Add([]byte(`{"turn_count":99999999999999999999,"total_cost_usd":1e309,"exit_reason":"\ud800"}`))
	f.Add([]byte(`null`))
	f.Add([]byte("\xff"))
	dir := filepath.Join(f.TempDir(), "sessions", "s")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(dir, MetadataFile)
	f.Fuzz(func(t *testing.T, data []byte) {
		// A new file each time: ext4 flushes a file truncated and rewritten.
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, ok := ReadMetadata(dir, 0)
		parsed := ParseMetadata(data)
		_, object, _ := formattest.FirstMember(data, "")
		if ok != m.Read || ok != parsed.Read || ok != object {
			t.Fatalf("read %t/%t, parsed %t, encoding/json %t: %q", ok, m.Read, parsed.Read, object, data)
		}
		if !ok {
			if !sameMetadata(m, Metadata{}) {
				t.Fatalf("unknown but %+v", m)
			}
			return
		}
		if m.ModTime.IsZero() {
			t.Fatal("read without a modification time")
		}
		if !sameMetadata(withoutMod(m), parsed) {
			t.Fatalf("file %+v, bytes %+v", m, parsed)
		}
		if m.HasTurnCount && m.TurnCount < 0 || !m.HasTurnCount && m.TurnCount != 0 {
			t.Fatalf("turn_count %d", m.TurnCount)
		}
		if m.HasTotalCost && (m.TotalCostUSD < 0 || math.IsInf(m.TotalCostUSD, 0) || math.IsNaN(m.TotalCostUSD)) || !m.HasTotalCost && m.TotalCostUSD != 0 {
			t.Fatalf("total_cost_usd %v", m.TotalCostUSD)
		}
		if m.HasCreatedAt == m.CreatedAt.IsZero() || m.HasUpdatedAt == m.UpdatedAt.IsZero() {
			t.Fatalf("times %+v", m)
		}
		_, st := run(t, &m, msg(1, 0, "user"), call(2, 1, "a:bash"))
		over, terminal := st.Over()
		if over != terminal || over && m.ExitReason == "" {
			t.Fatalf("over %t terminal %t with %+v", over, terminal, m)
		}
		st.Derived()
	})
}

// FuzzManifest: any bytes as a checkpoint manifest.
func FuzzManifest(f *testing.F) {
	f.Add([]byte(seedManifest))
	f.Add([]byte(specManifest))
	f.Add([]byte(seedManifest[:70]))
	f.Add([]byte(`{"files":[{"path":"a\"]"},[],"x,y"],"files":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cp, ok := ParseManifest(data)
		files, object, has := formattest.FirstMember(data, "files")
		if ok != object {
			t.Fatalf("ok %t, encoding/json %t: %q", ok, object, data)
		}
		if !ok {
			return
		}
		want := 0
		var arr []json.RawMessage
		if has && json.Unmarshal(files, &arr) == nil && files[0] == '[' {
			want = len(arr)
		}
		if cp.Files != want {
			t.Fatalf("files %d, encoding/json %d: %q", cp.Files, want, data)
		}
		if cp.HasTime == cp.Time.IsZero() || cp.Manifest != "" {
			t.Fatalf("%+v", cp)
		}
	})
}

// sameMetadata compares metadata with times as instants.
func sameMetadata(a, b Metadata) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) || !a.UpdatedAt.Equal(b.UpdatedAt) || !a.ModTime.Equal(b.ModTime) {
		return false
	}
	a.CreatedAt, a.UpdatedAt, a.ModTime = b.CreatedAt, b.UpdatedAt, b.ModTime
	return a == b
}

// FuzzTime: the judge's timestamp reading is integrity.ParseTime's.
func FuzzTime(f *testing.F) {
	for _, s := range []string{"2026-02-09T14:03:11.52133+01:00", "2026-02-09T14:03:11.52133+05:30", "2026-02-09T14:03:11-09:30",
		"2026-02-09T14:03:11.52133Z", "2026-02-09T23:59:59.999999999999-23:59", "2026-02-09T14:03:11+24:00", "2026-02-09T14:03:11+05:60",
		"2026-02-09T14:03:11Z+05:30", "2026-02-09 14:03:11+05:30", "2026-02-29T14:03:11+05:30", "0000-01-01T00:00:00+00:01", "x"} {
		f.Add([]byte(s))
	}
	var j judge
	f.Fuzz(func(t *testing.T, s []byte) {
		got, ok := j.parseTime(s)
		want, wantOK := integrity.ParseTime(s)
		if ok != wantOK || !got.Equal(want) {
			t.Fatalf("%q: %v %t, integrity %v %t", s, got, ok, want, wantOK)
		}
	})
}
