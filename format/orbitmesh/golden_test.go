package orbitmesh

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenNow is the clock of the golden files: after every session's lines,
// past the deadline of testdata/deadline.json.
var goldenNow = time.Date(2026, 2, 21, 12, 30, 0, 0, time.UTC)

// TestGolden judges each testdata/*.messages.jsonl, with the snapshot and
// token index beside it, into testdata/<name>.golden (-update rewrites).
func TestGolden(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join("testdata", "*"+Suffix))
	require.NoError(t, err)
	require.NotEmpty(t, logs)
	for _, log := range logs {
		name := strings.TrimSuffix(filepath.Base(log), Suffix)
		t.Run(name, func(t *testing.T) {
			got := renderSession(t, log)
			golden := filepath.Join("testdata", name+".golden")
			formattest.Golden(t, golden, string(got), *update, "run with -update to create it")
		})
	}
}

func renderSession(t *testing.T, log string) []byte {
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	f := testFormat(t, goldenNow)
	p, ok := f.Claim(log)
	require.True(t, ok)
	st := f.NewState(p).(*State)
	snap := ReadSnapshot(log)
	st.UseSnapshot(snap)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# snapshot: read=%v run=%q boot=%q last_boot_seen=%q wait_token=%q deadline=%q last_seq=%d tokens=%d\n",
		snap.Read, snap.RunID, snap.BootID, snap.LastBootSeen, snap.WaitToken, timeText(snap.WaitDeadline, snap.HasWaitDeadline), snap.LastSeq, len(snap.Tokens))
	lines := bytes.Split(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	} else {
		fmt.Fprintf(&b, "# the last line has no newline (a torn tail)\n")
	}
	j := f.NewJudge()
	var a integrity.Arena
	var ev format.Event
	for i, l := range lines {
		j.Judge(l, st, &a, &ev)
		fmt.Fprintf(&b, "%d %s\n", i+1, render(&ev))
	}
	over, terminal := st.Over()
	fmt.Fprintf(&b, "# derived=%s over=%v terminal=%v open=%q\n", st.Derived(), over, terminal, st.Open())
	return b.Bytes()
}

func timeText(t time.Time, ok bool) string {
	if !ok {
		return ""
	}
	return t.Format(time.RFC3339)
}

// render is one line's neutral event, readable.
func render(ev *format.Event) string {
	if ev.Outcome == integrity.Corrupt {
		return fmt.Sprintf("corrupt %q", ev.CorruptReason)
	}
	var b strings.Builder
	et := ev.EventType
	if et == "" {
		et = "other(" + string(ev.TypeName) + ")"
	}
	fmt.Fprintf(&b, "%s %s role=%s", ev.Outcome, et, ev.Role)
	if ev.HasSeq {
		fmt.Fprintf(&b, " seq=%d", ev.Seq)
	}
	fmt.Fprintf(&b, " state=%s", ev.State)
	if len(ev.RunID) > 0 {
		fmt.Fprintf(&b, " run=%s", ev.RunID)
	}
	if len(ev.Model) > 0 {
		fmt.Fprintf(&b, " model=%s", ev.Model)
	}
	for _, fl := range []struct {
		f    format.Flags
		name string
	}{{format.UnknownType, "unknown_type"}, {format.BestEffort, "best_effort"}, {format.DuplicateKey, "duplicate_key"}} {
		if ev.Flags&fl.f != 0 {
			b.WriteString(" " + fl.name)
		}
	}
	if ev.NoteCount > 0 {
		fmt.Fprintf(&b, " notes=%v", notes(ev))
	}
	if len(ev.Violations) > 0 {
		fmt.Fprintf(&b, " violations=%q", formattest.Violations(ev))
	}
	if ev.Ends {
		b.WriteString(" ends")
	}
	if ev.Terminal {
		b.WriteString(" terminal")
	}
	return b.String()
}
