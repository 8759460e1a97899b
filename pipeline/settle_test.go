package pipeline

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailedFlushKeepsWhatLokiStored: a flush is several requests (one a
// stream); when a later one fails, the lines of the requests Loki stored
// are recorded before the chunk is retried, so the retry sends only the
// rest: every line reaches Loki once, and every counter counts it once.
func TestFailedFlushKeepsWhatLokiStored(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			want := annotationsOnce(t)
			e := newEnv(t, nil)
			e.cap.statusFor = func(n int) int {
				if n == 2 { // the third stream's request
					return status
				}
				return http.StatusNoContent
			}
			_, path, data := journalAt(t)
			recs := tailRecords(path, data, testNow)
			ctx := context.Background()

			_, err := e.pipe.Ship(ctx, recs, "t")
			var re *RetryError
			require.ErrorAs(t, err, &re)
			first := len(e.cap.entries())
			require.Positive(t, first, "the requests before the failure were stored")
			require.Less(t, first, len(recs))
			assert.Equal(t, float64(first), testutil.ToFloat64(e.metrics.LinesShipped),
				"the stored lines are counted when they are recorded")

			res, err := e.pipe.Ship(ctx, recs, "t") // Fluent Bit's retry: the same chunk
			require.NoError(t, err)
			assert.Equal(t, first, res.AlreadyShipped)
			got := e.cap.entries()
			require.Len(t, got, len(recs), "every line once, none twice")
			seen := map[string]int{}
			for _, g := range got {
				seen[g.md["byte_offset"]]++
				assert.Equal(t, want[g.md["byte_offset"]], g.md["annotations"], "offset %s: the annotations of a flush that never failed", g.md["byte_offset"])
			}
			for off, n := range seen {
				assert.Equal(t, 1, n, "offset %s", off)
			}
			assert.Equal(t, float64(len(recs)), testutil.ToFloat64(e.metrics.LinesShipped))
			st, err := e.ledger.File(ctx, path)
			require.NoError(t, err)
			require.Len(t, st.Ranges, 1)
			assert.Equal(t, int64(len(data)), st.Ranges[0].End)
		})
	}
}

// annotationsOnce ships the golden journal in one flush that succeeds and
// returns each line's annotations by byte offset.
func annotationsOnce(t *testing.T) map[string]string {
	e := newEnv(t, nil)
	_, path, data := journalAt(t)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	out := map[string]string{}
	for _, g := range e.cap.entries() {
		out[g.md["byte_offset"]] = g.md["annotations"]
	}
	return out
}

// shiftedJournal writes the golden journal, its times moved back by two
// hours, as another session of the same job.
func shiftedJournal(t *testing.T, root string, data []byte) (string, []byte) {
	t.Helper()
	shifted := []byte(strings.ReplaceAll(string(data), "2026-11-21T10:", "2026-11-21T08:"))
	path := filepath.Join(root, goldenJob, "session_20261121T080000Z_agent-worker-2.jsonl")
	require.NoError(t, os.WriteFile(path, shifted, 0o644))
	return path, shifted
}

// TestEntriesTooFarBehindAreNeverSent: once a stream holds entries of
// 10:00, an entry of 08:00 would be refused by Loki (and a sharded stream
// could hide the refusal): it is re-stamped at the oldest time the stream
// accepts before it is sent, its own time kept, also by another process
// sharing the ledger; under Old_Entries dead_letter it is dead-lettered.
func TestEntriesTooFarBehindAreNeverSent(t *testing.T) {
	ctx := context.Background()
	t.Run("rewrite, another process", func(t *testing.T) {
		a := newEnv(t, nil)
		root, path, data := journalAt(t)
		_, err := a.pipe.Ship(ctx, tailRecords(path, data, testNow), "t")
		require.NoError(t, err)
		// b shares a's ledger, as the finalizer shares the plugin's.
		b := newEnv(t, nil)
		cfg := DefaultConfig()
		cfg.Enrich.Node = "node-a"
		cfg.Enrich.Static = map[string]string{"service_name": "agent-sessions"}
		cfg.Now = func() time.Time { return testNow }
		pb, err := New(cfg, Deps{Pusher: b.pipe.deps.Pusher, Ledger: a.ledger, DeadLetters: b.pipe.deps.DeadLetters})
		require.NoError(t, err)
		path2, shifted := shiftedJournal(t, root, data)
		_, err = pb.Ship(ctx, tailRecords(path2, shifted, testNow), "t")
		require.NoError(t, err)
		newest := map[string]time.Time{}
		for _, g := range a.cap.entries() {
			if g.ts.After(newest[g.labels]) {
				newest[g.labels] = g.ts
			}
		}
		got := b.cap.entries()
		require.NotEmpty(t, got)
		rewritten := 0
		for _, g := range got {
			if n, ok := newest[g.labels]; ok {
				assert.False(t, g.ts.Before(n.Add(-time.Hour)), "%s at %s is too far behind %s", g.labels, g.ts, n)
				if strings.Contains(g.md["annotations"], "timestamp_rewritten") {
					rewritten++
					assert.Equal(t, "2026-11-21T08", g.md["original_timestamp"][:13])
				}
			}
		}
		assert.Positive(t, rewritten)
	})
	t.Run("dead_letter", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.OldEntries = DeadLetter })
		root, path, data := journalAt(t)
		_, err := e.pipe.Ship(ctx, tailRecords(path, data, testNow), "t")
		require.NoError(t, err)
		path2, shifted := shiftedJournal(t, root, data)
		res, err := e.pipe.Ship(ctx, tailRecords(path2, shifted, testNow), "t")
		require.NoError(t, err)
		assert.Positive(t, res.DeadLettered)
		assert.Contains(t, strings.Join(e.deadLetters(t), "\n"), "too far behind its newest entry")
	})
}

