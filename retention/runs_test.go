package retention

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture copies a format package's test file to rel under the root, with
// the given mtime.
func (e *env) fixture(src, rel string, mtime time.Time) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "format", src))
	require.NoError(e.t, err)
	p := filepath.Join(e.root, rel)
	require.NoError(e.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(e.t, os.WriteFile(p, data, 0o644))
	require.NoError(e.t, os.Chtimes(p, mtime, mtime))
	return p
}

// TestFilePerRunLayouts sweeps a root holding Codelia runs and OrbitMesh
// sessions: no job directory, each journal deleted by its own run's end
// (after PostTerminal) or past MaxAge, only when shipped; the dated
// directories it leaves empty go, the sessions directory and the
// snapshots of runs not deleted stay, an OrbitMesh session's snapshot goes
// with its log.
func TestFilePerRunLayouts(t *testing.T) {
	e := newEnv(t)
	day := e.now.Add(-25 * time.Hour)
	ended := e.fixture("codelia/testdata/spec-example.jsonl", "sessions/2026/02/03/8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl", day)
	crashed := e.fixture("codelia/testdata/crashed.jsonl", "sessions/2026/03/14/3b4f2c1a-9d8e-4f7a-b6c5-0a1b2c3d4e5f.jsonl", day)
	fresh := e.fixture("codelia/testdata/spec-example.jsonl", "sessions/2026/03/15/8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl", e.now.Add(-time.Minute))
	snapshot := e.fixture("codelia/testdata/spec-example.jsonl", "sessions/state/f6d2c6d5.json", day)
	twoRuns := e.fixture("orbitmesh/testdata/two_runs.messages.jsonl", "sessions/two_runs.messages.jsonl", day)
	twoRunsSnap := e.fixture("orbitmesh/testdata/two_runs.json", "sessions/two_runs.json", day)

	r := e.sweep(nil)
	assert.False(t, exists(ended), "a run that ended a day ago, shipped: deleted")
	assert.Equal(t, RuleRunOver, decision(t, r, ended).Rule)
	assert.False(t, exists(filepath.Dir(ended)), "its empty dated directory goes")
	assert.False(t, exists(filepath.Join(e.root, "sessions", "2026", "02")), "and the month above it")
	assert.True(t, exists(filepath.Join(e.root, "sessions")), "the runtime's sessions directory stays")
	assert.True(t, exists(snapshot), "a snapshot is no journal")

	assert.True(t, exists(crashed), "a crashed run is not over: kept until the max age")
	assert.Equal(t, KeepRunActive, decision(t, r, crashed).Reason)
	assert.True(t, exists(fresh), "modified a minute ago")
	assert.Equal(t, KeepRecentlyModified, decision(t, r, fresh).Reason)

	// Both runs of the OrbitMesh session completed: idle, over for good.
	assert.Equal(t, RuleRunOver, decision(t, r, twoRuns).Rule)
	assert.False(t, exists(twoRuns), "an OrbitMesh session over a day ago, shipped: deleted")
	assert.False(t, exists(twoRunsSnap), "the snapshot goes with its log")

	e.now = e.now.Add(8 * 24 * time.Hour)
	r = e.sweep(nil)
	assert.False(t, exists(crashed), "past the max age, shipped: deleted")
	assert.Equal(t, RuleMaxAge, decision(t, r, crashed).Rule)
	assert.True(t, exists(snapshot), "snapshots are the runtime's, never deleted alone")
}

// TestRunNotShippedIsKept: a run over for good but not in Loki stays.
func TestRunNotShippedIsKept(t *testing.T) {
	e := newEnv(t)
	p := e.fixture("codelia/testdata/spec-example.jsonl", "sessions/2026/02/03/8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl", e.now.Add(-25*time.Hour))
	e.fin.modes[filepath.Base(p)] = finNothing
	r := e.sweep(nil)
	assert.True(t, exists(p))
	assert.Equal(t, KeepUnshipped, decision(t, r, p).Reason)
}

// TestStrayFileKeepsAJobDirectory: a file no format claims, sorting first
// in a Cortex Plane job directory, does not turn the job into a run tree.
func TestStrayFileKeepsAJobDirectory(t *testing.T) {
	e := newEnv(t)
	end := e.now.Add(-25 * time.Hour)
	e.write("job1", "aaa-notes.jsonl", `{"note":1}`+"\n", end)
	p := e.write("job1", "session_20260310T100000Z_p1.jsonl", session(end.Add(-time.Hour), end, "completed"), end)
	r := e.sweep(nil)
	assert.False(t, exists(p), "the ended job's session is deleted by the job rule")
	assert.Equal(t, RuleJobTerminal, decision(t, r, p).Rule)
}

// TestForcedFormatJobEnds: with the Format setting naming Cortex Plane,
// a job whose latest session completed is terminal by its journals all
// the same, and its files go once its post-terminal period passed.
func TestForcedFormatJobEnds(t *testing.T) {
	e := newEnv(t)
	e.cfg.Formats.Format = "cortex"
	end := e.now.Add(-25 * time.Hour)
	p := e.write("job1", "session_20260310T100000Z_p1.jsonl", session(end.Add(-time.Hour), end, "completed"), end)
	e.shipped(p)
	r := e.sweep(nil)
	assert.False(t, exists(p))
	assert.Equal(t, RuleJobTerminal, decision(t, r, p).Rule)
}

// TestForcedFormatFlatRunTree: with the Format setting naming Codex, a
// flat directory of rollouts (archived_sessions/) is swept file by file,
// and a rollout whose session ended (idle, then quiet) goes once its
// post-terminal period passed, as without the setting.
func TestForcedFormatFlatRunTree(t *testing.T) {
	for _, forced := range []string{"auto", "codex"} {
		t.Run("Format="+forced, func(t *testing.T) {
			e := newEnv(t)
			e.cfg.Formats.Format = forced
			end := e.now.Add(-25 * time.Hour)
			p := e.fixture("codex/testdata/spec-example.jsonl",
				"archived_sessions/rollout-2026-02-23T11-00-00-019c8a4d-aaaa-7000-8000-000000000000.jsonl", end)
			e.shipped(p)
			r := e.sweep(nil)
			assert.Equal(t, RuleRunOver, decision(t, r, p).Rule)
			assert.False(t, exists(p))
		})
	}
}

// TestEmptiedRunTreeStays: a runtime's tree whose runs were all deleted
// (only its dated or state directories left) is not an empty job
// directory: past the max age it stays, and what is below it is only
// removed when empty, never the top.
func TestEmptiedRunTreeStays(t *testing.T) {
	e := newEnv(t)
	old := e.now.Add(-30 * 24 * time.Hour)
	state := filepath.Join(e.root, "sessions", "state")
	dated := filepath.Join(e.root, "sessions", "2026", "02", "03")
	for _, d := range []string{state, dated} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(state, "s1.json"), []byte("{}"), 0o644))
	for _, d := range []string{dated, filepath.Dir(dated), filepath.Dir(filepath.Dir(dated)), state, filepath.Join(e.root, "sessions")} {
		require.NoError(t, os.Chtimes(d, old, old))
	}
	r := e.sweep(nil)
	assert.True(t, exists(filepath.Join(e.root, "sessions")), "the runtime's sessions directory stays")
	assert.True(t, exists(filepath.Join(state, "s1.json")), "snapshots are the runtime's")
	assert.False(t, exists(filepath.Join(e.root, "sessions", "2026")), "emptied dated directories go")
	assert.Zero(t, r.Errors)
}
