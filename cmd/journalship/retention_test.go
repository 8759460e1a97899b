package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/journalship/journalship/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRetentionRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"relative root", []string{"--once", "--root", "sessions"}, "absolute"},
		{"slash root", []string{"--once", "--root", "/"}, "must not be /"},
		{"unknown status", []string{"--once", "--root", dir, "--status", "etcd"}, "journal or postgres"},
		{"postgres without dsn", []string{"--once", "--root", dir, "--status", "postgres"}, "pg-dsn"},
		{"query without $1", []string{"--once", "--root", dir, "--status", "postgres", "--pg-dsn", "postgres://x@h/db", "--pg-query", "SELECT 1"}, "$1"},
		{"positional args", []string{"--once", dir}, "the sessions root is --root"},
		{"nested roots", []string{"--once", "--root", dir + "," + filepath.Join(dir, "job1"), "--metrics-address", "off",
			"--ledger-path", filepath.Join(dir, "l.db"), "--dead-letter-path", filepath.Join(dir, "dl.jsonl")}, "not inside one another"},
		{"bad format roots", []string{"--once", "--root", dir, "--format-roots", "nosuch=/x"}, "nosuch"},
		{"no ledger", []string{"--once", "--root", dir, "--ledger-path", "none", "--metrics-address", "off"}, "needs the ledger"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("JOURNALSHIP_PG_DSN", "")
			assert.ErrorContains(t, runRetention(c.args, io.Discard), c.want)
		})
	}
}

// TestRetentionOnce: --dry-run prints what it would delete and deletes
// nothing; the same run without it deletes the finished file of the
// terminal job and keeps the running job's.
func TestRetentionOnce(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	ended := time.Now().Add(-30 * time.Hour).UTC()
	ts := ended.Format("2006-01-02T15:04:05.000Z")
	done := filepath.Join(root, "job1", "session_20260301T100000Z_p.jsonl")
	running := filepath.Join(root, "job2", "session_20260301T100000Z_p.jsonl")
	content := `{"type":"SESSION_START","timestamp":"` + ts + `"}` + "\n" + `{"type":"SESSION_END","timestamp":"` + ts + `","reason":"completed"}` + "\n"
	for _, p := range []string{done, running} {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	}
	require.NoError(t, os.WriteFile(done, []byte(content), 0o644))
	require.NoError(t, os.WriteFile(running, []byte(content[:len(content)/2]), 0o644))
	require.NoError(t, os.Chtimes(done, ended, ended))
	hourAgo := time.Now().Add(-time.Hour) // older than the quiet period (--stale-after)
	require.NoError(t, os.Chtimes(running, hourAgo, hourAgo))

	ledgerPath := filepath.Join(dir, "ledger.db")
	l, err := ledger.Open(ledger.Config{Path: ledgerPath})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, l.Record(ctx, []ledger.Segment{{Path: done, Start: 0, End: int64(len(content)), Lines: 2, FirstSeq: -1, LastSeq: -1}}))
	require.NoError(t, l.MarkFinished(ctx, done, "", int64(len(content)), int64(len(content))))
	require.NoError(t, l.Close())

	run := func(extra ...string) string { return retentionOnce(t, root, dir, ledgerPath, extra...) }
	before := listTree(t, dir)
	out := run("--dry-run")
	assert.Contains(t, out, "would delete "+done+" — job_terminal: job completed")
	assert.Contains(t, out, "keep "+running+" — job_active: ")
	assert.FileExists(t, done)
	assert.Equal(t, before, listTree(t, dir), "a dry run writes nothing: no dead-letter file, no ledger WAL, no deletion")

	out = run()
	assert.Contains(t, out, "deleted "+done+" — job_terminal: ")
	assert.Contains(t, out, "deleted directory "+filepath.Dir(done))
	assert.NoFileExists(t, done)
	assert.FileExists(t, running)
}

// TestRetentionServesMetrics: the daemon serves the retention metrics and
// the shipping ones on one endpoint and stops on cancel.
func TestRetentionServesMetrics(t *testing.T) {
	dir := t.TempDir()
	fs := flag.NewFlagSet("retention", flag.ContinueOnError)
	get, o := retentionFlags(fs)
	addr := deadAddr(t)
	require.NoError(t, fs.Parse([]string{"--root", dir, "--ledger-path", filepath.Join(dir, "l.db"), "--dead-letter-path", filepath.Join(dir, "dl.jsonl"),
		"--metrics-address", addr, "--interval", "50ms", "--log-level", "error"}))
	o.metricsAddr = get("Metrics_Address")
	o.cfg.Log = &bytes.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- retentionRun(ctx, get, o, &bytes.Buffer{}) }()
	var body string
	require.Eventually(t, func() bool {
		body = httpGet("http://" + addr + "/metrics")
		return bytes.Contains([]byte(body), []byte("journalship_retention_sweeps_total"))
	}, 10*time.Second, 50*time.Millisecond)
	assert.Contains(t, body, "journalship_retention_sweep_duration_seconds")
	assert.Contains(t, body, "go_goroutines", "the shipping path's set is served too")
	cancel()
	require.NoError(t, <-done)
}

// deadAddr returns a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