// TestOwnCeilingDoesNotRestamp: the ceiling a process writes for others
// carries slack; the process itself judges by its exact newest time, so
// an entry 53 minutes behind, which Loki accepts with the margin to
// spare, keeps its time.
func TestOwnCeilingDoesNotRestamp(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, nil)
	root, path, data := journalAt(t)
	_, err := e.pipe.Ship(ctx, tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	// The next Ship reads the ceilings back from the ledger.
	shifted := []byte(strings.ReplaceAll(string(data), "2026-11-21T10:00:", "2026-11-21T09:07:"))
	path2 := filepath.Join(root, goldenJob, "session_20261121T090700Z_agent-worker-3.jsonl")
	require.NoError(t, os.WriteFile(path2, shifted, 0o644))
	e.pipe.behind.read = time.Time{} // due for a refresh
	_, err = e.pipe.Ship(ctx, tailRecords(path2, shifted, testNow), "t")
	require.NoError(t, err)
	for _, g := range e.cap.entries() {
		assert.NotContains(t, g.md["annotations"], "timestamp_rewritten", "%s %s", g.labels, g.ts)
	}
}

// TestRestampedTimesSurviveRetries: lines too old for Loki are re-stamped;
// a flush that failed and is retried minutes later stamps them exactly as
// the first attempt did, also after a restart (the file's base is kept
// in the ledger), so a line Loki stored unheard is sent again as the
// same entry.
func TestRestampedTimesSurviveRetries(t *testing.T) {
	ctx := context.Background()
	stamps := func(e *env) map[string]time.Time {
		out := map[string]time.Time{}
		for _, g := range e.cap.entries() {
			out[g.md["byte_offset"]] = g.ts
		}
		return out
	}
	old := func(data []byte) []byte {
		return []byte(strings.ReplaceAll(string(data), "2026-11-21T10:", "2026-01-21T10:"))
	}
	// The reference: shipped at once.
	ref := newEnv(t, nil)
	_, path, data := journalAt(t)
	require.NoError(t, os.WriteFile(path, old(data), 0o644))
	_, err := ref.pipe.Ship(ctx, tailRecords(path, old(data), testNow), "t")
	require.NoError(t, err)
	want := stamps(ref)
	require.NotEmpty(t, want)

	// The same, refused by Loki first and retried three minutes later.
	now := testNow
	e := newEnv(t, func(c *Config) { c.Now = func() time.Time { return now } })
	_, path, data = journalAt(t)
	require.NoError(t, os.WriteFile(path, old(data), 0o644))
	e.cap.setStatus(http.StatusServiceUnavailable)
	_, err = e.pipe.Ship(ctx, tailRecords(path, old(data), testNow), "t")
	require.Error(t, err)
	e.cap.setStatus(http.StatusNoContent)
	now = testNow.Add(3 * time.Minute)
	restarted, err := New(e.pipe.cfg, e.pipe.deps) // a restart: only the ledger remembers
	require.NoError(t, err)
	_, err = restarted.Ship(ctx, tailRecords(path, old(data), testNow), "t")
	require.NoError(t, err)
	assert.Equal(t, want, stamps(e))
	for _, g := range e.cap.entries() {
		assert.Contains(t, g.md["annotations"], "timestamp_rewritten")
	}
}

