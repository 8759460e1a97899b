package retention

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
)

const sess1 = "session_20260301T100000Z_pod-a.jsonl"
const sess2 = "session_20260302T100000Z_pod-b.jsonl"

// TestRules covers each rule and each reason a candidate is kept, one job
// per case, against the journal status source.
func TestRules(t *testing.T) {
	cases := []struct {
		name       string
		reason     string // session end reason, "" for a running session
		end        time.Duration
		mtimeAgo   time.Duration
		shipped    bool
		mode       finMode
		force      bool
		wantDelete bool
		wantRule   string
		wantKeep   string
		unshipped  int
	}{
		{name: "completed 25h ago", reason: "completed", end: 25 * time.Hour, mtimeAgo: 25 * time.Hour, shipped: true, wantDelete: true, wantRule: RuleJobTerminal},
		{name: "failed 24h ago exactly", reason: "failed", end: 24 * time.Hour, mtimeAgo: 24 * time.Hour, shipped: true, wantDelete: true, wantRule: RuleJobTerminal},
		{name: "cancelled, finalized by the sweep", reason: "cancelled", end: 30 * time.Hour, mtimeAgo: 30 * time.Hour, wantDelete: true, wantRule: RuleJobTerminal},
		{name: "completed 23h ago", reason: "completed", end: 23 * time.Hour, mtimeAgo: 23 * time.Hour, shipped: true, wantKeep: KeepPostTerminal},
		{name: "approval_pause is not terminal", reason: "approval_pause", end: 48 * time.Hour, mtimeAgo: 48 * time.Hour, shipped: true, wantKeep: KeepJobActive},
		{name: "running, young", mtimeAgo: time.Hour, shipped: true, wantKeep: KeepJobActive},
		// The finalizer does not call the file finished: the job is not over.
		{name: "terminal but unfinished", reason: "completed", end: 30 * time.Hour, mtimeAgo: 30 * time.Hour, mode: finNothing, wantKeep: KeepJobActive},
		{name: "terminal, modified within the quiet period", reason: "completed", end: 30 * time.Hour, mtimeAgo: 5 * time.Minute, shipped: true, wantKeep: KeepRecentlyModified},
		{name: "max age, modified within the quiet period", mtimeAgo: -time.Minute, shipped: true, wantKeep: KeepRecentlyModified},
		{name: "terminal, loki down", reason: "completed", end: 30 * time.Hour, mtimeAgo: 30 * time.Hour, mode: finFail, wantKeep: KeepFinalizeError},
		{name: "appended after the ledger saw it", reason: "completed", end: 30 * time.Hour, mtimeAgo: 30 * time.Hour, mode: finAppendAfter, wantKeep: KeepAppended},
		{name: "max age, shipped", mtimeAgo: 8 * 24 * time.Hour, wantDelete: true, wantRule: RuleMaxAge},
		{name: "max age, loki down", mtimeAgo: 8 * 24 * time.Hour, mode: finFail, wantKeep: KeepFinalizeError, unshipped: 1},
		{name: "max age, unshipped", mtimeAgo: 8 * 24 * time.Hour, mode: finNothing, wantKeep: KeepUnshipped, unshipped: 1},
		{name: "max age, unshipped, forced", mtimeAgo: 8 * 24 * time.Hour, mode: finNothing, force: true, wantDelete: true, wantRule: RuleMaxAgeForced, unshipped: 1},
		{name: "approval_pause past max age", reason: "approval_pause", end: 9 * 24 * time.Hour, mtimeAgo: 9 * 24 * time.Hour, wantDelete: true, wantRule: RuleMaxAge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.cfg.ForceMaxAge = c.force
			end := e.now.Add(-c.end)
			p := e.write("job1", sess1, session(end.Add(-time.Hour), end, c.reason), e.now.Add(-c.mtimeAgo))
			if c.shipped {
				e.shipped(p)
			}
			e.fin.modes[sess1] = c.mode
			r := e.sweep(nil)
			d := decision(t, r, p)
			assert.Equal(t, c.wantDelete, d.Delete, "%+v", d)
			assert.Equal(t, c.unshipped, r.UnshippedPastMaxAge)
			assert.Equal(t, float64(c.unshipped), testutil.ToFloat64(e.agentMetrics(r).UnshippedPastMaxAge))
			if c.wantDelete {
				assert.False(t, exists(p), "deleted")
				assert.False(t, exists(filepath.Dir(p)), "the empty job directory is removed")
				assert.Equal(t, c.wantRule, d.Rule)
				st, err := e.ledger.File(context.Background(), p)
				require.NoError(t, err)
				assert.Equal(t, int64(-1), st.Size, "the ledger row is forgotten")
				assert.Contains(t, e.log.String(), "deleted "+p+" — "+c.wantRule)
				return
			}
			assert.True(t, exists(p), "kept")
			assert.Equal(t, c.wantKeep, d.Reason, d.Detail)
			if c.unshipped > 0 {
				assert.Contains(t, e.log.String(), p+" is past the max age but NOT fully in Loki")
			}
		})
	}
}

