package claudecode

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// golden is how a testdata file is judged: under path, and, for a
// subagent file, with the testdata file main as its session's main
// transcript on disk.
type golden struct {
	path string
	main string
}

// style is how the golden files render an event.
var style = formattest.Style{CacheWrite1h: true, EndReason: true, Cost: "cost_usd", CostAfterEnd: true}

var goldenFiles = map[string]golden{
	"spec-example.jsonl":    {path: mainPath},
	"split-responses.jsonl": {path: root + "/-home-dev-app/7c2d9f40-1b3e-4d5a-8c6f-2e1d0c9b8a70.jsonl"},
	"synthetic.jsonl":       {path: root + "/-home-dev-app/8d3e0a51-2c4f-4e6b-9d70-3f2e1d0cab81.jsonl"},
	"fork.jsonl":            {path: root + "/-home-dev-app/9e4f1b62-3d50-4f7c-8e81-4a3f2e1dbc92.jsonl"},
	"compaction.jsonl":      {path: root + "/-home-dev-app/a05f2c73-4e61-4a8d-9f92-5b4a3f2ecda3.jsonl"},
	"interruptions.jsonl":   {path: root + "/-home-dev-app/b1603d84-5f72-4b9e-8a03-6c5b4a3fdeb4.jsonl"},
	"tools.jsonl":           {path: root + "/-home-dev-app/c2714e95-6083-4caf-9b14-7d6c5b4aefc5.jsonl"},
	"forward-compat.jsonl":  {path: root + "/-home-dev-app/d3825fa6-7194-4db0-8c25-8e7d6c5bf0d6.jsonl"},
	"faults.jsonl":          {path: root + "/-home-dev-app/e4936ab7-82a5-4ec1-9d36-9f8e7d6c01e7.jsonl"},
	"subagent-main.jsonl":   {path: root + "/-home-dev-app/f5a47bc8-93b6-4fd2-8e47-a09f8e7d12f8.jsonl"},
	"subagent.jsonl": {path: root + "/-home-dev-app/f5a47bc8-93b6-4fd2-8e47-a09f8e7d12f8/subagents/agent-a7f3e21.jsonl",
		main: "subagent-main.jsonl"},
	"legacy-agent.jsonl": {path: root + "/-home-dev-app/agent-5d4c3b2a.jsonl"},
	"stream-json.jsonl":  {path: "/srv/captures/nightly/run-1.jsonl"},
}

func TestGolden(t *testing.T) {
	formattest.GoldenJournals(t, goldenFiles, *update, "run go test ./format/claudecode -update", renderFile)
}

// renderFile judges a file's lines (a last one without its newline is the
// torn tail) and renders each neutral event, then the file's state.
func renderFile(t *testing.T, g golden, data []byte) string {
	f := New()
	p, ok := f.Claim(g.path)
	if !ok {
		// A capture outside the layout, found by its content under the
		// format's root: the registry gives it this path.
		require.True(t, f.Sniff(firstLine(data)), "%s is neither claimed nor sniffed", g.path)
		p = format.Path{Format: Name, Group: g.path}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "path %s session=%q agent=%q group=%s problem=%q\n", g.path, p.SessionID, p.AgentID, p.Group, p.Problem)
	st := f.NewState(p)
	if g.main != "" {
		// The subagent file in a copy of the layout, its main transcript
		// beside it.
		dir := t.TempDir()
		rel := strings.TrimPrefix(g.path, root)
		local := filepath.Join(dir, filepath.FromSlash(rel))
		main, ok := MainTranscript(local)
		require.True(t, ok)
		require.NoError(t, os.MkdirAll(filepath.Dir(local), 0o755))
		content, err := os.ReadFile(filepath.Join("testdata", g.main))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(main, content, 0o644))
		require.NoError(t, os.WriteFile(local, data, 0o644))
		st.(format.SideFiles).Load(local)
		fmt.Fprintf(&b, "main transcript %s loaded\n", g.main)
	}
	formattest.JudgeFile(&b, f.NewJudge(), st, data, style)
	return b.String()
}

// firstLine returns data's first line.
func firstLine(data []byte) []byte {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return line
}
