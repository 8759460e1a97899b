package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/internal/sample/kinds"
	"github.com/journalship/journalship/internal/verify"
	"github.com/journalship/journalship/output"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var cliOnce struct {
	sync.Once
	path string
	err  error
}

// journalshipCLI builds cmd/journalship once per test binary.
func journalshipCLI(t testing.TB) string {
	t.Helper()
	cliOnce.Do(func() {
		cliOnce.path = filepath.Join(bins.workDir, "journalship")
		_, cliOnce.err = command(bins.root, "go", "build", "-o", cliOnce.path, "./cmd/journalship")
	})
	require.NoError(t, cliOnce.err)
	return cliOnce.path
}

// mixedRoots are the format roots of mixedCorpus under node.
func mixedRoots(node string) string {
	var rs []string
	for _, k := range kinds.All() {
		rs = append(rs, k.Format+"="+filepath.Join(node, k.DemoRoot))
	}
	return strings.Join(rs, ",")
}

// stockNode is the mixed corpus written on a node, and a Loki with
// stock limits to ship it to.
type stockNode struct {
	loki   *lokiproc.Loki
	q      *lokiquery.Client
	corpus *sample.Corpus
	node   string // the corpus's root
	work   string // ledger and dead letters
	roots  string // --format-roots
}

func newStockNode(t *testing.T) *stockNode {
	t.Helper()
	loki := lokiproc.ForTest(t, lokiproc.Config{Limits: lokiproc.StockLimits()})
	n := &stockNode{loki: loki, q: &lokiquery.Client{URL: loki.URL}, corpus: mixedCorpus(t),
		node: filepath.Join(t.TempDir(), "node"), work: t.TempDir()}
	require.NoError(t, n.corpus.WriteTo(n.node))
	n.roots = mixedRoots(n.node)
	return n
}

// ship runs `journalship ship` (see shipArgs) to lokiURL over the node's
// format roots, or roots and dirs when given, with extra arguments.
func (n *stockNode) ship(t *testing.T, lokiURL, roots string, extra []string, dirs ...string) {
	t.Helper()
	if roots == "" {
		roots, dirs = n.roots, rootDirs(n.roots)
	}
	args := append(shipArgs(lokiURL, n.work, roots, nil), extra...)
	out, err := command("", journalshipCLI(t), append(args, dirs...)...)
	require.NoError(t, err, out)
}

// noDeadLetters checks the dead-letter file is empty or absent.
func (n *stockNode) noDeadLetters(t *testing.T) {
	t.Helper()
	dl, err := os.ReadFile(filepath.Join(n.work, "deadletter.jsonl"))
	if err == nil {
		assert.Empty(t, strings.TrimSpace(string(dl)), "no line dead-lettered")
	}
}

// countEntries counts entries with a metric query, which, unlike a log
// query, counts an entry Loki stored twice twice (what the dashboards'
// sums see).
func countEntries(t *testing.T, q *lokiquery.Client, selector string, over time.Duration) int {
	t.Helper()
	samples, err := q.Instant(context.Background(), fmt.Sprintf(`sum(count_over_time(%s[%dh]))`, selector, int(over.Hours())), time.Now().Add(time.Minute))
	require.NoError(t, err)
	if len(samples) == 0 {
		return 0
	}
	return int(samples[0].Value)
}