// agentMetrics returns the metrics the report was recorded in (each
// env.sweep builds a new agent with its own metrics, so rebuild from the
// report to check the gauges the same way).
func (e *env) agentMetrics(r *Report) *Metrics {
	m := NewMetrics()
	m.record(r)
	return m
}

func TestMetricsCountDeletionsAndKeeps(t *testing.T) {
	e := newEnv(t)
	old := e.now.Add(-30 * time.Hour)
	done := e.write("job1", sess1, session(old, old, "completed"), old)
	e.shipped(done)
	e.write("job2", sess1, session(e.now, e.now, ""), e.now.Add(-time.Hour))
	stale := e.write("job3", sess2, session(old, old, ""), e.now.Add(-8*24*time.Hour))
	e.fin.modes[filepath.Base(stale)] = finFail
	a := e.agent(nil)
	r, err := a.Sweep(context.Background())
	require.NoError(t, err)
	m := a.Metrics()
	assert.Equal(t, 1.0, testutil.ToFloat64(m.FilesDeleted.WithLabelValues(RuleJobTerminal)))
	assert.Equal(t, float64(r.BytesDeleted), testutil.ToFloat64(m.BytesDeleted.WithLabelValues(RuleJobTerminal)))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.DirsDeleted))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.FilesKept.WithLabelValues(KeepJobActive)))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.FilesKept.WithLabelValues(KeepFinalizeError)))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.UnshippedPastMaxAge))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.Sweeps.WithLabelValues("degraded")))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.Errors.WithLabelValues("finalize")))
	assert.Equal(t, 1, testutil.CollectAndCount(m.SweepDuration))
	assert.Contains(t, r.Summary(), "deleted 1 files")
}

// TestResumeAfterApprovalPause: a job paused for approval is not terminal;
// once the resumed session completes, both files go 24h later.
func TestResumeAfterApprovalPause(t *testing.T) {
	e := newEnv(t)
	pauseAt := e.now.Add(-40 * time.Hour)
	first := e.write("job1", sess1, session(pauseAt.Add(-time.Hour), pauseAt, "approval_pause"), pauseAt)
	e.shipped(first)
	r := e.sweep(nil)
	assert.Equal(t, KeepJobActive, decision(t, r, first).Reason)

	resumed := e.now.Add(-2 * time.Hour)
	second := e.write("job1", sess2, session(resumed, resumed.Add(time.Hour), "completed"), resumed.Add(time.Hour))
	r = e.sweep(nil)
	assert.Equal(t, KeepPostTerminal, decision(t, r, first).Reason, "terminal now, but finished only an hour ago")
	assert.Equal(t, KeepPostTerminal, decision(t, r, second).Reason)

	e.now = e.now.Add(24 * time.Hour)
	r = e.sweep(nil)
	assert.True(t, decision(t, r, first).Delete)
	assert.True(t, decision(t, r, second).Delete)
	assert.Equal(t, []string{filepath.Join(e.root, "job1")}, r.DirsDeleted)
}

