package grafana

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/output"
)

// injected are the answers the proxy gives to the first pushes, and the
// retry cause journalship documents for each (pipeline.RetryError).
var injected = []struct {
	status int
	cause  string
}{{http.StatusServiceUnavailable, "server_error"}, {http.StatusTooManyRequests, "rate_limited"}}

// failingProxy forwards to Loki, answering the first pushes with the
// injected statuses without forwarding them.
type failingProxy struct {
	mu     sync.Mutex
	pushes int
	failed map[string]int // cause → pushes failed with it
	next   http.Handler
}

func (p *failingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/loki/api/v1/push" {
		p.mu.Lock()
		n := p.pushes
		p.pushes++
		if n < len(injected) {
			p.failed[injected[n].cause]++
		}
		p.mu.Unlock()
		if n < len(injected) {
			http.Error(w, "injected by the dashboard test", injected[n].status)
			return
		}
	}
	p.next.ServeHTTP(w, r)
}

// shipping is the two output instances and the process's metrics set.
type shipping struct {
	insts map[string]*output.Instance // tenant label → instance
	fins  map[string]*finalize.Finalizer
	set   *metrics.Set
	proxy *failingProxy
}

// startShipping opens one instance per tenant behind the failing proxy,
// serving metrics on addr, and their finalizers; the corpus's token series
// are created at 0 (see presetShipping).
func (w *world) startShipping(t *testing.T, addr string) *shipping {
	t.Helper()
	target, err := url.Parse(w.loki.URL)
	if err != nil {
		t.Fatal(err)
	}
	sh := &shipping{insts: map[string]*output.Instance{}, proxy: &failingProxy{failed: map[string]int{}, next: httputil.NewSingleHostReverseProxy(target)}}
	srv := httptest.NewServer(sh.proxy)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	for tenant, node := range map[string]string{tenantAcme: "node-a", tenantDefault: "node-b"} {
		settings := map[string]string{"loki_url": srv.URL, "ledger_path": filepath.Join(dir, "ledger.db"),
			"dead_letter_path": filepath.Join(dir, "deadletter-"+tenant+".jsonl"), "metrics_address": addr,
			"node_name": node, "log_level": "error", "price_file": absPricesFile(t), "max_line_bytes": fmt.Sprint(maxLineBytes)}
		if tenant != tenantDefault {
			settings["tenant_id"] = tenant
		}
		inst, err := output.NewInstance(func(k string) string { return settings[strings.ToLower(k)] })
		if err != nil {
			t.Fatalf("output instance for tenant %s: %v", tenant, err)
		}
		t.Cleanup(func() { inst.Close() })
		sh.insts[tenant] = inst
	}
	sh.set, err = metrics.Acquire(metrics.Config{}) // the instances' process-wide set
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { metrics.Release() })
	w.presetShipping(sh.set)
	sh.newFinalizers(t)
	return sh
}

// newFinalizers creates one finalizer per tenant before the first scrape,
// as the retention agent does at its start: their counters exist at 0
// before the first file is finished. The writers are gone: a journal that
// stopped at a line's end without ending (an OrbitMesh session waiting for
// an approval) is finished too, once idle for a minute (the corpora ended
// over an hour ago).
func (sh *shipping) newFinalizers(t *testing.T) {
	t.Helper()
	sh.fins = map[string]*finalize.Finalizer{}
	for _, tenant := range []string{tenantAcme, tenantDefault} {
		cfg := finalize.DefaultConfig()
		cfg.StaleAfter, cfg.IdleAfter, cfg.Metrics = 0, time.Minute, sh.set
		inst := sh.insts[tenant]
		f, err := finalize.New(cfg, inst, inst.Ledger(), nil)
		if err != nil {
			t.Fatal(err)
		}
		sh.fins[tenant] = f
	}
}

// presetShipping creates at 0 the token series of the corpus's models
// (prompt and completion; cache_read and cache_write for the models that
// report them), and the cost series of the models a format's side entry
// costs under (a Go pkg/session summary's, its model as written), so
// increase() over the test counts their first flush. Only the corpus knows
// them: model ids are open-ended, so the product cannot create these series
// before a model's first response (docs/operations.md, Metrics, says so). Everything else
// (outcomes, kinds, reasons, causes, the price table's entries per tenant,
// the finalizer's levels) the product creates at 0 itself.
func (w *world) presetShipping(s *metrics.Set) {
	for i := range w.facts {
		if f := &w.facts[i]; f.side != nil && f.costModel != "" {
			s.CostUSD.WithLabelValues(f.costModel, f.tenant)
		}
	}
	for _, tenant := range []string{tenantAcme, tenantDefault} {
		for m := range w.corpus.TokensByModel() {
			s.Tokens.WithLabelValues(m, "prompt", tenant)
			s.Tokens.WithLabelValues(m, "completion", tenant)
		}
		for m, v := range w.corpus.CacheTokensByModel() {
			for i, dir := range []string{"cache_read", "cache_write"} {
				if v[i] > 0 {
					s.Tokens.WithLabelValues(m, dir, tenant)
				}
			}
		}
	}
}

// shipPaths are what a tenant's instance ships and finalizes: the
// directories of its Cortex Plane jobs and its files of the other formats.
func (w *world) shipPaths(tenant string) []string {
	var out []string
	for _, j := range w.jobIDs() {
		if w.tenants[w.jobFile(j).Rel] == tenant {
			out = append(out, w.jobDir(j))
		}
	}
	for i := range w.corpus.Files {
		if f := &w.corpus.Files[i]; f.JobID == "" && w.tenantOf(f) == tenant {
			out = append(out, w.path(f))
		}
	}
	return out
}

// jobFile is the first file of a Cortex Plane job.
func (w *world) jobFile(job string) *sample.File {
	return w.files(func(f *sample.File) bool { return f.JobID == job })[0]
}

// ship backfills each tenant's journals through its instance, as
// `journalship ship` does.
func (sh *shipping) ship(t *testing.T, w *world) {
	t.Helper()
	for _, tenant := range []string{tenantAcme, tenantDefault} {
		inst := sh.insts[tenant]
		r, err := backfill.New(backfill.DefaultConfig(), inst, inst.Ledger())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(context.Background(), w.shipPaths(tenant)...); err != nil {
			t.Fatalf("shipping tenant %s: %v", tenant, err)
		}
	}
	sh.proxy.mu.Lock()
	w.retries = sh.proxy.failed
	sh.proxy.mu.Unlock()
	if len(w.retries) != len(injected) {
		t.Fatalf("the proxy failed %v, want one push per injected status", w.retries)
	}
}

// finalize finishes every file (their writers are gone), shipping the
// truncated_tail markers and file summaries, with the finalizer's metrics.
func (sh *shipping) finalize(t *testing.T, w *world) {
	t.Helper()
	for _, tenant := range []string{tenantAcme, tenantDefault} {
		outs, err := sh.fins[tenant].Run(context.Background(), w.shipPaths(tenant)...)
		if err != nil {
			t.Fatalf("finalizing tenant %s: %v", tenant, err)
		}
		for _, o := range outs {
			if !o.Finished {
				t.Fatalf("finalizer left %s unfinished: %s", o.Path, o.Why)
			}
		}
	}
}
