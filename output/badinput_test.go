package output

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad input against a real Loki: every line of a journal, however broken,
// ends up in Loki with a typed outcome (integrity, annotations,
// corrupt_reason, violations) or in the dead-letter file with a reason;
// nothing is lost, nothing panics, and every Flush returns OK.

const badJob = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"

// badLine renders an event of type typ with seq (raw JSON text) and extra
// members, stamped at.
func badLine(typ string, at time.Time, seq, extra string) []byte {
	s := `{"type":"` + typ + `","timestamp":"` + at.Format("2006-01-02T15:04:05.000Z") + `","job_id":"` + badJob +
		`","session_id":"01956a3b-8000-7000-8000-000000000001"`
	if seq != "" {
		s += `,"seq":` + seq
	}
	return []byte(s + extra + "}")
}

func badStart(at time.Time) []byte {
	return badLine("SESSION_START", at, "0", `,"buffer_schema_version":1,"agent_id":"01956a3b-9000-7000-8000-000000000002","pod_name":"p"`)
}

// tailRec is one line as Fluent Bit's tail emits it.
type tailRec struct {
	off  int64
	line []byte
}

// tailOf splits data as tail does: complete lines only, a CRLF's \r
// removed, empty lines skipped.
func tailOf(data []byte) []tailRec {
	var out []tailRec
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return out
		}
		if line := bytes.TrimSuffix(data[off:off+i], []byte("\r")); len(line) > 0 {
			out = append(out, tailRec{off: int64(off), line: line})
		}
		off += i + 1
	}
}

// landed is what became of one case's file.
type landed struct {
	path    string
	data    []byte
	recs    []tailRec
	code    int
	entries map[int64]lokiquery.Entry // by offset
	dead    map[int64]map[string]any  // dead letters of this file, by offset
}

func (l *landed) rec(i int) tailRec { return l.recs[i] }

func (l *landed) entry(t *testing.T, i int) lokiquery.Entry {
	t.Helper()
	e, ok := l.entries[l.recs[i].off]
	require.True(t, ok, "line %d (offset %d) is in Loki", i, l.recs[i].off)
	return e
}

type badCase struct {
	name string
	data func(at time.Time) []byte
	// inexact is true when Loki's JSON API cannot return the line byte for
	// byte (invalid UTF-8); the case checks what it can instead.
	inexact bool
	check   func(t *testing.T, l *landed, env *badEnv)
}

type badEnv struct {
	loki     *lokiproc.Loki
	q        *lokiquery.Client
	dir      string
	settings map[string]string
	inst     *Instance
}

func newBadEnv(t *testing.T) *badEnv {
	l := lokiproc.ForTest(t, lokiproc.Config{})
	dir := t.TempDir()
	env := &badEnv{loki: l, q: &lokiquery.Client{URL: l.URL}, dir: dir, settings: map[string]string{
		"Loki_URL": l.URL, "Ledger_Path": filepath.Join(dir, "ledger.db"),
		"Dead_Letter_Path": filepath.Join(dir, "dl.jsonl"), "Metrics_Address": "127.0.0.1:0",
		"Node_Name": "node-bad", "Log_Level": "error",
	}}
	inst, err := NewInstance(getter(env.settings))
	require.NoError(t, err)
	t.Cleanup(func() { inst.Close() })
	env.inst = inst
	return env
}

// TestBadInputLandsTyped flushes one journal per case through a real Loki
// and checks every line's fate.
func TestBadInputLandsTyped(t *testing.T) {
	env := newBadEnv(t)
	at := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Millisecond)
	cases := badCases()
	results := make([]*landed, len(cases))
	for i, c := range cases {
		results[i] = env.flush(t, i, c.data(at))
	}
	dead := readDeadLetters(t, env.settings["Dead_Letter_Path"])
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := results[i]
			require.Equal(t, OK, l.code, "Flush returns OK")
			env.collect(t, l, dead)
			for _, r := range l.recs {
				e, inLoki := l.entries[r.off]
				_, inDL := l.dead[r.off]
				require.True(t, inLoki || inDL, "offset %d is in Loki or dead-lettered: no line is lost", r.off)
				assert.False(t, inLoki && inDL, "offset %d is not both shipped and dead-lettered", r.off)
				if inLoki && !c.inexact {
					assert.Equal(t, string(r.line), e.Line, "offset %d: the line byte for byte", r.off)
				}
			}
			c.check(t, l, env)
		})
	}
}