// TestSymlinksAreNeverFollowed: a symlinked journal, a symlinked job
// directory and a symlinked root are left alone, and their targets outside
// the root are untouched.
func TestSymlinksAreNeverFollowed(t *testing.T) {
	e := newEnv(t)
	old := e.now.Add(-30 * 24 * time.Hour)
	outsideFile := filepath.Join(e.outer, "victim.jsonl")
	require.NoError(t, os.WriteFile(outsideFile, []byte(session(old, old, "completed")), 0o644))
	require.NoError(t, os.Chtimes(outsideFile, old, old))
	e.shipped(outsideFile)
	outsideJob := filepath.Join(e.outer, "job9")
	require.NoError(t, os.MkdirAll(outsideJob, 0o755))
	inOuterJob := filepath.Join(outsideJob, sess1)
	require.NoError(t, os.WriteFile(inOuterJob, []byte(session(old, old, "completed")), 0o644))
	require.NoError(t, os.Chtimes(inOuterJob, old, old))

	real := e.write("job1", sess1, session(old, old, "completed"), old)
	e.shipped(real)
	link := filepath.Join(e.root, "job1", sess2)
	require.NoError(t, os.Symlink(outsideFile, link))
	e.shipped(link) // even a ledger that says "finished" for the link's path
	jobLink := filepath.Join(e.root, "job9")
	require.NoError(t, os.Symlink(outsideJob, jobLink))

	r := e.sweep(nil)
	assert.True(t, decision(t, r, real).Delete)
	assert.Equal(t, KeepNotRegular, decision(t, r, link).Reason)
	assert.Equal(t, KeepNotJobDir, decision(t, r, jobLink).Reason)
	for _, p := range []string{outsideFile, inOuterJob, link, jobLink} {
		assert.True(t, exists(p), "%s is untouched", p)
	}
	assert.True(t, exists(filepath.Join(e.root, "job1")), "the directory still holds the symlink")
	assert.NotContains(t, e.fin.called(), link, "the finalizer never sees a symlink")

	linkedRoot := filepath.Join(filepath.Dir(e.root), "rootlink")
	require.NoError(t, os.Symlink(e.outer, linkedRoot))
	e.cfg.Root = linkedRoot
	_, err := e.agent(nil).Sweep(context.Background())
	var re *RootError
	require.ErrorAs(t, err, &re, "a symlinked root is refused")
	for _, spelling := range []string{linkedRoot + "/", linkedRoot + "//", linkedRoot + "/."} {
		e.cfg.Root = spelling
		_, err = e.agent(nil).Sweep(context.Background())
		require.ErrorAs(t, err, &re, "a symlinked root spelled %q is refused too", spelling)
	}
	assert.True(t, exists(outsideFile))
}

func TestOtherEntriesAreLeftAlone(t *testing.T) {
	e := newEnv(t)
	old := e.now.Add(-30 * 24 * time.Hour)
	j := e.write("job1", sess1, session(old, old, "completed"), old)
	e.shipped(j)
	notes := e.write("job1", "notes.txt", "keep me", old)
	stray := filepath.Join(e.root, "stray.jsonl")
	require.NoError(t, os.WriteFile(stray, []byte("x\n"), 0o644))
	require.NoError(t, os.Chtimes(stray, old, old))
	sub := filepath.Join(e.root, "job1", "subdir")
	require.NoError(t, os.Mkdir(sub, 0o755))

	r := e.sweep(nil)
	assert.True(t, decision(t, r, j).Delete)
	assert.Equal(t, KeepNotJournal, decision(t, r, notes).Reason)
	assert.Equal(t, KeepNotJobDir, decision(t, r, stray).Reason)
	assert.Equal(t, KeepNotRegular, decision(t, r, sub).Reason)
	for _, p := range []string{notes, stray, sub} {
		assert.True(t, exists(p))
	}
}

// TestDirectoryGainingAFileMidSweepIsKept: a new session file created
// after the job's files were deleted and before the directory is removed
// keeps the directory (and the file).
func TestDirectoryGainingAFileMidSweepIsKept(t *testing.T) {
	e := newEnv(t)
	old := e.now.Add(-30 * time.Hour)
	p := e.write("job1", sess1, session(old, old, "completed"), old)
	e.shipped(p)
	var fresh string
	e.cfg.BeforeRelist = func(jobDir string) {
		fresh = filepath.Join(jobDir, sess2)
		require.NoError(t, os.WriteFile(fresh, []byte(line("SESSION_START", e.now, "")), 0o644))
	}
	r := e.sweep(nil)
	assert.True(t, decision(t, r, p).Delete)
	assert.Empty(t, r.DirsDeleted)
	assert.True(t, exists(fresh), "the new session file is untouched")
	assert.Equal(t, []string{p}, e.fin.called(), "the new file was not judged this sweep")

	e.cfg.BeforeRelist = nil
	r = e.sweep(nil)
	assert.Equal(t, KeepRecentlyModified, decision(t, r, fresh).Reason, "the job is running again: its new session was just written")
}

