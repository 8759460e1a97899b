package sample_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/cortex"
)

func TestWriteTo(t *testing.T) {
	c, err := cortex.Generate(cortex.FixtureConfig())
	require.NoError(t, err)
	root := filepath.Join(t.TempDir(), "sessions")
	require.NoError(t, c.WriteTo(root))
	require.NoError(t, c.WriteTo(root), "writing twice overwrites")
	for _, f := range c.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Rel))
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, f.Data, data)
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
		assert.True(t, st.ModTime().Equal(f.LastTime()), "mtime is the last event's time")
		dst, err := os.Stat(filepath.Dir(p))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o755), dst.Mode().Perm())
	}
}

func TestWriteToRejectsUnsafePaths(t *testing.T) {
	for _, rel := range []string{"", "/etc/x.jsonl", "../x.jsonl", "a/../../x.jsonl", ".", "a/.."} {
		t.Run(rel, func(t *testing.T) {
			root := t.TempDir()
			c := &sample.Corpus{Files: []sample.File{{Rel: rel, Data: []byte("{}\n")}}}
			err := c.WriteTo(root)
			var we *sample.WriteError
			require.ErrorAs(t, err, &we)
			assert.ErrorIs(t, err, sample.ErrUnsafePath)
			assert.Equal(t, "path", we.Op)
			assert.False(t, we.Retryable())
		})
	}
}

func TestWriteToReportsIOErrors(t *testing.T) {
	root := t.TempDir()
	blocker := filepath.Join(root, "job")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	c := &sample.Corpus{Files: []sample.File{{Rel: "job/session_20260223T143022Z_p.jsonl", Data: []byte("{}\n")}}}
	err := c.WriteTo(root)
	var we *sample.WriteError
	require.ErrorAs(t, err, &we)
	assert.Equal(t, "mkdir", we.Op)
	assert.Contains(t, err.Error(), blocker)
	assert.NoError(t, (*sample.Corpus)(nil).WriteTo(root))
}

func TestLastTime(t *testing.T) {
	assert.True(t, sample.File{}.LastTime().IsZero())
	f := sample.File{Lines: []sample.Line{{Text: `{"type":"X","timestamp":"2026-02-23T14:30:22.123Z"}`}, {Text: `{"type":"LLM_R{"`}}}
	assert.Equal(t, "2026-02-23T14:30:22.123Z", f.LastTime().Format(sample.TimestampLayout))
}

func TestTruthJSON(t *testing.T) {
	c, err := cortex.Generate(cortex.FixtureConfig())
	require.NoError(t, err)
	out, err := c.TruthJSON()
	require.NoError(t, err)
	assert.Contains(t, string(out), `"seq_gap:`)
	assert.Contains(t, string(out), `"partial_tail_size": `+strconv.Itoa(len(c.Files[0].PartialTail)))
	empty, err := (*sample.Corpus)(nil).TruthJSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"files":[],"tokens_by_model":{}}`, string(empty))
}
