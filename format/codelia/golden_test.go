package codelia

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenPaths are the paths the testdata files are judged under: the
// layout's, with the run's date and run_id (anomalies.jsonl's name is not
// its run_id and its date is not its header's).
var goldenPaths = map[string]string{
	"spec-example.jsonl":   "/home/dev/.codelia/sessions/2026/02/03/8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl",
	"crashed.jsonl":        "/home/dev/.codelia/sessions/2026/03/14/3b4f2c1a-9d8e-4f7a-b6c5-0a1b2c3d4e5f.jsonl",
	"anomalies.jsonl":      "/home/dev/.codelia/sessions/2026/02/03/run-a.jsonl",
	"future-version.jsonl": "/home/dev/.codelia/sessions/2026/05/01/d9e8f7a6-b5c4-4d3e-8f2a-1b0c9d8e7f6a.jsonl",
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			path, ok := goldenPaths[filepath.Base(file)]
			require.True(t, ok, "add %s to goldenPaths", file)
			got := renderFile(t, path, data)
			golden := strings.TrimSuffix(file, ".jsonl") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./format/codelia -update")
			assert.Equal(t, string(want), got)
		})
	}
}

// renderFile judges a file's lines (a last one without its newline is the
// torn tail) and renders each neutral event, then the file's state.
func renderFile(t *testing.T, path string, data []byte) string {
	f := New()
	p, ok := f.Claim(path)
	require.True(t, ok)
	var b strings.Builder
	fmt.Fprintf(&b, "path %s run_id=%s started=%s group=file problem=%q\n",
		path, p.RunID, p.Started.Format(time.DateOnly), p.Problem)
	st, j := f.NewState(p), f.NewJudge()
	a := integrity.NewArena(1 << 12)
	var ev format.Event
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		last := i == len(lines)-1
		if last && len(l) == 0 {
			break
		}
		a.Reset(1 << 12)
		j.Judge(l, st, a, &ev)
		tail := ""
		if last {
			tail = " (torn tail)"
		}
		fmt.Fprintf(&b, "%d%s: %s\n", i+1, tail, render(&ev))
	}
	over, terminal := st.Over()
	fmt.Fprintf(&b, "over=%t terminal=%t derived=%q\n", over, terminal, st.Derived())
	for _, o := range st.Open() {
		fmt.Fprintf(&b, "open: %s\n", o)
	}
	return b.String()
}

// render is a readable form of the neutral event; unset fields are left
// out.
func render(ev *format.Event) string {
	var b strings.Builder
	b.WriteString(ev.Outcome.String())
	if ev.Outcome == integrity.Corrupt {
		fmt.Fprintf(&b, " reason=%q", ev.CorruptReason)
		return b.String()
	}
	typ := ev.EventType
	if typ == "" {
		typ = "other(" + string(ev.TypeName) + ")"
	}
	fmt.Fprintf(&b, " type=%s role=%s", typ, ev.Role)
	for _, fl := range []struct {
		f    format.Flags
		name string
	}{{format.UnknownType, "unknown_type"}, {format.BestEffort, "best_effort"}, {format.DuplicateKey, "duplicate_key"}} {
		if ev.Flags&fl.f != 0 {
			b.WriteString(" " + fl.name)
		}
	}
	if ev.HasTime {
		b.WriteString(" time=" + ev.Time.UTC().Format(time.RFC3339Nano))
	}
	if ev.HasSchemaVersion {
		fmt.Fprintf(&b, " schema_version=%d", ev.SchemaVersion)
	}
	for _, s := range []struct {
		k string
		v []byte
	}{{"run", ev.RunID}, {"session", ev.SessionID}, {"model", ev.Model}, {"tool", ev.ToolName}, {"call", ev.ToolCallID}} {
		if len(s.v) > 0 {
			fmt.Fprintf(&b, " %s=%s", s.k, s.v)
		}
	}
	if ev.HasSeq {
		fmt.Fprintf(&b, " seq=%d", ev.Seq)
	}
	if ev.HasPair {
		fmt.Fprintf(&b, " pair=%d", ev.Pair)
	}
	if u := ev.Usage; u.Has {
		fmt.Fprintf(&b, " usage=in:%d,out:%d,cache_read:%d,cache_write:%d", u.Input, u.Output, u.CacheRead, u.CacheWrite)
	}
	if n := notes(ev); len(n) > 0 {
		b.WriteString(" notes=" + strings.Join(n, ","))
	}
	if v := violations(ev); len(v) > 0 {
		b.WriteString(" violations=[" + strings.Join(v, "; ") + "]")
	}
	if ev.Ends {
		fmt.Fprintf(&b, " ends terminal=%t", ev.Terminal)
	}
	if ev.State != "" {
		b.WriteString(" state=" + ev.State)
	}
	return b.String()
}