func TestDryRunDeletesNothing(t *testing.T) {
	e := newEnv(t)
	old := e.now.Add(-30 * time.Hour)
	done := e.write("job1", sess1, session(old, old, "completed"), old)
	e.shipped(done)
	pending := e.write("job2", sess1, session(old, old, "failed"), old)
	ancient := e.write("job3", sess1, session(old, old, ""), e.now.Add(-8*24*time.Hour))
	gone := filepath.Join(e.root, "job4", sess1)
	require.NoError(t, account(context.Background(), e.ledger, gone, []byte("x\n")))
	e.cfg.DryRun = true

	r := e.sweep(nil)
	assert.True(t, decision(t, r, done).Delete, "would delete")
	assert.Equal(t, KeepNotFinalized, decision(t, r, pending).Reason)
	assert.Equal(t, KeepNotFinalized, decision(t, r, ancient).Reason)
	assert.Equal(t, 1, r.UnshippedPastMaxAge)
	assert.Equal(t, 1, r.RowsForgotten, "would forget")
	for _, p := range []string{done, pending, ancient} {
		assert.True(t, exists(p))
	}
	assert.Empty(t, e.fin.called(), "a dry run finalizes nothing")
	st, err := e.ledger.File(context.Background(), gone)
	require.NoError(t, err)
	assert.True(t, st.Finished, "a dry run forgets nothing")
	var out strings.Builder
	r.Print(&out)
	assert.Contains(t, out.String(), "would delete "+done+" — job_terminal: job completed")
	assert.Contains(t, out.String(), "keep "+pending+" — not_finalized: ")
	assert.Contains(t, out.String(), "would delete 1 files")

	e.cfg.ForceMaxAge = true
	r = e.sweep(nil)
	assert.Equal(t, RuleMaxAgeForced, decision(t, r, ancient).Rule)
	assert.True(t, exists(ancient))
}

// TestCrashBetweenDeleteAndForget: a ledger row whose file is gone is
// forgotten by the next sweep, once it offered every file to the
// finalizer (which may find the same file renamed and take its ranges);
// rows of existing files and of files outside the root are not.
func TestCrashBetweenDeleteAndForget(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	gone := filepath.Join(e.root, "job1", sess1)
	require.NoError(t, account(ctx, e.ledger, gone, []byte("line\n")))
	alive := e.write("job2", sess1, session(e.now, e.now, ""), e.now)
	e.shipped(alive)
	elsewhere := filepath.Join(e.outer, "x.jsonl")
	require.NoError(t, account(ctx, e.ledger, elsewhere, []byte("line\n")))
	var seen bool
	e.fin.before = func(path string) {
		if path == alive {
			st, err := e.ledger.File(ctx, gone)
			require.NoError(t, err)
			seen = len(st.Ranges) > 0
		}
	}

	r := e.sweep(nil)
	assert.True(t, seen, "the finalizer ran while the gone path's row was there")
	assert.Equal(t, 1, r.RowsForgotten)
	files, err := e.ledger.Files(ctx)
	require.NoError(t, err)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	assert.ElementsMatch(t, []string{alive, elsewhere}, paths)
}

func TestStatusErrors(t *testing.T) {
	old := t0.Add(-30 * time.Hour)
	terminal := format.GroupState{Terminal: true, Status: "COMPLETED", FinishedAt: old}
	t.Run("one job's status fails: that job is kept", func(t *testing.T) {
		e := newEnv(t)
		a := e.write("job1", sess1, session(old, old, "completed"), e.now.Add(-30*24*time.Hour))
		b := e.write("job2", sess1, session(old, old, "completed"), old)
		e.shipped(a)
		e.shipped(b)
		st := fakeStatus{states: map[string]format.GroupState{"job2": terminal},
			errs: map[string]error{"job1": &format.GroupError{Source: "journal", Group: "job1", Err: os.ErrPermission}}}
		r := e.sweep(st)
		assert.Equal(t, KeepStatusUnavailable, decision(t, r, a).Reason, "even past the max age")
		assert.True(t, decision(t, r, b).Delete)
		assert.Equal(t, "degraded", r.Outcome())
	})
	t.Run("unreachable source: nothing more is deleted", func(t *testing.T) {
		e := newEnv(t)
		a := e.write("job1", sess1, session(old, old, "completed"), old)
		b := e.write("job2", sess1, session(old, old, "completed"), e.now.Add(-30*24*time.Hour))
		e.shipped(a)
		e.shipped(b)
		st := fakeStatus{states: map[string]format.GroupState{"job2": terminal},
			errs: map[string]error{"job1": &format.GroupError{Source: "postgres", Group: "job1", Unreachable: true, Err: errors.New("connection refused")}}}
		r := e.sweep(st)
		assert.Equal(t, KeepStatusUnavailable, decision(t, r, a).Reason)
		assert.Equal(t, KeepStatusUnavailable, decision(t, r, b).Reason)
		assert.True(t, r.StatusUnavailable)
		assert.True(t, exists(a) && exists(b))
		assert.Contains(t, e.log.String(), "nothing more is deleted in this sweep")
	})
	t.Run("missing job: finished_at is the newest mtime", func(t *testing.T) {
		e := newEnv(t)
		recent := e.write("job1", sess1, session(old, old, ""), e.now.Add(-2*time.Hour))
		e.shipped(recent)
		missing := fakeStatus{states: map[string]format.GroupState{"job1": {Terminal: true, Status: "missing"}}}
		r := e.sweep(missing)
		assert.Equal(t, KeepPostTerminal, decision(t, r, recent).Reason)
		e.now = e.now.Add(23 * time.Hour)
		r = e.sweep(missing)
		assert.True(t, decision(t, r, recent).Delete)
	})
}

