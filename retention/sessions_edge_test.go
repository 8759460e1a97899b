package retention

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClaudeCodeForcedMemberIsReported: with ForceMaxAge, an unshipped
// subagent transcript deleted with its session is reported as forced,
// counted as unshipped past the max age and logged.
func TestClaudeCodeForcedMemberIsReported(t *testing.T) {
	e := newEnv(t)
	e.cfg.ForceMaxAge = true
	s := e.claudeSession(e.now.Add(-8 * 24 * time.Hour))
	// The main transcript is acting forever (so only max age applies):
	// use the tools fixture as main.
	data, err := os.ReadFile("../format/claudecode/testdata/tools.jsonl")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(s.main, data, 0o644))
	old := e.now.Add(-8 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(s.main, old, old))
	e.fin.modes[filepath.Base(s.sub)] = finNothing // never shipped
	r := e.sweep(nil)
	dm := decision(t, r, s.main)
	ds := decision(t, r, s.sub)
	t.Logf("main: %+v", dm)
	t.Logf("sub:  %+v", ds)
	t.Logf("unshipped past max age: %d, errors %d", r.UnshippedPastMaxAge, r.Errors)
	t.Logf("log: %s", e.log.String())
	assert.False(t, exists(s.sub), "forced")
	assert.Equal(t, RuleMaxAgeForced, ds.Rule, "the unshipped member's deletion must say it was forced")
	assert.Equal(t, 1, r.UnshippedPastMaxAge, "the unshipped member is counted")
	assert.Contains(t, e.log.String(), "NOT fully in Loki")
}

// TestClaudeCodeUnshippedMemberPastMaxAgeIsCounted: without force, an
// unshipped member past the max age keeps its session and is counted.
func TestClaudeCodeUnshippedMemberPastMaxAgeIsCounted(t *testing.T) {
	e := newEnv(t)
	s := e.claudeSession(e.now.Add(-8 * 24 * time.Hour))
	data, err := os.ReadFile("../format/claudecode/testdata/tools.jsonl")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(s.main, data, 0o644))
	old := e.now.Add(-8 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(s.main, old, old))
	e.fin.modes[filepath.Base(s.sub)] = finNothing
	r := e.sweep(nil)
	assert.True(t, exists(s.sub))
	assert.True(t, exists(s.main))
	assert.Equal(t, 1, r.UnshippedPastMaxAge, "a session file past the max age and not in Loki is counted")
}

