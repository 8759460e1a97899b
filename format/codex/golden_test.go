package codex

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// style is how the golden files render an event.
var style = formattest.Style{}

// goldenPaths are the paths the testdata files are judged under.
var goldenPaths = map[string]string{
	"spec-example.jsonl":     mainPath,
	"legacy.jsonl":           root + "/sessions/2025/09/08/rollout-2025-09-08T20-58-38-cf4def41-21e0-4b91-adb4-5397c1492084.jsonl",
	"resume-and-abort.jsonl": root + "/sessions/2025/09/25/rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl",
	"fork.jsonl":             root + "/sessions/2026/02/23/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl",
	"faults.jsonl":           "/srv/captures/codex-exec-output.jsonl",
}

func TestGolden(t *testing.T) {
	formattest.GoldenJournals(t, goldenPaths, *update, "run go test ./format/codex -update", renderFile)
}

// renderFile judges a file's lines (a last one without its newline is the
// torn tail) and renders each neutral event, then the file's state.
func renderFile(t *testing.T, path string, data []byte) string {
	f := New()
	p, ok := f.Claim(path)
	if !ok {
		// A rollout under another name, found by its content.
		first, _, _ := bytes.Cut(data, []byte("\n"))
		require.True(t, f.Sniff(first), "%s is neither claimed nor sniffed", path)
		p = format.Path{Format: Name, Group: path}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "path %s session=%q started=%s problem=%q\n", path, p.SessionID, p.Started.Format("2006-01-02T15:04:05"), p.Problem)
	formattest.JudgeFile(&b, f.NewJudge(), f.NewState(p), data, style)
	return b.String()
}
