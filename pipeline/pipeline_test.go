package pipeline

import (
	"context"
	"flag"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/journalfile"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestGoldenPushRequest(t *testing.T) {
	root, path, data := journalAt(t)
	e := newEnv(t, nil)
	recs := tailRecords(path, data, testNow)
	res, err := e.pipe.Ship(context.Background(), recs, "sessions")
	require.NoError(t, err)
	assert.Equal(t, Result{Lines: 14, Shipped: 14, Bytes: int64(len(data) - 14)}, res)

	got := render(e.cap.entries(), root)
	if *update {
		require.NoError(t, os.WriteFile("testdata/journal.golden", []byte(got), 0o644))
	}
	want, err := os.ReadFile("testdata/journal.golden")
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

// annotationsByOffset ships recs and returns each line's annotations.
func annotationsByOffset(t *testing.T, e *env) map[string]string {
	out := map[string]string{}
	for _, en := range e.cap.entries() {
		out[en.md["byte_offset"]] = en.md["annotations"] + "|" + en.md["seq_gap"] + en.md["seq_regression"] + en.md["seq_repeat"] + "|" + en.md["model"]
	}
	return out
}

// TestContinuityIgnoresChunking: however the file is cut into chunks, in
// whatever order they arrive, retried or not, and across a restart (a new
// pipeline), every line gets the same annotations as in one ordered pass.
func TestContinuityIgnoresChunking(t *testing.T) {
	_, path, data := journalAt(t)
	recs := tailRecords(path, data, testNow)

	ref := newEnv(t, nil)
	_, err := ref.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	want := annotationsByOffset(t, ref)
	require.Contains(t, want["1985"], "seq_gap", "the fixture has a gap at the seq 9 line")
	require.Contains(t, want["2871"], "gpt-4.1", "the response gets its request's model")

	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		e := newEnv(t, nil)
		var chunks [][]chunk.Record
		for i := 0; i < len(recs); {
			n := 1 + rng.Intn(4)
			chunks = append(chunks, recs[i:min(i+n, len(recs))])
			i += n
		}
		rng.Shuffle(len(chunks), func(i, j int) { chunks[i], chunks[j] = chunks[j], chunks[i] })
		for ci, c := range chunks {
			if rng.Intn(3) == 0 { // a failed attempt, retried below
				e.cap.setStatus(503)
				_, err := e.pipe.Ship(context.Background(), c, "t")
				require.Error(t, err)
				e.cap.setStatus(204)
			}
			if ci == len(chunks)/2 { // a restart: fresh in-memory state
				p, err := New(e.pipe.cfg, e.pipe.deps)
				require.NoError(t, err)
				e.pipe = p
			}
			_, err := e.pipe.Ship(context.Background(), c, "t")
			require.NoError(t, err)
		}
		assert.Equal(t, want, annotationsByOffset(t, e), "seed %d", seed)
	}
}

func TestRetryAcknowledgesNothing(t *testing.T) {
	_, path, data := journalAt(t)
	e := newEnv(t, nil)
	e.cap.setStatus(503)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	var re *RetryError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "server_error", re.Cause)
	st, err := e.ledger.File(context.Background(), path)
	require.NoError(t, err)
	assert.Empty(t, st.Ranges, "nothing is recorded as shipped")
	assert.Equal(t, 1.0, testutil.ToFloat64(e.metrics.Retries.WithLabelValues("server_error")))
}

func TestLedgerRecordsShippedRanges(t *testing.T) {
	_, path, data := journalAt(t)
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	st, err := e.ledger.File(context.Background(), path)
	require.NoError(t, err)
	require.Len(t, st.Ranges, 1)
	assert.Equal(t, int64(len(data)), st.Watermark, "every byte of the file is accounted for")
	assert.Equal(t, int64(0), st.Ranges[0].FirstSeq)
	assert.Equal(t, int64(14), st.Ranges[0].LastSeq)
	id, err := journalfile.IdentityOf(path)
	require.NoError(t, err)
	assert.Equal(t, id, st.Identity, "the ranges are of this file")
}

// TestReplacedFileIsNotRecorded: lines read from a file that was replaced
// under the same name before the flush (a retry hours after an outage) are
// shipped, but the ledger does not claim them for the new file.
func TestReplacedFileIsNotRecorded(t *testing.T) {
	_, path, data := journalAt(t)
	recs := tailRecords(path, data, testNow)
	require.NoError(t, os.Remove(path))
	require.NoError(t, os.WriteFile(path, append([]byte(`{"type":"SESSION_START","other":1}`+"\n"), data...), 0o644))
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	assert.Len(t, e.cap.entries(), len(recs), "shipped all the same")
	st, err := e.ledger.File(context.Background(), path)
	require.NoError(t, err)
	assert.Empty(t, st.Ranges, "nothing claimed for the file the path names now")
}