// flush writes data as case i's journal and flushes its tail records as
// one chunk.
func (env *badEnv) flush(t *testing.T, i int, data []byte) *landed {
	path := filepath.Join(env.dir, "sessions", badJob, fmt.Sprintf("session_20261121T100000Z_case-%d.jsonl", i))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	l := &landed{path: path, data: data, recs: tailOf(data)}
	var evs []chunk.Event
	for _, r := range l.recs {
		evs = append(evs, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, r.off, r.line))
	}
	l.code = env.inst.Flush(chunk.AppendChunk(nil, chunk.FormatV2, evs...), "sessions.bad")
	return l
}

// collect waits until every line of l not dead-lettered is visible in Loki.
func (env *badEnv) collect(t *testing.T, l *landed, dead []map[string]any) {
	l.dead = map[int64]map[string]any{}
	for _, d := range dead {
		if d["file"] == l.path {
			off, _ := d["offset"].(float64)
			l.dead[int64(off)] = d
		}
	}
	want := len(l.recs) - len(l.dead)
	got, err := env.q.WaitFor(context.Background(), `{service_name="agent-sessions"} | file=`+strconv.Quote(l.path),
		time.Now().Add(-2*time.Hour), time.Now().Add(time.Minute), want, 30*time.Second)
	require.NoError(t, err)
	require.Len(t, got, want, "entries in Loki for %s", l.path)
	l.entries = map[int64]lokiquery.Entry{}
	for _, e := range got {
		off, err := strconv.ParseInt(e.Metadata["byte_offset"], 10, 64)
		require.NoError(t, err)
		l.entries[off] = e
	}
}

// corrupt asserts a corrupt outcome whose reason contains reason.
func corrupt(t *testing.T, e lokiquery.Entry, reason string) {
	t.Helper()
	assert.Equal(t, "corrupt", e.Metadata["integrity"])
	assert.Equal(t, "corrupt", e.Stream["event_type"])
	assert.Contains(t, e.Metadata["annotations"], "corrupt")
	assert.Contains(t, e.Metadata["corrupt_reason"], reason)
}

// schemaInvalid asserts a schema_invalid outcome whose violations contain
// violation.
func schemaInvalid(t *testing.T, e lokiquery.Entry, violation string) {
	t.Helper()
	assert.Equal(t, "schema_invalid", e.Metadata["integrity"])
	assert.Contains(t, e.Metadata["annotations"], "schema_invalid")
	assert.Contains(t, e.Metadata["violations"], violation)
}

// clean asserts a valid line without annotations.
func clean(t *testing.T, e lokiquery.Entry, what string) {
	t.Helper()
	assert.Equal(t, "valid", e.Metadata["integrity"], what)
	assert.Empty(t, e.Metadata["annotations"], what)
}

func lines(ls ...[]byte) []byte {
	return append(bytes.Join(ls, []byte("\n")), '\n')
}