func TestEmptyJobDirectories(t *testing.T) {
	e := newEnv(t)
	oldDir := filepath.Join(e.root, "job-old")
	newDir := filepath.Join(e.root, "job-new")
	require.NoError(t, os.MkdirAll(oldDir, 0o755))
	require.NoError(t, os.MkdirAll(newDir, 0o755))
	require.NoError(t, os.Chtimes(oldDir, e.now.Add(-8*24*time.Hour), e.now.Add(-8*24*time.Hour)))
	require.NoError(t, os.Chtimes(newDir, e.now, e.now))
	r := e.sweep(nil)
	assert.Equal(t, []string{oldDir}, r.DirsDeleted)
	assert.True(t, exists(newDir), "a fresh empty directory may be about to get its first file")
}

func TestRunSweepsEveryInterval(t *testing.T) {
	e := newEnv(t)
	e.cfg.Interval = 10 * time.Millisecond
	a := e.agent(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	require.Eventually(t, func() bool { return testutil.ToFloat64(a.Metrics().Sweeps.WithLabelValues("ok")) >= 3 }, 5*time.Second, 5*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
}

func TestRootErrors(t *testing.T) {
	e := newEnv(t)
	e.cfg.Root = filepath.Join(e.root, "missing")
	a := e.agent(nil)
	r, err := a.Sweep(context.Background())
	var re *RootError
	require.ErrorAs(t, err, &re)
	assert.True(t, re.Retryable())
	assert.Equal(t, OutcomeFailed, r.Outcome())
	assert.Equal(t, 1.0, testutil.ToFloat64(a.Metrics().Sweeps.WithLabelValues(OutcomeFailed)))
}

// Every counter series a sweep can touch exists at 0 before the first one,
// so a dashboard's increase() counts the first deletion, error or sweep.
func TestCountersStartAtZero(t *testing.T) {
	m := NewMetrics()
	for name, want := range map[string]int{
		"journalship_retention_files_deleted_total": 4, "journalship_retention_bytes_deleted_total": 4,
		"journalship_retention_sweeps_total": 3, "journalship_retention_errors_total": 8,
		"journalship_retention_status_errors_total": 3,
	} {
		n, err := testutil.GatherAndCount(m.Registry, name)
		require.NoError(t, err)
		assert.Equal(t, want, n, name)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"relative root", func(c *Config) { c.Root = "data/sessions" }, "Root"},
		{"empty root", func(c *Config) { c.Root = "" }, "Root"},
		{"slash", func(c *Config) { c.Root = "/" }, "Root"},
		{"slash dot", func(c *Config) { c.Root = "/./" }, "Root"},
		{"negative post-terminal", func(c *Config) { c.PostTerminal = -time.Second }, "PostTerminal"},
		{"zero max age", func(c *Config) { c.MaxAge = 0 }, "MaxAge"},
		{"zero interval", func(c *Config) { c.Interval = 0 }, "Interval"},
		{"no clock", func(c *Config) { c.Now = nil }, "Now"},
		{"no log", func(c *Config) { c.Log = nil }, "Log"},
	}
	require.NoError(t, DefaultConfig().Validate())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.edit(&cfg)
			var ce *ConfigError
			require.ErrorAs(t, cfg.Validate(), &ce)
			assert.Equal(t, c.field, ce.Field)
			assert.False(t, ce.Retryable())
		})
	}
	_, err := New(DefaultConfig(), nil, nil, nil, nil)
	assert.ErrorContains(t, err, "ledger")
}
