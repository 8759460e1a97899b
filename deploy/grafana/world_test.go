package grafana

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/promproc"
	"github.com/journalship/journalship/internal/sample"
)

// The world the dashboards are checked against: generated corpora of
// every journal format (every Kind of kinds.All(): Cortex Plane, Codelia,
// OrbitMesh, Claude Code, Codex CLI, Go pkg/session, …) with every fault,
// written to disk each under its own root, shipped by two output
// instances (tenant acme on node-a, the default tenant on node-b, the
// test's price table) through a proxy that fails the first two pushes (a
// 503, then a 429), finalized, swept by the retention agent, in a real
// Loki, with both metrics endpoints scraped by a real Prometheus.
const (
	corpusSeed     = 7    // the Cortex Plane corpus
	corpusJobs     = 12   // its jobs
	runsSeed       = 5    // every other format's corpus: no line of theirs over Max_Line_Bytes
	maxLineBytes   = 4096 // Max_Line_Bytes: the corpus's longest results are dead-lettered
	tenantAcme     = "acme"
	tenantDefault  = "default" // the tenant label when Tenant_ID is empty
	shipJob        = "journalship"
	retentionJob   = "retention"
	scrapeInterval = 250 * time.Millisecond
)

// world holds the corpus, what the test knows of it, and the servers.
type world struct {
	corpus   *sample.Corpus
	root     string
	prices   *priceTable
	facts    []fact
	tenants  map[string]string // file (Rel) → tenant label
	nodes    map[string]string // file (Rel) → node label
	retries  map[string]int    // retry cause → pushes the proxy failed with it
	ret      retentionPlan
	shipAddr string // the shipping metrics endpoint
	loki     *lokiproc.Loki
	lq       *lokiquery.Client
	prom     *promproc.Prometheus
	zeroAt   time.Time // the shipping endpoint's first scrape, every counter at 0
	shipAt   time.Time // the shipping endpoint's last scrape, after everything
	retAt    time.Time // the retention endpoint's last scrape, after the sweep
	to       time.Time // the dashboards' "now"
}

// newWorld builds the world or fails the test.
func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{prices: readPrices(t), tenants: map[string]string{}, nodes: map[string]string{}}
	w.generate(t)
	w.loki = lokiproc.ForTest(t, lokiproc.Config{})
	w.lq = &lokiquery.Client{URL: w.loki.URL}
	// The metrics endpoints listen before Prometheus starts (and picks
	// ports of its own): an address free a moment ago is taken at once.
	w.shipAddr = freeAddr(t)
	sh := w.startShipping(t, w.shipAddr)
	rm, retAddr := startRetentionMetrics(t)
	w.prom = promproc.ForTest(t, promproc.Config{ScrapeInterval: scrapeInterval,
		Targets: []promproc.Target{{Job: shipJob, Addr: w.shipAddr}, {Job: retentionJob, Addr: retAddr}}})
	w.zeroAt, _ = w.waitScrapes(t, time.Now())
	sh.ship(t, w)
	sh.finalize(t, w)
	w.sweep(t, sh, rm)
	done := time.Now()
	w.waitLoki(t)
	w.shipAt, w.retAt = w.waitScrapes(t, done)
	w.to = time.Now().Add(time.Second)
	return w
}

// generate writes every format's corpus under its root and assigns every
// file its tenant and node; a response two journals hold counts in the
// one that ships it first.
func (w *world) generate(t *testing.T) {
	if missing := rolesMissing(); len(missing) > 0 {
		t.Fatalf("the world holds every format of kinds.All(), and these have no roles table: %s", strings.Join(missing, "; "))
	}
	// Two hours ago: inside Loki's window, and no corpus (< 1 h here) makes
	// Loki refuse a line as too far behind its stream.
	start := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	c, err := generateCorpora(start)
	if err != nil {
		t.Fatal(err)
	}
	w.corpus, w.root = c, filepath.Join(t.TempDir(), "node")
	if err := c.WriteTo(w.root); err != nil {
		t.Fatal(err)
	}
	if span := corpusSpan(c, start); span > 55*time.Minute {
		t.Fatalf("corpus spans %s: Loki would refuse its oldest lines as too far behind; pick other seeds", span)
	}
	w.assign()
	w.corpus = c.Settled(w.billOwners())
	w.facts = buildFacts(w.corpus, w.prices, w.tenantOf, w.nodeOf, maxLineBytes)
}

// tenantOf is the tenant label of the instance that ships f.
func (w *world) tenantOf(f *sample.File) string { return w.tenants[f.Rel] }

// nodeOf is the node label of the instance that ships f.
func (w *world) nodeOf(f *sample.File) string { return w.nodes[f.Rel] }

// jobIDs lists the Cortex Plane corpus's jobs in order.
func (w *world) jobIDs() []string {
	var out []string
	for _, f := range w.corpus.Files {
		if f.JobID != "" && (len(out) == 0 || out[len(out)-1] != f.JobID) {
			out = append(out, f.JobID)
		}
	}
	return out
}

// jobDir is the directory of a Cortex Plane job.
func (w *world) jobDir(job string) string { return filepath.Join(w.root, cortexDir, job) }

// path is the absolute path of a corpus file, as shipped in the file key.
func (w *world) path(f *sample.File) string { return filepath.Join(w.root, filepath.FromSlash(f.Rel)) }

// waitScrapes waits until both endpoints were scraped at or after since and
// returns the two scrapes' timestamps.
func (w *world) waitScrapes(t *testing.T, since time.Time) (ship, ret time.Time) {
	t.Helper()
	ctx := context.Background()
	ship, err := w.prom.WaitScrape(ctx, shipJob, since, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ret, err = w.prom.WaitScrape(ctx, retentionJob, since, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return ship, ret
}

// waitLoki waits until Loki returns every shipped line, marker and summary.
func (w *world) waitLoki(t *testing.T) {
	t.Helper()
	want := len(w.corpus.Files) // file summaries
	for _, f := range w.facts {
		if f.shipped {
			want++
		}
	}
	for _, f := range w.corpus.Files {
		if len(f.PartialTail) > 0 {
			want++
		}
	}
	got, err := w.lq.WaitFor(context.Background(), `{service_name="agent-sessions"}`, time.Now().Add(-24*time.Hour), time.Now().Add(time.Minute), want, 30*time.Second)
	if err != nil {
		t.Fatalf("Loki holds %d entries, want %d: %v", len(got), want, err)
	}
	for _, e := range got {
		if strings.Contains(e.Metadata["annotations"], "timestamp_rewritten") {
			t.Fatalf("an entry was re-stamped (Loki refused its time), the timelines would not be the journals': %s", e.Line)
		}
	}
	if len(got) != want {
		t.Fatalf("Loki holds %d entries, want exactly %d (a duplicate?)", len(got), want)
	}
}

// freeAddr returns a loopback address that was free just now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// absPricesFile is the price table's absolute path for Price_File.
func absPricesFile(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(pricesFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}
