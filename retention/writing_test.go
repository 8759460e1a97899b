package retention

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/output"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveRig is a sessions root shipped to a real Loki and swept by a real
// agent with the real finalizer, on the real clock, with a short quiet
// period.
type liveRig struct {
	t     *testing.T
	root  string
	inst  *output.Instance
	quiet time.Duration
	loki  string
}

func newLiveRig(t *testing.T) *liveRig {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	dir := t.TempDir()
	s := map[string]string{"loki_url": loki.URL, "ledger_path": filepath.Join(dir, "ledger.db"),
		"dead_letter_path": filepath.Join(dir, "dl.jsonl"), "metrics_address": "off", "log_level": "error"}
	inst, err := output.NewInstance(func(k string) string { return s[strings.ToLower(k)] })
	require.NoError(t, err)
	t.Cleanup(func() { inst.Close() })
	root := filepath.Join(dir, "sessions")
	require.NoError(t, os.MkdirAll(root, 0o755))
	return &liveRig{t: t, root: root, inst: inst, quiet: 2 * time.Second, loki: loki.URL}
}

func (r *liveRig) ship() {
	b, err := backfill.New(backfill.DefaultConfig(), r.inst, r.inst.Ledger())
	require.NoError(r.t, err)
	_, err = b.Run(context.Background(), r.root)
	require.NoError(r.t, err)
}

// sweep runs one real sweep: retention's QuietPeriod is the finalizer's
// StaleAfter, as `journalship retention` sets them.
func (r *liveRig) sweep() *Report {
	fcfg := finalize.DefaultConfig()
	fcfg.StaleAfter = r.quiet
	fin, err := finalize.New(fcfg, r.inst, r.inst.Ledger(), nil)
	require.NoError(r.t, err)
	cfg := DefaultConfig()
	cfg.Root, cfg.Log, cfg.PostTerminal, cfg.QuietPeriod = r.root, &strings.Builder{}, 0, r.quiet
	a, err := New(cfg, nil, fin, r.inst.Ledger(), nil)
	require.NoError(r.t, err)
	rep, err := a.Sweep(context.Background())
	require.NoError(r.t, err)
	return rep
}

// inLoki returns every entry of the file in Loki, by event_type.
func (r *liveRig) inLoki(path string, want int) map[string][]lokiquery.Entry {
	q := &lokiquery.Client{URL: r.loki}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions"} | file="`+path+`"`,
		time.Now().Add(-96*time.Hour), time.Now().Add(time.Minute), want, 30*time.Second)
	for _, e := range got {
		r.t.Logf("%s %v %s", e.Stream["event_type"], e.Time, e.Line)
	}
	require.NoError(r.t, err)
	by := map[string][]lokiquery.Entry{}
	for _, e := range got {
		by[e.Stream["event_type"]] = append(by[e.Stream["event_type"]], e)
	}
	return by
}

// TestOlderSessionStillWrittenIsNeverDeleted: an older session file still
// appended to every 250 ms beside a newer session that ended completed
// (long ago) is not deleted, nor is the job judged over, while it is
// written; once it has been quiet for the quiet period, every line it got
// is in Loki and then both files go.
func TestOlderSessionStillWrittenIsNeverDeleted(t *testing.T) {
	r := newLiveRig(t)
	long := time.Now().Add(-48 * time.Hour)
	job := filepath.Join(r.root, "job1")
	require.NoError(t, os.MkdirAll(job, 0o755))
	older := filepath.Join(job, "session_20260301T100000Z_pod-a.jsonl")
	newer := filepath.Join(job, "session_20260301T110000Z_pod-b.jsonl")
	require.NoError(t, os.WriteFile(newer, []byte(session(long, long.Add(time.Minute), "completed")), 0o644))
	require.NoError(t, os.Chtimes(newer, long, long))
	require.NoError(t, os.WriteFile(older, []byte(line("SESSION_START", long, `"agent_id":"a"`)), 0o644))

	const appended = 24
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the writer that the newer session did not stop
		defer wg.Done()
		f, err := os.OpenFile(older, os.O_WRONLY|os.O_APPEND, 0)
		if !assert.NoError(t, err) {
			return
		}
		defer f.Close()
		for i := range appended {
			time.Sleep(250 * time.Millisecond)
			_, err := f.WriteString(line("TOOL_RESULT", time.Now(), `"n":`+strconv.Itoa(i)))
			assert.NoError(t, err)
		}
	}()
	for range 6 {
		r.ship()
		rep := r.sweep()
		assert.FileExists(t, older, "deleted while being written")
		assert.FileExists(t, newer, "the job is not over while one of its files is written")
		assert.Zero(t, rep.FilesDeleted)
		time.Sleep(500 * time.Millisecond)
	}
	wg.Wait()
	time.Sleep(r.quiet + 500*time.Millisecond)
	rep := r.sweep()
	assert.Equal(t, 2, rep.FilesDeleted, rep.Summary())
	by := r.inLoki(older, 1+appended)
	assert.Len(t, by["TOOL_RESULT"], appended, "every appended line reached Loki")
}