// TestStockLokiEveryLineOnce: a Loki 3 with its stock window and old-sample
// rule, stream sharding on and a low ingestion rate (429s), fed by
// `journalship ship`. Every complete line of every format is in Loki once:
// the distinct lines with their annotations, and a metric count that
// would see a duplicate; tokens by model equal the truth; a second run
// sends nothing. Then a backfill of old copies of the Cortex Plane
// journals (two hours and nine days older, and three hours older with a
// torn first line) into streams that hold newer entries: nothing Loki would refuse is sent as it is, so nothing hides
// behind a shard's success, and every line is there once, re-stamped with
// its own time kept.
func TestStockLokiEveryLineOnce(t *testing.T) {
	n := newStockNode(t)
	n.ship(t, n.loki.URL, "", nil)
	// The run met what it is about: Loki refused whole requests over the
	// tenant's rate (429). Sharding is on; whether Loki learned a stream's
	// rate soon enough to shard it depends on timing (its rate store is
	// polled every second), so the count is logged, not required.
	m := lokiMetrics(t, n.loki.URL)
	t.Logf("Loki: %s", regexp.MustCompile(`(?m)^loki_stream_sharding_count .*$`).FindString(m))
	assert.Regexp(t, `(?m)^loki_discarded_samples_total\{[^}]*reason="rate_limited"[^}]*\} [1-9]`, m, "requests were refused with 429")
	verify.LandedRestamped(t, n.loki.URL, n.corpus, n.node, "node-stock")
	want := n.corpus.Lines()
	assert.Equal(t, want, countEntries(t, n.q, verify.Selector, 7*time.Hour), "entries stored, duplicates included")
	n.ship(t, n.loki.URL, "", nil)
	assert.Equal(t, want, countEntries(t, n.q, verify.Selector, 7*time.Hour), "a second run sends nothing again")
	n.noDeadLetters(t)

	copies := filepath.Join(t.TempDir(), "copies")
	lines, files := 0, 0
	for _, f := range n.corpus.Files {
		if !strings.HasPrefix(f.Rel, cortex.Kind.DemoRoot+"/") {
			continue
		}
		files++
		for k, shift := range []time.Duration{0, -2 * time.Hour, -9 * 24 * time.Hour, -3 * time.Hour} {
			rel := fmt.Sprintf("%c-%s", 'a'+k, strings.TrimPrefix(f.Rel, cortex.Kind.DemoRoot+"/"))
			path := filepath.Join(copies, rel)
			data := shiftTimes(f.Data, shift)
			if k == 3 {
				data = tornFirstLine(data) // no time to read: the name's, or the ledger's
			}
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}
		lines += 4 * len(f.Lines)
	}
	n.ship(t, n.loki.URL, "cortex="+copies, []string{"--labels", "service_name=agent-copies"}, copies)
	sel := `{service_name="agent-copies"}`
	assert.Equal(t, lines, countEntries(t, n.q, sel, 170*time.Hour), "every copied line once")
	rewritten, err := n.q.QueryRange(context.Background(), sel+` | annotations=~".*timestamp_rewritten.*"`,
		time.Now().Add(-170*time.Hour), time.Now().Add(time.Minute), lokiquery.DefaultPageLimit, "forward")
	require.NoError(t, err)
	assert.NotEmpty(t, rewritten, "the old copies were re-stamped, not refused")
	for _, e := range rewritten {
		assert.NotEmpty(t, e.Metadata["original_timestamp"])
	}
	fallback, err := n.q.QueryRange(context.Background(), sel+` | annotations=~".*timestamp_fallback.*" | byte_offset="0"`,
		time.Now().Add(-170*time.Hour), time.Now().Add(time.Minute), lokiquery.DefaultPageLimit, "forward")
	require.NoError(t, err)
	assert.Len(t, fallback, files, "each torn first line is in Loki, with a time it chose")
	n.noDeadLetters(t)
}

