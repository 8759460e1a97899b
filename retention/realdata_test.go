package retention

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/realdata"
)

// journalsUnder lists the .jsonl files under dir.
func journalsUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return err
	}))
	require.NotEmpty(t, out)
	return out
}

// TestGoSessionRealStoreDeletedWhole sweeps a copy of the store Goat's own
// code wrote: every session's run ended (metadata.json's exit_reason after
// its last message), so once shipped each session directory goes whole,
// its journals, metadata.json and checkpoints with it.
func TestGoSessionRealStoreDeletedWhole(t *testing.T) {
	src := realdata.Dir(t, "go-session")
	e := newEnv(t)
	copyTree(t, src, e.root, e.now.Add(-25*time.Hour))
	e.cfg.Formats.Roots = map[string][]string{"go-session": {e.root}}
	journals := journalsUnder(t, e.root)

	r := e.sweep(nil)
	assert.Zero(t, r.Errors)
	for _, j := range journals {
		assert.Equal(t, RuleRunOver, decision(t, r, j).Rule, j)
		assert.False(t, exists(j), "%s: deleted", j)
		assert.False(t, exists(filepath.Dir(j)), "%s: its session directory, metadata and checkpoints with it", j)
	}
}

// TestClaudeCodeRealTranscriptsDeletedWhole sweeps a copy of the public
// Claude Code transcripts: every session is idle and quiet, so once
// shipped its main transcript goes with its subagent directory.
func TestClaudeCodeRealTranscriptsDeletedWhole(t *testing.T) {
	src := realdata.Dir(t, "claude-code")
	e := newEnv(t)
	copyTree(t, filepath.Join(src, "projects"), e.root, e.now.Add(-25*time.Hour))
	e.cfg.Formats.Roots = map[string][]string{"claude-code": {e.root}}
	journals := journalsUnder(t, e.root)

	r := e.sweep(nil)
	assert.Zero(t, r.Errors)
	for _, j := range journals {
		assert.False(t, exists(j), "%s: deleted", j)
	}
	sub := filepath.Join(e.root, "-home-USER-projects-spotter-worktrees-spotter-dov", "4d5611e5-241a-462a-8d15-5122611a9569")
	assert.False(t, exists(sub), "the session's subagent directory goes with it")
	for _, j := range journals {
		if !strings.Contains(j, "/subagents/") {
			assert.Equal(t, RuleRunOver, decision(t, r, j).Rule, j)
		}
	}
}
