package grafana

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/retention"
)

// retentionPlan is what the test decides about each job for the sweep, and
// so what the sweep must do.
type retentionPlan struct {
	states        map[string]format.GroupState // by job id
	agedFile      string                       // a file of an active job made older than the max age
	deleted       map[string][2]float64        // rule → files, bytes
	dirsDeleted   int
	kept          map[string]float64 // reason → files
	sweepEnd      time.Time
	before, after time.Time // wall clock around the sweep
}

// planStatus is the test's job status source.
type planStatus map[string]format.GroupState

func (p planStatus) Group(_ context.Context, jobDir string) (format.GroupState, error) {
	return p[filepath.Base(jobDir)], nil
}

// startRetentionMetrics serves the agent's metrics on an endpoint of their own
// (like the retention sidecar's), and returns them with its address.
func startRetentionMetrics(t *testing.T) (*retention.Metrics, string) {
	t.Helper()
	m := retention.NewMetrics() // its counters exist at 0 from the start
	for try := 0; ; try++ {
		addr := freeAddr(t)
		srv, err := retention.Serve(addr, m.Registry)
		if err != nil && try < 5 && strings.Contains(err.Error(), "address already in use") {
			continue // taken meanwhile by another test's process
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return m, addr
	}
}

// sweep plans job states (a quarter of the jobs terminal for two days,
// a quarter terminal for an hour, the rest running, one running job's
// first file untouched for eight days) and runs one real sweep over the
// shipped and finalized Cortex Plane corpus (the agent's root is the
// Cortex Plane root; the other formats' journals stay).
func (w *world) sweep(t *testing.T, sh *shipping, m *retention.Metrics) {
	t.Helper()
	now := time.Now()
	p := retentionPlan{states: map[string]format.GroupState{}, deleted: map[string][2]float64{}, kept: map[string]float64{}}
	filesOf := map[string][]string{}
	for _, f := range w.files(func(f *sample.File) bool { return f.JobID != "" }) {
		filesOf[f.JobID] = append(filesOf[f.JobID], w.path(f))
	}
	for i, job := range w.jobIDs() {
		switch i % 4 {
		case 1:
			p.states[job] = format.GroupState{Terminal: true, Status: "completed", FinishedAt: now.Add(-48 * time.Hour)}
			p.dirsDeleted++
			for _, f := range filesOf[job] {
				p.add(t, retention.RuleJobTerminal, f)
			}
		case 3:
			p.states[job] = format.GroupState{Terminal: true, Status: "failed", FinishedAt: now.Add(-time.Hour)}
			p.kept[retention.KeepPostTerminal] += float64(len(filesOf[job]))
		default:
			p.states[job] = format.GroupState{Status: "RUNNING"}
			files := filesOf[job]
			if i == 0 {
				p.agedFile = files[0]
				old := now.Add(-8 * 24 * time.Hour)
				if err := os.Chtimes(p.agedFile, old, old); err != nil {
					t.Fatal(err)
				}
				p.add(t, retention.RuleMaxAge, p.agedFile)
				files = files[1:]
				if len(files) == 0 {
					p.dirsDeleted++
				}
			}
			p.kept[retention.KeepJobActive] += float64(len(files))
		}
	}
	cfg := retention.DefaultConfig()
	cfg.Root, cfg.Log = filepath.Join(w.root, cortexDir), io.Discard
	fcfg := finalize.DefaultConfig()
	fcfg.Metrics = sh.set
	inst := sh.insts[tenantAcme]
	fin, err := finalize.New(fcfg, inst, inst.Ledger(), planStatus(p.states))
	if err != nil {
		t.Fatal(err)
	}
	agent, err := retention.New(cfg, planStatus(p.states), fin, inst.Ledger(), m)
	if err != nil {
		t.Fatal(err)
	}
	p.before = time.Now()
	rep, err := agent.Sweep(context.Background())
	p.after = time.Now()
	if err != nil {
		t.Fatal(err)
	}
	p.sweepEnd = rep.End
	if rep.Outcome() != "ok" || rep.End.Before(p.before) || rep.End.After(p.after) {
		t.Fatalf("sweep: outcome %s, end %s (ran %s..%s)", rep.Outcome(), rep.End, p.before, p.after)
	}
	w.ret = p
}

// add records that path must be deleted under rule.
func (p *retentionPlan) add(t *testing.T, rule, path string) {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	v := p.deleted[rule]
	p.deleted[rule] = [2]float64{v[0] + 1, v[1] + float64(st.Size())}
}