func badCases() []badCase {
	tick := func(at time.Time, n int) time.Time { return at.Add(time.Duration(n) * time.Second) }
	return []badCase{
		{name: "torn line glued to the next", data: func(at time.Time) []byte {
			torn := append(badLine("TOOL_START", tick(at, 1), "1", "")[:40:40], badLine("ERROR", tick(at, 2), "2", "")...)
			return lines(badStart(at), torn, badLine("ERROR", tick(at, 3), "3", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			e := l.entry(t, 1)
			corrupt(t, e, "JSON")
			assert.Contains(t, e.Metadata["annotations"], "timestamp_fallback")
			assert.Equal(t, l.entry(t, 0).Time, e.Time, "placed at the previous line's time")
			assert.Equal(t, "1-2", l.entry(t, 2).Metadata["seq_gap"], "the torn line swallowed seqs 1 and 2")
		}},
		{name: "line of only spaces", data: func(at time.Time) []byte {
			return lines(badStart(at), []byte("        "), badLine("ERROR", tick(at, 1), "1", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			corrupt(t, l.entry(t, 1), "blank")
			clean(t, l.entry(t, 2), "a blank line changes nothing")
		}},
		{name: "NUL bytes", data: func(at time.Time) []byte {
			inString := badLine("ERROR", tick(at, 1), "1", `,"x":"a`+"\x00\x00"+`b"`)
			return lines(badStart(at), inString, []byte("\x00\x00\x00\x00"), badLine("ERROR", tick(at, 2), "2", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			corrupt(t, l.entry(t, 1), "") // a raw control character inside a JSON string
			corrupt(t, l.entry(t, 2), "")
			assert.NotEmpty(t, l.entry(t, 1).Metadata["corrupt_reason"])
			assert.NotEmpty(t, l.entry(t, 2).Metadata["corrupt_reason"])
			assert.Equal(t, "1", l.entry(t, 3).Metadata["seq_gap"], "the corrupt line's seq 1 is unreadable")
		}},
		{name: "invalid UTF-8", inexact: true, data: func(at time.Time) []byte {
			return lines(badStart(at), badLine("ERROR", tick(at, 1), "1", `,"x":"caf`+"\xe9 \xff\xfe"+`"`), badLine("ERROR", tick(at, 2), "2", ""))
		}, check: checkInvalidUTF8},
		{name: "UTF-8 BOM at the start of the first line", data: func(at time.Time) []byte {
			return lines(append([]byte("\xef\xbb\xbf"), badStart(at)...), badLine("ERROR", tick(at, 1), "1", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			require.Equal(t, int64(0), l.rec(0).off)
			corrupt(t, l.entry(t, 0), "JSON")
			t.Logf("the line after the BOM line: annotations=%q seq_gap=%q agent_id=%q",
				l.entry(t, 1).Metadata["annotations"], l.entry(t, 1).Metadata["seq_gap"], l.entry(t, 1).Metadata["agent_id"])
		}},
		{name: "JSON with duplicate keys", data: func(at time.Time) []byte {
			return lines(badStart(at), badLine("ERROR", tick(at, 1), "1", `,"job_id":"`+badJob+`"`), badLine("ERROR", tick(at, 2), "2", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			e := l.entry(t, 1)
			schemaInvalid(t, e, "job_id: duplicate key")
			assert.Contains(t, e.Metadata["annotations"], "duplicate_key")
			clean(t, l.entry(t, 2), "the duplicate-key line's seq counts")
		}},
		{name: "numbers as strings", data: func(at time.Time) []byte {
			return lines(badStart(at), badLine("ERROR", tick(at, 1), `"1"`, ""),
				badLine("LLM_REQUEST", tick(at, 2), "2", `,"model":"m","step_index":"0"`), badLine("ERROR", tick(at, 3), "3", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			schemaInvalid(t, l.entry(t, 1), "seq: must be an integer")
			schemaInvalid(t, l.entry(t, 2), "step_index: must be an integer")
			assert.Equal(t, "1", l.entry(t, 2).Metadata["seq_gap"], `seq "1" is not a seq`)
			clean(t, l.entry(t, 3), "after seq 2")
		}},
		{name: "seq negative", data: func(at time.Time) []byte {
			return lines(badStart(at), badLine("ERROR", tick(at, 1), "-1", ""), badLine("ERROR", tick(at, 2), "1", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			schemaInvalid(t, l.entry(t, 1), "seq: must be >= 0")
			assert.Empty(t, l.entry(t, 1).Metadata["seq"], "no seq shipped")
			clean(t, l.entry(t, 2), "seq -1 changes nothing")
		}},
		{name: "seq huge (2^70)", data: func(at time.Time) []byte {
			return lines(badStart(at), badLine("ERROR", tick(at, 1), "1180591620717411303424", ""), badLine("ERROR", tick(at, 2), "1", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			e := l.entry(t, 1)
			schemaInvalid(t, e, "seq: ")
			assert.NotContains(t, e.Metadata["violations"], "must be an integer", "2^70 is an integer: the reason should say it is out of range")
			assert.Empty(t, e.Metadata["seq"], "no seq shipped")
			clean(t, l.entry(t, 2), "an unreadable seq changes nothing")
		}},
		{name: "deeply nested value (1000 levels)", data: func(at time.Time) []byte {
			deep := `,"x":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
			return lines(badStart(at), badLine("ERROR", tick(at, 1), "1", deep), badLine("ERROR", tick(at, 2), "2", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			e := l.entry(t, 1)
			if e.Metadata["integrity"] == "corrupt" {
				assert.Regexp(t, "(?i)nest|depth|deep", e.Metadata["corrupt_reason"],
					"valid JSON refused for its depth must say so, not call it not JSON")
			} else {
				clean(t, e, "1000 levels of arrays are valid JSON")
			}
			assert.Empty(t, l.entry(t, 2).Metadata["seq_gap"], "seq 1 is in the file: no false gap after the nested line")
		}},
		{name: "10 MB line", data: func(at time.Time) []byte {
			big := badLine("ERROR", tick(at, 1), "1", `,"pad":"`+strings.Repeat("x", 10<<20)+`"`)
			return lines(badStart(at), big, badLine("ERROR", tick(at, 2), "2", ""))
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			d, ok := l.dead[l.rec(1).off]
			require.True(t, ok, "the 10 MB line is dead-lettered")
			assert.Contains(t, d["reason"], "Max_Line_Bytes")
			assert.Equal(t, "pipeline", d["stage"])
			assert.Equal(t, string(l.rec(1).line), d["line"], "dead-lettered byte for byte")
			assert.Len(t, l.entries, 2, "the lines around it are shipped")
			clean(t, l.entry(t, 2), "the dead-lettered line's seq counts")
		}},
		{name: "empty file", data: func(time.Time) []byte { return nil }, check: func(t *testing.T, l *landed, env *badEnv) {
			assert.Empty(t, l.recs)
			assert.Empty(t, l.entries)
			assert.Empty(t, l.dead)
			assertLedger(t, env, l.path, 0)
		}},
		{name: "only a partial line", data: func(at time.Time) []byte {
			return badStart(at)[:50]
		}, check: func(t *testing.T, l *landed, env *badEnv) {
			assert.Empty(t, l.recs, "tail never emits a line without its newline")
			assert.Empty(t, l.entries)
			assert.Empty(t, l.dead)
			assertLedger(t, env, l.path, 0)
		}},
		{name: "complete lines then a partial line", data: func(at time.Time) []byte {
			return append(lines(badStart(at), badLine("ERROR", tick(at, 1), "1", "")), badLine("ERROR", tick(at, 2), "2", "")[:30]...)
		}, check: func(t *testing.T, l *landed, env *badEnv) {
			require.Len(t, l.recs, 2)
			assert.Len(t, l.entries, 2)
			assertLedger(t, env, l.path, l.rec(1).off+int64(len(l.rec(1).line))+1)
		}},
		{name: "CRLF line endings", data: func(at time.Time) []byte {
			var b []byte
			for i, line := range [][]byte{badStart(at), badLine("ERROR", tick(at, 1), "1", ""), badLine("ERROR", tick(at, 2), "2", "")} {
				if i == 2 {
					b = append(b, "\r\n"...) // an empty CRLF line: skipped by tail
				}
				b = append(append(b, line...), "\r\n"...)
			}
			return b
		}, check: func(t *testing.T, l *landed, _ *badEnv) {
			require.Len(t, l.recs, 3)
			for i := range l.recs {
				e := l.entry(t, i)
				assert.NotContains(t, e.Line, "\r")
				clean(t, e, "CRLF line "+strconv.Itoa(i))
			}
		}},
	}
}

// checkInvalidUTF8: Loki stores the bytes as pushed, but its JSON query API
// replaces invalid UTF-8 with U+FFFD, so the line cannot be read back byte
// for byte there. What is checked: the corrupt outcome; that the stored
// line holds the exact bytes (a LogQL line filter with the raw bytes
// matches it, and bytes_over_time counts exactly its length); and what the
// API returns.
func checkInvalidUTF8(t *testing.T, l *landed, env *badEnv) {
	r := l.rec(1)
	e := l.entry(t, 1)
	corrupt(t, e, "UTF-8")
	assert.Equal(t, "1", l.entry(t, 2).Metadata["seq_gap"], "the corrupt line's seq 1 is unreadable")
	assert.Equal(t, string([]rune(string(r.line))), e.Line,
		"the API's line is the journal line with one U+FFFD per invalid byte")
	t.Logf("bytes pushed %q, API returned %q", r.line, e.Line)

	sel := `{service_name="agent-sessions"} | file=` + strconv.Quote(l.path)
	exact := sel + ` |= ` + strconv.Quote(string(r.line)) // LogQL unquotes \xff to the raw byte
	got, err := env.q.QueryRange(context.Background(), exact,
		time.Now().Add(-2*time.Hour), time.Now().Add(time.Minute), 100, lokiquery.Forward)
	require.NoError(t, err)
	require.Len(t, got, 1, "a line filter with the exact raw bytes finds the stored line")
	assert.Equal(t, strconv.FormatInt(r.off, 10), got[0].Metadata["byte_offset"])

	q := `sum(bytes_over_time(` + exact + ` [3h]))`
	s, err := env.q.Instant(context.Background(), q, time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.Len(t, s, 1)
	assert.Equal(t, float64(len(r.line)), s[0].Value, "Loki stores exactly the pushed bytes")
}

// assertLedger checks the ledger's watermark for path.
func assertLedger(t *testing.T, env *badEnv, path string, watermark int64) {
	t.Helper()
	l, err := ledger.Open(ledger.Config{Path: env.settings["Ledger_Path"]})
	require.NoError(t, err)
	defer l.Close()
	st, err := l.File(context.Background(), path)
	require.NoError(t, err)
	assert.Equal(t, watermark, st.Watermark, "ledger watermark of %s", path)
}