// TestClaudeCodeSymlinkedSessionDir: a session directory that is a
// symlink to another session's directory (in the root) is never walked:
// the other session's files stay.
func TestClaudeCodeSymlinkedSessionDir(t *testing.T) {
	e := newEnv(t)
	s := e.claudeSession(e.now.Add(-25 * time.Hour))
	// A second, live session B in another project, with its own directory.
	other := "-home-dev-other"
	bID := "0b0b0b0b-93b6-4fd2-8e47-a09f8e7d12f8"
	bMain := e.fixture("claudecode/testdata/tools.jsonl", filepath.Join(other, bID+".jsonl"), e.now.Add(-time.Minute))
	bSub := e.fixture("claudecode/testdata/subagent.jsonl", filepath.Join(other, bID, "subagents", "agent-b1.jsonl"), e.now.Add(-25*time.Hour))
	bSide := filepath.Join(e.root, other, bID, "subagents", "agent-b1.meta.json")
	require.NoError(t, os.WriteFile(bSide, []byte(`{}`), 0o644))
	bOut := filepath.Join(e.root, other, bID, "tool-results", "big.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(bOut), 0o755))
	require.NoError(t, os.WriteFile(bOut, []byte(`big output`), 0o644))
	e.shipped(bSub)
	// Session A's directory replaced by a symlink to B's directory.
	require.NoError(t, os.RemoveAll(s.dir))
	require.NoError(t, os.Symlink(filepath.Join("..", other, bID), s.dir))
	r := e.sweep(nil)
	_ = r
	assert.False(t, exists(s.main), "A is deleted")
	assert.True(t, exists(bMain))
	assert.True(t, exists(bSub), "B's subagent transcript must not go with A")
	assert.True(t, exists(bSide), "B's sidecar must not go with A")
	assert.True(t, exists(bOut), "B's stored tool output must not go with A")
	for _, d := range r.Decisions {
		if strings.Contains(d.Path, ccSession) {
			t.Logf("%+v", d)
		}
	}
}

// TestGoSessionInsideClaudeProject: a Go pkg/session store in its usual
// place, inside Claude Code's project directory
// (~/.claude/projects/<project>/sessions/<id>/), is judged as go-session
// sessions, not as Claude Code files: an ended one (exit_reason written
// after its last message) is deleted as one, its directory with
// metadata.json, checkpoints and lock files included; one still running
// (no exit_reason) keeps every file, however old its journals.
func TestGoSessionInsideClaudeProject(t *testing.T) {
	e := newEnv(t)
	s := e.claudeSession(e.now.Add(-25 * time.Hour))
	old := e.now.Add(-3 * 24 * time.Hour)
	gdir := filepath.Join(ccProject, "sessions", "0c0c0c0c-1111-4111-8111-111111111111")
	msgs := e.fixture("gosession/testdata/sessions/finished/messages.jsonl", filepath.Join(gdir, "messages.jsonl"), old)
	tr := e.fixture("gosession/testdata/sessions/finished/transcript.jsonl", filepath.Join(gdir, "transcript.jsonl"), old)
	meta := e.fixture("gosession/testdata/sessions/finished/metadata.json", filepath.Join(gdir, "metadata.json"), old)
	cp := filepath.Join(e.root, gdir, "checkpoints", "cp-001", "manifest.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(cp), 0o755))
	require.NoError(t, os.WriteFile(cp, []byte(`{"checkpoint_id":"cp-001","files":[]}`), 0o644))
	lock := filepath.Join(e.root, gdir, "messages.jsonl.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	for _, p := range []string{cp, lock} {
		require.NoError(t, os.Chtimes(p, old, old))
	}

	live := filepath.Join(ccProject, "sessions", "0d0d0d0d-2222-4222-8222-222222222222")
	liveMsgs := e.fixture("gosession/testdata/sessions/finished/messages.jsonl", filepath.Join(live, "messages.jsonl"), old)
	liveMeta := filepath.Join(e.root, live, "metadata.json")
	require.NoError(t, os.WriteFile(liveMeta, []byte(`{"session_id":"0d0d0d0d-2222-4222-8222-222222222222","model":"m"}`), 0o644))
	require.NoError(t, os.Chtimes(liveMeta, old, old))

	require.NoError(t, e.ledger.SetMarks(context.Background(), msgs, map[string]string{"checkpoint:cp-001": "1"}))
	require.NoError(t, e.ledger.SetMarks(context.Background(), liveMsgs, map[string]string{"cost": "0.1"}))
	r := e.sweep(nil)
	marks, err := e.ledger.Marks(context.Background(), msgs)
	require.NoError(t, err)
	assert.Empty(t, marks, "a deleted session's marks are forgotten")
	marks, err = e.ledger.Marks(context.Background(), liveMsgs)
	require.NoError(t, err)
	assert.NotEmpty(t, marks, "a kept session's marks stay")
	for _, p := range []string{msgs, tr, meta, cp, lock} {
		assert.False(t, exists(p), "%s is deleted with its session", p)
	}
	assert.False(t, exists(filepath.Join(e.root, gdir)), "the session directory itself goes")
	assert.True(t, exists(filepath.Join(e.root, ccProject, "sessions")), "the store's base stays")
	assert.True(t, exists(liveMsgs), "a session with no exit_reason is not over")
	assert.True(t, exists(liveMeta))
	assert.False(t, exists(s.main), "the Claude Code session beside it, over too, goes on its own")
	for _, d := range r.Decisions {
		if strings.Contains(d.Path, "0d0d0d0d") {
			assert.False(t, d.Delete, "%+v", d)
			assert.Equal(t, KeepRunActive, d.Reason, "%+v", d)
		}
	}
}

// TestUnclaimedFileKeepsTheRunTree: a Claude Code project directory whose
// first .jsonl (by name) is one no format claims, inside a session
// directory, is still a run tree, never taken for a Cortex job directory.
func TestUnclaimedFileKeepsTheRunTree(t *testing.T) {
	e := newEnv(t)
	s := e.claudeSession(e.now.Add(-25 * time.Hour))
	other := filepath.Join(s.dir, "remote", "events.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	require.NoError(t, os.WriteFile(other, []byte(`{"a":1}`+"\n"), 0o644))
	r := e.sweep(nil)
	d := decision(t, r, s.main)
	t.Logf("main: %+v", d)
	assert.False(t, exists(s.main), "the idle, quiet, shipped session is deleted as in TestClaudeCodeSessionIsDeletedAsOne")
}

// TestGoSessionNestedSessionKeepsItsFiles: a Go pkg/session session
// directory inside another's (a child store) is that session's: when the
// outer session goes, the inner one's journals, metadata, lock file and
// checkpoints stay; each file deleted with the outer one is logged.
func TestGoSessionNestedSessionKeepsItsFiles(t *testing.T) {
	e := newEnv(t)
	old := e.now.Add(-3 * 24 * time.Hour)
	gdir := filepath.Join("store", "0c0c0c0c-1111-4111-8111-111111111111")
	msgs := e.fixture("gosession/testdata/sessions/finished/messages.jsonl", filepath.Join(gdir, "messages.jsonl"), old)
	meta := e.fixture("gosession/testdata/sessions/finished/metadata.json", filepath.Join(gdir, "metadata.json"), old)
	child := filepath.Join(gdir, "0d0d0d0d-2222-4222-8222-222222222222")
	childMsgs := e.fixture("gosession/testdata/sessions/finished/messages.jsonl", filepath.Join(child, "messages.jsonl"), old)
	var childFiles []string
	for _, rel := range []string{"metadata.json", "messages.jsonl.lock", "checkpoints/cp-001/manifest.json"} {
		p := filepath.Join(e.root, child, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(`{}`), 0o644))
		require.NoError(t, os.Chtimes(p, old, old))
		childFiles = append(childFiles, p)
	}
	r := e.sweep(nil)
	require.False(t, exists(msgs), "the outer session, ended and in Loki, goes")
	assert.Equal(t, KeepRunActive, decision(t, r, childMsgs).Reason, "the nested session has no exit_reason")
	assert.False(t, exists(meta), "the outer session's metadata goes with it")
	assert.Contains(t, e.log.String(), "deleted "+meta+" with its session")
	assert.True(t, exists(childMsgs), "the nested session's journal stays")
	for _, p := range childFiles {
		assert.True(t, exists(p), "%s of the nested session stays", p)
	}
}