// TestFallbackTimeIsTheSameHoweverShipped: a line without a readable time
// takes the time of the nearest line before it in its file, whether the
// chunk holds that line or not, in any order, read at any time: the
// plugin, a retry and `ship` send it as the same entry.
func TestFallbackTimeIsTheSameHoweverShipped(t *testing.T) {
	ctx := context.Background()
	fallbacks := func(e *env) map[string]time.Time {
		out := map[string]time.Time{}
		for _, g := range e.cap.entries() {
			if strings.Contains(g.md["annotations"], "timestamp_fallback") {
				out[g.md["byte_offset"]] = g.ts
			}
		}
		return out
	}
	whole := newEnv(t, nil)
	_, path, data := journalAt(t)
	_, err := whole.pipe.Ship(ctx, tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	want := fallbacks(whole)
	require.NotEmpty(t, want)

	single := newEnv(t, nil)
	_, path, data = journalAt(t)
	recs := tailRecords(path, data, testNow)
	for k := len(recs) - 1; k >= 0; k-- { // one line a chunk, last first, read later each time
		r := recs[k]
		r.Index, r.Time = 0, testNow.Add(time.Duration(k)*time.Minute)
		_, err := single.pipe.Ship(ctx, []chunk.Record{r}, "t")
		require.NoError(t, err)
	}
	assert.Equal(t, want, fallbacks(single))
	for off, ts := range want {
		assert.True(t, ts.Before(testNow), "offset %s takes a line's time, not the read time", off)
	}
}

// TestSyntheticCostCountedOncePerProcess: a finalizer pass that shipped a
// run's summary but failed before keeping its marks ships it again; the
// cost metric counts it once.
func TestSyntheticCostCountedOncePerProcess(t *testing.T) {
	e := newEnv(t, nil)
	_, path, _ := journalAt(t)
	summary := []Synthetic{{Path: path, Kind: "metadata", Time: testNow, Line: []byte(`{"total_cost_usd":1.5}`),
		Cost: 1.5, CostModel: "claude-sonnet-4-5"}}
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), summary))
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), summary))
	assert.InDelta(t, 1.5, testutil.ToFloat64(e.metrics.CostUSD.WithLabelValues("claude-sonnet-4-5", "default")), 1e-9)
	other := summary[0]
	other.Time, other.Line = testNow.Add(time.Hour), []byte(`{"total_cost_usd":2.5}`)
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), []Synthetic{other}))
	assert.InDelta(t, 3.0, testutil.ToFloat64(e.metrics.CostUSD.WithLabelValues("claude-sonnet-4-5", "default")), 1e-9, "another run's summary counts")
}

// TestTimelessFileTakesItsModificationTime: a file whose lines carry no
// time at all (a Claude Code stream-json capture) ships at its
// modification time, not at the time it is read: a capture shipped days
// after its run stays with its run.
func TestTimelessFileTakesItsModificationTime(t *testing.T) {
	e := newEnv(t, nil)
	root := t.TempDir()
	path := filepath.Join(root, "captures", "run.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	data := []byte("{\"kind\":\"start\"}\n{\"kind\":\"step\"}\n{\"kind\":\"end\"}\n")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	mtime := testNow.Add(-72 * time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(path, mtime, mtime))
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	got := e.cap.entries()
	require.Len(t, got, 3)
	for _, g := range got {
		off, err := strconv.ParseInt(g.md["byte_offset"], 10, 64)
		require.NoError(t, err)
		want := mtime.Add(time.Duration(off)) // in file order
		assert.True(t, g.ts.Equal(want), "%s at %s, not %s", g.line, g.ts, want)
		assert.Contains(t, g.md["annotations"], "timestamp_fallback")
	}
}

// TestBehindRestampsSurviveRetries: lines too far behind their streams are
// stamped at a time no stream refuses, which moves with the clock; a
// flush refused and retried minutes later, after a restart, stamps them
// exactly as the first attempt did.
func TestBehindRestampsSurviveRetries(t *testing.T) {
	ctx := context.Background()
	run := func(fail bool) map[string]time.Time {
		now := testNow
		e := newEnv(t, func(c *Config) { c.Now = func() time.Time { return now } })
		root, path, data := journalAt(t)
		_, err := e.pipe.Ship(ctx, tailRecords(path, data, testNow), "t")
		require.NoError(t, err)
		path2, shifted := shiftedJournal(t, root, data)
		p := e.pipe
		if fail {
			e.cap.setStatus(http.StatusServiceUnavailable)
			_, err = p.Ship(ctx, tailRecords(path2, shifted, testNow), "t")
			require.Error(t, err)
			e.cap.setStatus(http.StatusNoContent)
			now = testNow.Add(3 * time.Minute)
			p, err = New(e.pipe.cfg, e.pipe.deps) // a restart: only the ledger remembers
			require.NoError(t, err)
		}
		_, err = p.Ship(ctx, tailRecords(path2, shifted, testNow), "t")
		require.NoError(t, err)
		out := map[string]time.Time{}
		for _, g := range e.cap.entries() {
			if g.md["file"] == path2 && strings.Contains(g.md["annotations"], "timestamp_rewritten") {
				out[g.md["byte_offset"]] = g.ts
			}
		}
		return out
	}
	want := run(false)
	require.NotEmpty(t, want)
	assert.Equal(t, want, run(true))
}
