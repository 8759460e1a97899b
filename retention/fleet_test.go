package retention

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFleetSweepsEveryRoot: one agent for a node's roots (Cortex Plane
// job directories under one, Codelia runs under another) deletes in both
// in one sweep, reports both in one report, and its kept-files gauge
// counts the kept files of every root (not only the last one swept).
func TestFleetSweepsEveryRoot(t *testing.T) {
	e := newEnv(t)
	codelia := filepath.Join(filepath.Dir(e.root), "codelia")
	end := e.now.Add(-25 * time.Hour)
	job := e.write("job1", "session_20260310T100000Z_p1.jsonl", session(end.Add(-time.Hour), end, "completed"), end)
	e.write("job2", "session_20260310T100000Z_p1.jsonl", session(end.Add(-time.Hour), time.Time{}, ""), e.now.Add(-time.Minute))
	cortexRoot := e.root
	e.root = codelia
	run := e.fixture("codelia/testdata/spec-example.jsonl", "sessions/2026/02/03/8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl", end)
	crashed := e.fixture("codelia/testdata/crashed.jsonl", "sessions/2026/03/14/3b4f2c1a-9d8e-4f7a-b6c5-0a1b2c3d4e5f.jsonl", end)

	m := NewMetrics()
	f, err := NewFleet(e.cfg, []string{cortexRoot, codelia}, nil, e.fin, e.ledger, m)
	require.NoError(t, err)
	r, err := f.Sweep(context.Background())
	require.NoError(t, err)
	assert.False(t, exists(job), "the ended job's session is deleted")
	assert.False(t, exists(run), "the ended run is deleted")
	assert.True(t, exists(crashed))
	assert.Equal(t, KeepRunActive, decision(t, r, crashed).Reason)
	assert.Equal(t, 2, r.FilesDeleted, "one report for both roots")
	assert.Equal(t, 1.0, testutil.ToFloat64(m.FilesKept.WithLabelValues(KeepRunActive)), "the Codelia root's kept run")
	assert.Equal(t, 1.0, testutil.ToFloat64(m.FilesKept.WithLabelValues(KeepRecentlyModified)), "the Cortex root's busy session")
	assert.Equal(t, 1.0, testutil.ToFloat64(m.Sweeps.WithLabelValues(OutcomeOK)), "one sweep of the fleet")
}

// TestFleetRootMissing: a root that cannot be swept fails the sweep
// (reported, retryable) without keeping the other roots from theirs.
func TestFleetRootMissing(t *testing.T) {
	e := newEnv(t)
	end := e.now.Add(-25 * time.Hour)
	job := e.write("job1", "session_20260310T100000Z_p1.jsonl", session(end.Add(-time.Hour), end, "completed"), end)
	missing := filepath.Join(filepath.Dir(e.root), "orbitmesh")
	f, err := NewFleet(e.cfg, []string{missing, e.root}, nil, e.fin, e.ledger, nil)
	require.NoError(t, err)
	r, err := f.Sweep(context.Background())
	var re *RootError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, missing, re.Root)
	assert.Equal(t, OutcomeFailed, r.Outcome())
	assert.False(t, exists(job), "the root after the missing one is swept all the same")
}

// TestFleetRefusesNestedRoots: a root inside another would have its files
// judged twice in one pass.
func TestFleetRefusesNestedRoots(t *testing.T) {
	e := newEnv(t)
	for _, roots := range [][]string{
		{e.root, filepath.Join(e.root, "job1")},
		{filepath.Join(e.root, "job1"), e.root},
		{e.root, e.root + "/"},
		{},
	} {
		_, err := NewFleet(e.cfg, roots, nil, e.fin, e.ledger, nil)
		var ce *ConfigError
		assert.True(t, errors.As(err, &ce), "%q: %v", roots, err)
	}
	sibling := e.root + "-other"
	require.NoError(t, os.MkdirAll(sibling, 0o755))
	_, err := NewFleet(e.cfg, []string{e.root, sibling}, nil, e.fin, e.ledger, nil)
	assert.NoError(t, err, "a sibling whose name starts alike is not inside")
}

func TestParseRoots(t *testing.T) {
	assert.Equal(t, []string{"/a", "/b"}, ParseRoots(" /a, ,/b,"))
	assert.Nil(t, ParseRoots(""))
}