func TestMetricsCountTokensByModel(t *testing.T) {
	_, path, data := journalAt(t)
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	tok := e.metrics.Tokens
	assert.Equal(t, 1200.0, testutil.ToFloat64(tok.WithLabelValues("claude-sonnet-4-5", "prompt", "default")))
	assert.Equal(t, 300.0, testutil.ToFloat64(tok.WithLabelValues("claude-sonnet-4-5", "completion", "default")))
	assert.Equal(t, 900.0, testutil.ToFloat64(tok.WithLabelValues("gpt-4.1", "prompt", "default")), "the schema-invalid response is not counted")
	assert.Equal(t, 3.0, testutil.ToFloat64(e.metrics.SeqMissing), "7, 8, and 10 (inside the torn line)")
	assert.Equal(t, 14.0, testutil.ToFloat64(e.metrics.LinesShipped))
	assert.Equal(t, 1.0, testutil.ToFloat64(e.metrics.LinesIn.WithLabelValues("corrupt")))
}

func TestLongLinesAreDeadLettered(t *testing.T) {
	_, path, data := journalAt(t)
	e := newEnv(t, func(c *Config) { c.MaxLineBytes = 1024 })
	long := append([]byte(`{"type":"ERROR","pad":"`), make([]byte, 2000)...)
	recs := append(tailRecords(path, data, testNow), chunk.Record{Time: testNow, Line: long, Path: []byte(path), Offset: int64(len(data)), HasOffset: true})
	res, err := e.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	assert.Equal(t, 1, res.DeadLettered)
	assert.Equal(t, 14, res.Shipped)
	dl := e.deadLetters(t)
	require.Len(t, dl, 1)
	assert.Contains(t, dl[0], "exceeds Max_Line_Bytes 1024")
	assert.Contains(t, dl[0], `"stage":"pipeline"`)
	assert.Equal(t, 1.0, testutil.ToFloat64(e.metrics.LinesDeadLettered.WithLabelValues("line_too_long")))
	assert.Contains(t, dl[0], path)
}

func TestOldEntriesPolicy(t *testing.T) {
	_, path, data := journalAt(t)
	late := func(c *Config) { c.Now = func() time.Time { return testNow.Add(30 * 24 * time.Hour) } }

	e := newEnv(t, late)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	es := e.cap.entries()
	require.Len(t, es, 14)
	assert.Equal(t, testNow.Add(30*24*time.Hour), es[0].ts.UTC(), "stamped at shipping time")
	assert.Equal(t, "2026-11-21T10:00:00Z", es[0].md["original_timestamp"])
	assert.Contains(t, es[0].md["annotations"], "timestamp_rewritten")

	e = newEnv(t, func(c *Config) { late(c); c.OldEntries = DeadLetter })
	res, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	assert.Equal(t, 14, res.DeadLettered)
	assert.Empty(t, e.cap.entries())
	assert.Contains(t, e.deadLetters(t)[0], "outside Loki's accepted window")
}

func TestDecodeProblemsAreDeadLettered(t *testing.T) {
	e := newEnv(t, nil)
	res, err := e.pipe.Ship(context.Background(), []chunk.Record{{Time: testNow, Problem: `missing log key "log"`, Index: 0}}, "t")
	require.NoError(t, err)
	assert.Equal(t, Result{Lines: 1, DeadLettered: 1}, res)
	assert.Contains(t, e.deadLetters(t)[0], `missing log key`)
}

func TestConfigValidate(t *testing.T) {
	assert.NoError(t, DefaultConfig().Validate())
	c := DefaultConfig()
	c.Layout.Labels = []Key{KeyJobID}
	c.Layout.Metadata = []Key{KeySeq}
	assert.ErrorContains(t, c.Validate(), "stream per value")
	c.Layout.AllowHighCardinality = true
	assert.NoError(t, c.Validate())
	c = DefaultConfig()
	c.OldEntries = "drop"
	assert.Error(t, c.Validate())
	_, err := ParseKeys("job_id, nope")
	assert.ErrorContains(t, err, `unknown key "nope"`)

	c = DefaultConfig()
	c.Enrich.Static = map[string]string{"service_name": "x", "node": "prod-1"}
	assert.ErrorContains(t, c.Validate(), "static label node is also a per-line label", "Loki refuses a duplicate label name")
	c.Layout.Labels = []Key{KeyEventType}
	assert.NoError(t, c.Validate(), "without node among the per-line labels")
}

// TestHugeSeqGapsSaturate: two journals whose last line jumps to the
// largest seq leave more missing seqs than an int64 holds: the count
// saturates, and the flush's metrics are all published (a wrapped,
// negative sum made the counter panic and lost them).
func TestHugeSeqGapsSaturate(t *testing.T) {
	root, path, data := journalAt(t)
	jump := func(p string) []byte {
		last := `{"type":"STATE_TRANSITION","timestamp":"2026-11-21T10:05:00.000Z","job_id":"` + goldenJob + `","seq":9223372036854775807}` + "\n"
		d := append(slices.Clone(data), last...)
		require.NoError(t, os.WriteFile(p, d, 0o644))
		return d
	}
	other := filepath.Join(root, goldenJob, "session_20261121T100001Z_agent-worker-2.jsonl")
	recs := append(tailRecords(path, jump(path), testNow), tailRecords(other, jump(other), testNow)...)
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	assert.Equal(t, float64(math.MaxInt64), testutil.ToFloat64(e.metrics.SeqMissing))
	assert.Positive(t, testutil.ToFloat64(e.metrics.LinesShipped))
}
