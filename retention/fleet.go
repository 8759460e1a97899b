package retention

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/internal/kv"
)

// Fleet sweeps several roots, one agent each, with one status source,
// finalizer, ledger and set of metrics: a node whose runtimes write under
// their own roots (Cortex Plane /data/sessions, Codelia /data/codelia,
// OrbitMesh /data/orbitmesh) has one retention agent for all of them.
// Roots are swept one after the other, in the order given.
type Fleet struct {
	agents   []*Agent
	interval time.Duration
}

// NewFleet returns a Fleet sweeping each of roots with cfg (cfg.Root is
// ignored). Roots must be distinct and none inside another: a file swept
// twice in one pass could be judged by two agents at once.
func NewFleet(cfg Config, roots []string, groups format.GroupStatus, fin Finalizer, l Ledger, m *Metrics) (*Fleet, error) {
	if err := checkRoots(roots); err != nil {
		return nil, err
	}
	if m == nil {
		m = NewMetrics()
	}
	f := &Fleet{interval: cfg.Interval}
	for _, root := range roots {
		c := cfg
		c.Root = root
		a, err := New(c, groups, fin, l, m)
		if err != nil {
			return nil, err
		}
		f.agents = append(f.agents, a)
	}
	return f, nil
}

// ParseRoots splits a comma-separated list of roots (the CLI's --root).
func ParseRoots(s string) []string { return kv.List(s) }

// checkRoots refuses an empty list, and roots that repeat or nest.
func checkRoots(roots []string) error {
	if len(roots) == 0 {
		return &ConfigError{"Root", "", "at least one root is required"}
	}
	for i, a := range roots {
		for _, b := range roots[i+1:] {
			ca, cb := filepath.Clean(a), filepath.Clean(b)
			if ca == cb || within(ca, cb) || within(cb, ca) {
				return &ConfigError{"Root", a + "," + b, "roots must be distinct and not inside one another"}
			}
		}
	}
	return nil
}

// within tells whether path is strictly inside dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Sweep sweeps every root once into one report, recorded in the metrics
// and logged once (so the gauges of kept files cover every root). A root
// that cannot be swept does not stop the others; the error joins those of
// every root that failed (or is ctx's).
func (f *Fleet) Sweep(ctx context.Context) (*Report, error) {
	first := f.agents[0]
	r := &Report{DryRun: first.cfg.DryRun, Start: time.Now(), Kept: map[string]int{}}
	defer func() {
		r.End = time.Now()
		r.Duration = r.End.Sub(r.Start)
		first.m.record(r)
		first.log.Infof("%s", r.Summary())
	}()
	var errs []error
	for _, a := range f.agents {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		if err := a.sweep(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	return r, errors.Join(errs...)
}

// Run sweeps every root at once and then every Interval until ctx is
// done; a failed sweep is logged by its agent and retried at the next
// interval. It returns nil when ctx is cancelled.
func (f *Fleet) Run(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if _, err := f.Sweep(ctx); err != nil && ctx.Err() == nil {
			f.agents[0].log.Errorf("sweep failed: %v", err)
		}
		t.Reset(f.interval)
	}
}