func httpGet(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestRetentionDryRunWritesNothing: a dry run whose ledger and dead-letter
// paths do not exist (a normal user with the defaults under
// /var/lib/journalship, or a node before its first shipment) creates no
// file or directory and says that nothing counts as shipped.
func TestRetentionDryRunWritesNothing(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "job1"), 0o755))
	old := time.Now().Add(-200 * time.Hour)
	j := filepath.Join(root, "job1", "session_20260301T100000Z_p.jsonl")
	require.NoError(t, os.WriteFile(j, []byte(`{"type":"SESSION_START","timestamp":"2026-03-01T10:00:00Z"}`+"\n"), 0o644))
	require.NoError(t, os.Chtimes(j, old, old))
	state := filepath.Join(dir, "state")
	before := listTree(t, dir)
	var out bytes.Buffer
	c := newCommand("retention", "", "")
	get, o := retentionFlags(c.fs)
	require.NoError(t, c.parse([]string{"--once", "--dry-run", "--root", root, "--ledger-path", filepath.Join(state, "ledger.db"),
		"--dead-letter-path", filepath.Join(state, "deadletter.jsonl"), "--log-level", "error"}))
	o.once, o.cfg.Log = true, &out
	require.NoError(t, retentionRun(context.Background(), get, o, &out))
	assert.Contains(t, out.String(), "no ledger at "+filepath.Join(state, "ledger.db")+" yet, so nothing counts as shipped")
	assert.Contains(t, out.String(), "keep "+j+" — not_finalized: ")
	assert.Equal(t, before, listTree(t, dir))
}

// TestUnwritableStateNamesTheSetting: a real run whose ledger or
// dead-letter file cannot be created says which setting to change.
func TestUnwritableStateNamesTheSetting(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	under := filepath.Join(blocker, "x") // a path below a regular file cannot be created, even by root
	ok := filepath.Join(dir, "ok")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--ledger-path", under, "--dead-letter-path", ok}, "set Ledger_Path (the CLI's --ledger-path)"},
		{[]string{"--ledger-path", ok, "--dead-letter-path", under}, "set Dead_Letter_Path (the CLI's --dead-letter-path)"},
	} {
		args := append([]string{"--quiet", "--loki-url", "http://" + deadAddr(t)}, tc.args...)
		err := runShip(append(args, dir), io.Discard)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
		assert.Contains(t, err.Error(), under)
	}
}

// listTree returns every path under dir with its size and mtime.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, p+" "+fi.Mode().String()+" "+fi.ModTime().String()+" "+itoa(int(fi.Size())))
		return nil
	}))
	return out
}

// TestRetentionSeveralRootsByTheirFormats: one --once run sweeps a node's
// roots (a Cortex Plane job, a Codelia run) and judges each file by the
// format the plugin's settings give it: with --format-roots confining
// Codelia elsewhere, its run tree is not a run tree and nothing is
// deleted there.
func TestRetentionSeveralRootsByTheirFormats(t *testing.T) {
	dir := t.TempDir()
	cortexRoot, codeliaRoot := filepath.Join(dir, "sessions"), filepath.Join(dir, "codelia")
	ended := time.Now().Add(-30 * time.Hour).UTC()
	ts := ended.Format("2006-01-02T15:04:05.000Z")
	job := filepath.Join(cortexRoot, "job1", "session_20260301T100000Z_p.jsonl")
	jobData := []byte(`{"type":"SESSION_START","timestamp":"` + ts + `"}` + "\n" + `{"type":"SESSION_END","timestamp":"` + ts + `","reason":"completed"}` + "\n")
	run := filepath.Join(codeliaRoot, "sessions", "2026", "02", "03", "8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl")
	runData, err := os.ReadFile("../../format/codelia/testdata/spec-example.jsonl")
	require.NoError(t, err)
	ledgerPath := filepath.Join(dir, "ledger.db")
	l, err := ledger.Open(ledger.Config{Path: ledgerPath})
	require.NoError(t, err)
	ctx := context.Background()
	for path, data := range map[string][]byte{job: jobData, run: runData} {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, data, 0o644))
		require.NoError(t, os.Chtimes(path, ended, ended))
		n := int64(len(data))
		require.NoError(t, l.Record(ctx, []ledger.Segment{{Path: path, Start: 0, End: n, Lines: 2, FirstSeq: -1, LastSeq: -1}}))
		require.NoError(t, l.MarkFinished(ctx, path, "", n, n))
	}
	require.NoError(t, l.Close())
	run1 := func(extra ...string) string {
		return retentionOnce(t, cortexRoot+","+codeliaRoot, dir, ledgerPath, extra...)
	}
	out := run1("--dry-run", "--format-roots", "codelia="+filepath.Join(dir, "elsewhere"))
	assert.Contains(t, out, "would delete "+job)
	assert.NotContains(t, out, "would delete "+run, "Codelia is confined elsewhere: no run tree here")
	out = run1("--format-roots", "cortex="+cortexRoot+",codelia="+codeliaRoot)
	assert.Contains(t, out, "deleted "+job+" — job_terminal: ")
	assert.Contains(t, out, "deleted "+run+" — run_over: ")
	assert.NoFileExists(t, job)
	assert.NoFileExists(t, run)
	assert.DirExists(t, filepath.Join(codeliaRoot, "sessions"), "the runtime's sessions directory stays")
}

// retentionOnce runs one sweep of roots (comma-separated) with the ledger
// at ledgerPath, the dead-letter file in dir and a dead Loki, and returns
// what it printed and logged.
func retentionOnce(t *testing.T, roots, dir, ledgerPath string, extra ...string) string {
	t.Helper()
	fs := flag.NewFlagSet("retention", flag.ContinueOnError)
	get, o := retentionFlags(fs)
	args := append([]string{"--once", "--root", roots, "--ledger-path", ledgerPath, "--dead-letter-path", filepath.Join(dir, "dl.jsonl"),
		"--loki-url", "http://" + deadAddr(t), "--metrics-address", "off", "--log-level", "error"}, extra...)
	require.NoError(t, fs.Parse(args))
	o.once, o.metricsAddr = true, get("Metrics_Address")
	var out bytes.Buffer
	o.cfg.Log = &out
	require.NoError(t, retentionRun(context.Background(), get, o, &out))
	return out.String()
}
