package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalship/journalship/format/registry"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyFixture copies a format package's test journal to dst under root.
func copyFixture(t *testing.T, root, src, dst string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "format", src))
	require.NoError(t, err)
	path := filepath.Join(root, dst)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// TestEveryFormatByItsOwnRules audits a mixed root: each file is judged by
// its own format (never as a Cortex Plane buffer), with that format's
// continuity, end and open requests.
func TestEveryFormatByItsOwnRules(t *testing.T) {
	root := t.TempDir()
	crashed := copyFixture(t, root, "codelia/testdata/crashed.jsonl",
		"codelia/sessions/2026/03/14/3b4f2c1a-9d8e-4f7a-b6c5-0a1b2c3d4e5f.jsonl")
	spec := copyFixture(t, root, "codelia/testdata/spec-example.jsonl",
		"codelia/sessions/2026/02/03/8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl")
	restart := copyFixture(t, root, "orbitmesh/testdata/restart.messages.jsonl", "orbitmesh/sessions/restart.messages.jsonl")
	copyFixture(t, root, "orbitmesh/testdata/restart.json", "orbitmesh/sessions/restart.json")
	torn := copyFixture(t, root, "orbitmesh/testdata/torn.messages.jsonl", "orbitmesh/sessions/torn.messages.jsonl")
	other := filepath.Join(root, "misc", "notes.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	require.NoError(t, os.WriteFile(other, []byte("{\"a\":1}\nnot json\n{\"b\":2}\n"), 0o644))

	reports := map[string]Report{}
	_, err := Tree([]string{root}, DefaultConfig(), func(r Report) { reports[r.Path] = r })
	require.NoError(t, err)
	require.Len(t, reports, 5, "the snapshot restart.json is not a journal")

	r := reports[crashed]
	assert.Equal(t, "codelia", r.Format)
	assert.Equal(t, "path", r.DetectedBy)
	assert.False(t, r.SessionEnded, "a crashed run is not over")
	assert.NotEmpty(t, r.Unfinished, "the request the crash left unanswered")
	assert.Contains(t, r.Unfinished[0], "was never answered")
	assert.Zero(t, r.SchemaInvalidLines, "codelia's own records are not schema-invalid")
	assert.Equal(t, Warning, r.Level())

	r = reports[spec]
	assert.Equal(t, "codelia", r.Format)
	assert.True(t, r.SessionEnded, "run.end ends the run")
	assert.Empty(t, r.Unfinished)
	assert.Zero(t, r.CorruptLines+r.SchemaInvalidLines)
	assert.Equal(t, []ToolCall{}, r.StartedNotFinished, "every tool call has its output")

	r = reports[restart]
	assert.Equal(t, "orbitmesh", r.Format)
	// The run waits for an approval whose deadline, read from the snapshot
	// beside the log, passed long ago.
	assert.Equal(t, "interrupted_waiting", r.State, "the derived status after the last line, with the snapshot")
	assert.Zero(t, r.SeqGapCount+r.DuplicateSeqs+r.Regressions)

	r = reports[torn]
	assert.Equal(t, "orbitmesh", r.Format)
	assert.True(t, r.TailTruncated || r.CorruptLines > 0, "the torn line is found")

	r = reports[other]
	assert.Equal(t, "unknown", r.Format)
	assert.Equal(t, "fallback", r.DetectedBy)
	assert.Equal(t, 1, r.CorruptLines, "each line is checked as JSON")
	assert.Equal(t, 3, r.TotalLines)
}

// TestFormatSettingOverridesDetection judges a file by the configured
// format, whatever its path says.
func TestFormatSettingOverridesDetection(t *testing.T) {
	root := t.TempDir()
	p := copyFixture(t, root, "codelia/testdata/spec-example.jsonl", "x/run.jsonl")
	cfg := DefaultConfig()
	cfg.Formats.Format = "codelia"
	r, err := File(p, cfg)
	require.NoError(t, err)
	assert.Equal(t, "codelia", r.Format)
	assert.Equal(t, "setting", r.DetectedBy)
	cfg.Formats.Format = "nosuch"
	_, err = File(p, cfg)
	require.Error(t, err)
}

// TestFileAsTheShippersFormat audits a file by the format the caller
// gives, without detecting one.
func TestFileAsTheShippersFormat(t *testing.T) {
	p := copyFixture(t, t.TempDir(), "codelia/testdata/spec-example.jsonl", "x/run.jsonl")
	r, err := FileAs(p, DefaultConfig(), registry.Lookup("codelia"))
	require.NoError(t, err)
	assert.Equal(t, "codelia", r.Format)
	assert.Equal(t, "setting", r.DetectedBy)
	assert.True(t, r.SessionEnded, "judged by Codelia's rules: run.end ends the run")
}

// TestQuietEndFormatsSayWhyNotOver: Claude Code writes no end record; a
// session not over is one that is not idle, and verify says so instead
// of looking for an end line.
func TestQuietEndFormatsSayWhyNotOver(t *testing.T) {
	for _, c := range []struct{ format, path, state, want string }{
		{"claude-code", "/p/-home-dev-app/s.jsonl", "acting", "not over: the session is acting, not idle"},
		{"codelia", "/p/sessions/2026/02/03/r.jsonl", "running", "not over: no end of the session or run in the file"},
	} {
		var b strings.Builder
		tw := NewTableWriter(&b, DefaultConfig())
		require.NoError(t, tw.Write(Report{Path: c.path, Format: c.format, State: c.state, TotalLines: 3, ValidLines: 3}))
		_, err := tw.Close(nil)
		require.NoError(t, err)
		assert.Contains(t, b.String(), c.want, c.format)
	}
}