// lokiMetrics returns Loki's own /metrics page.
func lokiMetrics(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// tornFirstLine cuts a journal's first line to its first 20 bytes, as a
// writer killed mid-append leaves it before the next write goes on.
func tornFirstLine(data []byte) []byte {
	i := bytes.IndexByte(data, '\n')
	if i <= 20 {
		return data
	}
	return append(append([]byte{}, data[:20]...), data[i:]...)
}

var rfc3339 = regexp.MustCompile(`"timestamp":"([0-9T:.\-]+Z)"`)

// shiftTimes moves every "timestamp" of a Cortex Plane journal by d.
func shiftTimes(data []byte, d time.Duration) []byte {
	return rfc3339.ReplaceAllFunc(data, func(m []byte) []byte {
		s := rfc3339.FindSubmatch(m)[1]
		ts, err := time.Parse(time.RFC3339Nano, string(s))
		if err != nil {
			return m
		}
		return []byte(`"timestamp":"` + ts.Add(d).UTC().Format("2006-01-02T15:04:05.000Z") + `"`)
	})
}

// chunksOf cuts every file of corpus (written under root) into tail chunks
// of 1 to maxLines lines, shuffled.
func chunksOf(t *testing.T, corpus *sample.Corpus, root string, seed int64, maxLines int) []string {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	var chunks []string
	for _, f := range corpus.Files {
		path := filepath.Join(root, f.Rel)
		for i := 0; i < len(f.Lines); {
			n := 1 + rng.Intn(maxLines)
			var evs []chunk.Event
			for _, l := range f.Lines[i:min(i+n, len(f.Lines))] {
				evs = append(evs, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, l.Offset, []byte(l.Text)))
			}
			chunks = append(chunks, writeChunk(t, chunk.FormatV2, evs...))
			i += n
		}
	}
	rng.Shuffle(len(chunks), func(i, j int) { chunks[i], chunks[j] = chunks[j], chunks[i] })
	return chunks
}

// flushUntilAcknowledged flushes every chunk through the .so in the C host
// as Fluent Bit would: a chunk answered FLB_RETRY is flushed again in the
// next round, by a new host process (a Fluent Bit restart, with the same
// ledger), until every chunk is acknowledged. It returns the rounds taken
// and how many flushes asked for a retry.
func flushUntilAcknowledged(t *testing.T, chunks []string, props []string, tag string) (rounds, retries int) {
	t.Helper()
	pending := chunks
	for rounds = 1; len(pending) > 0; rounds++ {
		require.LessOrEqual(t, rounds, 30, "%d chunks never acknowledged", len(pending))
		var script strings.Builder
		script.WriteString(instanceScript("a", props...))
		script.WriteString("init a\n")
		for _, c := range pending {
			fmt.Fprintf(&script, "flush a %s %s\n", c, tag)
		}
		script.WriteString("exit a\nunregister\n")
		stdout, err := runHost(t, script.String())
		require.NoError(t, err, stdout)
		codes := rcs(stdout, "flush a")
		require.Len(t, codes, len(pending), stdout)
		var again []string
		for i, rc := range codes {
			require.Contains(t, []int{output.OK, output.Retry}, rc, "flush of %s", pending[i])
			if rc == output.Retry {
				again = append(again, pending[i])
			}
		}
		retries += len(again)
		pending = again
		if len(pending) > 0 {
			time.Sleep(time.Second) // Loki's rate limiter refills
		}
	}
	return rounds - 1, retries
}

// TestStockLokiThroughThePlugin: the mixed corpus in shuffled tail chunks
// through the .so in the C host into a Loki with stock limits whose tenant
// rate answers 429s: flushes asked to retry are flushed again after a
// restart. Every line is there once, as the truth has it, and the token
// sums equal the truth's.
func TestStockLokiThroughThePlugin(t *testing.T) {
	n := newStockNode(t)
	props := append(propsFor(t, n.loki.URL), "Node_Name", "node-stock", "Format_Roots", n.roots,
		"Max_Request_Bytes", "64K")
	rounds, retries := flushUntilAcknowledged(t, chunksOf(t, n.corpus, n.node, 5, 40), props, "node.x")
	t.Logf("%d rounds, %d flushes retried", rounds, retries)
	require.Positive(t, retries, "Loki's rate limit made some flushes retry")
	verify.LandedRestamped(t, n.loki.URL, n.corpus, n.node, "node-stock")
	assert.Equal(t, n.corpus.Lines(), countEntries(t, n.q, verify.Selector, 7*time.Hour), "entries stored, duplicates included")
}
