package retention

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Claude Code session: its main transcript (idle: over once quiet), a
// subagent transcript in the session directory beside it, the subagent's
// sidecar and a stored tool output.
const (
	ccProject = "-home-dev-app"
	ccSession = "f5a47bc8-93b6-4fd2-8e47-a09f8e7d12f8"
)

type ccFiles struct{ main, sub, sidecar, toolOut, dir string }

func (e *env) claudeSession(mtime time.Time) ccFiles {
	e.t.Helper()
	dir := filepath.Join(e.root, ccProject, ccSession)
	f := ccFiles{
		main:    e.fixture("claudecode/testdata/subagent-main.jsonl", filepath.Join(ccProject, ccSession+".jsonl"), mtime),
		sub:     e.fixture("claudecode/testdata/subagent.jsonl", filepath.Join(ccProject, ccSession, "subagents", "agent-a7f3e21.jsonl"), mtime),
		sidecar: filepath.Join(dir, "subagents", "agent-a7f3e21.meta.json"),
		toolOut: filepath.Join(dir, "tool-results", "toolu_01.txt"),
		dir:     dir,
	}
	for _, p := range []string{f.sidecar, f.toolOut} {
		require.NoError(e.t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(e.t, os.WriteFile(p, []byte(`{"agentType":"general-purpose"}`), 0o644))
		require.NoError(e.t, os.Chtimes(p, mtime, mtime))
	}
	return f
}

// TestClaudeCodeSessionIsDeletedAsOne: the session (main transcript,
// subagent transcripts, the rest of its directory) goes together, once
// idle, quiet and past PostTerminal, and every journal of it is in Loki;
// the project directory stays.
func TestClaudeCodeSessionIsDeletedAsOne(t *testing.T) {
	e := newEnv(t)
	s := e.claudeSession(e.now.Add(-25 * time.Hour))
	r := e.sweep(nil)
	assert.Equal(t, RuleRunOver, decision(t, r, s.main).Rule)
	assert.Equal(t, RuleRunOver, decision(t, r, s.sub).Rule, "the member goes by its session's rule")
	for _, p := range []string{s.main, s.sub, s.sidecar, s.toolOut, s.dir} {
		assert.False(t, exists(p), "%s is deleted with its session", p)
	}
	assert.True(t, exists(filepath.Join(e.root, ccProject)), "the project directory stays")
}

// TestClaudeCodeMemberHoldsItsSession: a subagent transcript not in Loki
// keeps the whole session, the main transcript included.
func TestClaudeCodeMemberHoldsItsSession(t *testing.T) {
	e := newEnv(t)
	s := e.claudeSession(e.now.Add(-25 * time.Hour))
	e.fin.modes[filepath.Base(s.sub)] = finNothing
	r := e.sweep(nil)
	for _, p := range []string{s.main, s.sub, s.sidecar, s.toolOut} {
		assert.True(t, exists(p), "%s stays while a file of its session is not in Loki", p)
	}
	d := decision(t, r, s.main)
	assert.Equal(t, KeepUnshipped, d.Reason)
	assert.Contains(t, d.Detail, s.sub)
	assert.Equal(t, KeepUnshipped, decision(t, r, s.sub).Reason)

	delete(e.fin.modes, filepath.Base(s.sub))
	e.sweep(nil)
	assert.False(t, exists(s.main), "shipped now: deleted")
	assert.False(t, exists(s.sub))
}

// TestClaudeCodeSessionTimes: the session's newest file decides, and the
// post-terminal period starts once the idle session is quiet (no end
// record): a subagent written an hour ago keeps a main transcript of a
// day ago, and so does a tool output stored a minute ago (a file that is
// no journal); a session idle for PostTerminal but not for QuietPeriod
// more stays.
func TestClaudeCodeSessionTimes(t *testing.T) {
	e := newEnv(t)
	s := e.claudeSession(e.now.Add(-25 * time.Hour))
	recent := e.now.Add(-time.Hour)
	require.NoError(t, os.Chtimes(s.sub, recent, recent))
	r := e.sweep(nil)
	assert.True(t, exists(s.main))
	assert.Equal(t, KeepPostTerminal, decision(t, r, s.main).Reason)
	assert.Equal(t, KeepPostTerminal, decision(t, r, s.sub).Reason)

	fresh := e.now.Add(-time.Minute)
	require.NoError(t, os.Chtimes(s.toolOut, fresh, fresh))
	r = e.sweep(nil)
	assert.Equal(t, KeepRecentlyModified, decision(t, r, s.main).Reason)
	for _, p := range []string{s.main, s.sub, s.sidecar, s.toolOut} {
		assert.True(t, exists(p), "%s stays", p)
	}

	e2 := newEnv(t)
	s2 := e2.claudeSession(e2.now.Add(-24*time.Hour - e2.cfg.QuietPeriod/2))
	r = e2.sweep(nil)
	assert.True(t, exists(s2.main), "idle a day, but quiet for less than the quiet period past it")
	assert.Equal(t, KeepPostTerminal, decision(t, r, s2.main).Reason)
}

// TestClaudeCodeOrphanMember: a subagent transcript whose main transcript
// is gone (Claude Code's own cleanup) is judged alone.
func TestClaudeCodeOrphanMember(t *testing.T) {
	e := newEnv(t)
	s := e.claudeSession(e.now.Add(-25 * time.Hour))
	require.NoError(t, os.Remove(s.main))
	r := e.sweep(nil)
	assert.Equal(t, RuleRunOver, decision(t, r, s.sub).Rule)
	assert.False(t, exists(s.sub))
}

// TestClaudeCodeActiveSessionStays: a session acting (a tool call not
// answered) is not over; it stays until the max age.
func TestClaudeCodeActiveSessionStays(t *testing.T) {
	e := newEnv(t)
	p := e.fixture("claudecode/testdata/tools.jsonl", filepath.Join(ccProject, "c2714e95-6083-4caf-9b14-7d6c5b4aefc5.jsonl"), e.now.Add(-25*time.Hour))
	r := e.sweep(nil)
	assert.True(t, exists(p))
	assert.Equal(t, KeepRunActive, decision(t, r, p).Reason)
	e.now = e.now.Add(8 * 24 * time.Hour)
	r = e.sweep(nil)
	assert.Equal(t, RuleMaxAge, decision(t, r, p).Rule)
	assert.False(t, exists(p))
}