// TestEverySweepFinalizesFinishedFiles: a crashed session (torn last line,
// quiet for days) whose job is still active (a newer session is being
// written beside it) gets its truncated-tail marker and unshipped lines in
// Loki at the first sweep, although it may not be deleted yet.
func TestEverySweepFinalizesFinishedFiles(t *testing.T) {
	r := newLiveRig(t)
	long := time.Now().Add(-72 * time.Hour)
	job := filepath.Join(r.root, "job1")
	require.NoError(t, os.MkdirAll(job, 0o755))
	crashed := filepath.Join(job, "session_20260301T100000Z_pod-a.jsonl")
	running := filepath.Join(job, "session_20260301T110000Z_pod-b.jsonl")
	torn := session(long, long, "") + line("TOOL_RESULT", long, `"n":1`) + `{"type":"TOOL_RES`
	require.NoError(t, os.WriteFile(crashed, []byte(torn), 0o644))
	require.NoError(t, os.Chtimes(crashed, long, long))
	require.NoError(t, os.WriteFile(running, []byte(line("SESSION_START", time.Now(), `"agent_id":"a"`)), 0o644))

	rep := r.sweep() // nothing shipped before: the finalizer ships it all
	assert.Zero(t, rep.FilesDeleted)
	assert.FileExists(t, crashed, "its job is still active")
	by := r.inLoki(crashed, 5)
	assert.Len(t, by["truncated_tail"], 1, "the cut-off marker is in Loki")
	assert.Len(t, by["TOOL_RESULT"], 1, "the complete lines are in Loki")
	st, err := r.inst.Ledger().File(context.Background(), crashed)
	require.NoError(t, err)
	assert.True(t, st.Finished)
}

// TestReplacedFileIsShippedFromItsStart: a completed session file shipped
// and finalized, then removed and replaced under the same name by a
// different, longer session (the inode may well be reused), is a new
// file: the sweep ships every one of its lines before deleting it.
func TestReplacedFileIsShippedFromItsStart(t *testing.T) {
	r := newLiveRig(t)
	job := filepath.Join(r.root, "job1")
	require.NoError(t, os.MkdirAll(job, 0o755))
	p := filepath.Join(job, "session_20260301T100000Z_pod-a.jsonl")
	first := time.Now().Add(-50 * time.Hour)
	require.NoError(t, os.WriteFile(p, []byte(session(first, first.Add(time.Minute), "completed")), 0o644))
	require.NoError(t, os.Chtimes(p, first, first))
	r.ship()
	fin, err := finalize.New(finalize.DefaultConfig(), r.inst, r.inst.Ledger(), nil)
	require.NoError(t, err)
	out, err := fin.File(context.Background(), p)
	require.NoError(t, err)
	require.True(t, out.Finished)

	require.NoError(t, os.Remove(p))
	second := time.Now().Add(-40 * time.Hour)
	var b strings.Builder
	b.WriteString(line("SESSION_START", second, `"agent_id":"replacement"`))
	for i := range 40 {
		b.WriteString(line("TOOL_RESULT", second.Add(time.Duration(i)*time.Second), `"n":`+strconv.Itoa(i)))
	}
	b.WriteString(line("SESSION_END", second.Add(time.Minute), `"reason":"completed"`))
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	require.NoError(t, os.Chtimes(p, second, second))

	rep := r.sweep()
	require.Equal(t, 1, rep.FilesDeleted, rep.Summary())
	got := r.inLoki(p, 3+2+42)
	lines := map[string]bool{}
	for _, es := range got {
		for _, e := range es {
			lines[e.Line] = true
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		assert.True(t, lines[l], "the replacement's line is in Loki: %s", l)
	}
}
