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

// The world the dashboards are checked against: a generated corpus with
// every fault, written to disk, shipped by two output instances (tenant
// acme on node-a, the default tenant on node-b, the test's price table)
// through a proxy that fails the first two pushes (a 503, then a 429),
// finalized, swept by the retention agent, in a real Loki, with both
// metrics endpoints scraped by a real Prometheus.
const (
	corpusSeed     = 7
	corpusJobs     = 12
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
	tenants  map[string]string // job id → tenant label
	nodes    map[string]string // job id → node label
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
	shipAddr, retAddr := freeAddr(t), freeAddr(t)
	w.shipAddr = shipAddr
	w.prom = promproc.ForTest(t, promproc.Config{ScrapeInterval: scrapeInterval,
		Targets: []promproc.Target{{Job: shipJob, Addr: shipAddr}, {Job: retentionJob, Addr: retAddr}}})
	sh := w.startShipping(t, shipAddr)
	rm := startRetentionMetrics(t, retAddr)
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

// generate writes the corpus and assigns tenants and nodes by job.
func (w *world) generate(t *testing.T) {
	cfg := sample.DefaultConfig()
	cfg.Seed, cfg.Jobs = corpusSeed, corpusJobs
	// Two hours ago: inside Loki's window, and the corpus (< 1 h here) never
	// makes Loki refuse a line as too far behind its stream.
	cfg.Start = time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	c, err := sample.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.corpus, w.root = c, filepath.Join(t.TempDir(), "sessions")
	if err := c.WriteTo(w.root); err != nil {
		t.Fatal(err)
	}
	for i, id := range w.jobIDs() {
		w.tenants[id], w.nodes[id] = tenantAcme, "node-a"
		if i%2 == 1 {
			w.tenants[id], w.nodes[id] = tenantDefault, "node-b"
		}
	}
	if span := c.Files[len(c.Files)-1].LastTime().Sub(cfg.Start); span > 55*time.Minute {
		t.Fatalf("corpus spans %s: Loki would refuse its oldest lines as too far behind; pick another seed", span)
	}
	w.facts = buildFacts(c, w.prices, func(j string) string { return w.tenants[j] }, func(j string) string { return w.nodes[j] }, maxLineBytes)
}

// jobIDs lists the corpus's jobs in order.
func (w *world) jobIDs() []string {
	var out []string
	for _, f := range w.corpus.Files {
		if len(out) == 0 || out[len(out)-1] != f.JobID {
			out = append(out, f.JobID)
		}
	}
	return out
}

// jobDir is the directory of a job.
func (w *world) jobDir(job string) string { return filepath.Join(w.root, job) }

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
