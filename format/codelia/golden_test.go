package codelia

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format/formattest"
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
	formattest.GoldenJournals(t, goldenPaths, *update, "run go test ./format/codelia -update", renderFile)
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
	st := f.NewState(p)
	formattest.JudgeFile(&b, f.NewJudge(), st, data, formattest.Style{})
	return b.String()
}
