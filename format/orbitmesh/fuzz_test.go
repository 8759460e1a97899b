package orbitmesh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

// seedLines are the golden sessions' lines plus odd ones.
func seedLines(f *testing.F) []string {
	logs, _ := filepath.Glob(filepath.Join("testdata", "*"+Suffix))
	var out []string
	for _, log := range logs {
		b, err := os.ReadFile(log)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, strings.Split(string(b), "\n")...)
	}
	return append(out, `{"kin\u0064":5,"kind":"run.started"}`, `{"kind":"run.started","kin\u0064":5}`,
		`{"kind":"\ud800"}`, `{"seq":1e400,"kind":"x"}`, "{\"kind\":\"a\xff\"}", `{"kind":"x"} `, `{"kind":"x"}{}`,
		`{"a":[[[{"kind":1}]]],"kind":"message.x"}`, `"kind"`, `{}`, ``,
		cur(1, "metric", "append_raw", startA), cur(2, "metric", "append_raw", deltaA), cur(3, "error", "append", ""),
		`{"seq":1,"timestamp":"2026-02-21T10:00:00Z","projection":"append_raw","kind":"metric","contents":"","raw":{"type":"message_delta","usage":{"output_tokens":-5,"input_tokens":1e30}}}`)
}

// FuzzJudge: Judge never panics; a line is corrupt exactly when the oracle
// says so; the state's status is always one of the five.
func FuzzJudge(f *testing.F) {
	for _, l := range seedLines(f) {
		f.Add(l, l)
	}
	fm := testFormat(f, clock)
	j := fm.NewJudge()
	a := integrity.NewArena(1 << 12)
	var ev format.Event
	f.Fuzz(func(t *testing.T, l1, l2 string) {
		st := fm.NewState(format.Path{}).(*State)
		st.UseSnapshot(ParseSnapshot([]byte(specSnapshot), []byte(`{"rt_5f0":{"state":"revoked"}}`)))
		for _, l := range []string{l1, l2, l1} {
			a.Reset(1 << 12)
			j.Judge([]byte(l), st, a, &ev)
			if got, want := ev.Outcome == integrity.Corrupt, formattest.CorruptOracle([]byte(l), "kind"); got != want {
				t.Fatalf("line %q: corrupt %v (%q), oracle %v", l, got, ev.CorruptReason, want)
			}
			if ev.Outcome != integrity.Corrupt && statusOf([]byte(ev.State)) == "" {
				t.Fatalf("line %q: status %q", l, ev.State)
			}
		}
		if statusOf([]byte(st.Derived())) == "" {
			t.Fatalf("derived %q", st.Derived())
		}
		st.Over()
		st.Open()
	})
}

// FuzzClaim: any path; a claimed path ends in .messages.jsonl, its
// companions are never claimed.
func FuzzClaim(f *testing.F) {
	for _, p := range []string{"/data/sessions/sess_123.messages.jsonl", "/data/sessions/sess_123.json",
		"/data/sessions/sess_123.tokens.json", ".messages.jsonl", "", "/", "a/b/../c.messages.jsonl/", "x.messages.jsonl.json"} {
		f.Add(p)
	}
	fm := New()
	f.Fuzz(func(t *testing.T, path string) {
		p, ok := fm.Claim(path)
		if !ok {
			return
		}
		if p.Format != Name || p.Group != path || !strings.HasSuffix(filepath.Base(path), Suffix) {
			t.Fatalf("%q claimed as %+v", path, p)
		}
		for _, c := range Companions(path) {
			if _, ok := fm.Claim(c); ok {
				t.Fatalf("companion %q of %q claimed", c, path)
			}
		}
	})
}

// FuzzSnapshot: any bytes as snapshot and token index, through the files
// and directly; the result drives a state without panicking.
func FuzzSnapshot(f *testing.F) {
	f.Add([]byte(specSnapshot), []byte(`{"rt_5f0":{"state":"active"}}`))
	f.Add([]byte(specSnapshot[:100]), []byte(`[{"id":"rt_5f0","status":"expired","expires_at":"2026-02-21T10:00:00Z"}]`))
	f.Add([]byte(`{"run":{"wait":{"deadline_at":5}},"last_seq":-3}`), []byte(`{"tokens":{"a":{}}}`))
	f.Add([]byte(`null`), []byte("\xff"))
	dir := filepath.Join(f.TempDir(), "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	log := filepath.Join(dir, "s.messages.jsonl")
	c := Companions(log)
	f.Fuzz(func(t *testing.T, meta, tokens []byte) {
		if err := os.WriteFile(c[0], meta, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c[1], tokens, 0o644); err != nil {
			t.Fatal(err)
		}
		s := ReadSnapshot(log)
		if p := ParseSnapshot(meta, tokens); p.Read != s.Read || p.HasTokens != s.HasTokens {
			t.Fatalf("read %+v, parsed %+v", s, p)
		}
		st, _ := run(t, &s, started, waiting, rec(3, "status.derived", "status", "waiting"))
		st.Derived()
	})
}
