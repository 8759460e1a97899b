package retention

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/verdict"
)

// Ledger is the part of the ledger the agent uses (*ledger.Ledger).
type Ledger interface {
	File(ctx context.Context, path string) (ledger.FileState, error)
	Files(ctx context.Context) ([]ledger.FileState, error)
	Forget(ctx context.Context, path string) error
	// ForgetMarks drops what the finalizer kept of a deleted session
	// (format.SideRecords).
	ForgetMarks(ctx context.Context, session string) error
}

// Finalizer accounts for a finished file before it is judged
// (*finalize.Finalizer).
type Finalizer interface {
	File(ctx context.Context, path string) (finalize.Outcome, error)
}

// Agent sweeps a sessions root.
type Agent struct {
	cfg     Config
	formats *registry.Registry
	// groups is the configured job status source (nil: the journals).
	groups  format.GroupStatus
	verdict *verdict.Judge
	fin     Finalizer
	ledger  Ledger
	m       *Metrics
	log     *logger
}

// New returns an Agent. groups, when not nil, says whether a job is
// terminal instead of its journals (the job database, jobdb.Status). fin may be nil only for a
// dry run; m nil gets a fresh Metrics.
func New(cfg Config, groups format.GroupStatus, fin Finalizer, l Ledger, m *Metrics) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	switch {
	case l == nil:
		return nil, &ConfigError{"Ledger", "nil", "the ledger is required (it says what is in Loki)"}
	case fin == nil && !cfg.DryRun:
		return nil, &ConfigError{"Finalizer", "nil", "a finalizer is required unless DryRun"}
	}
	reg, err := registry.New(cfg.Formats)
	if err != nil {
		return nil, &ConfigError{"Formats", cfg.Formats.Format, err.Error()}
	}
	formatOf := func(path string) format.Format { return reg.Detect(path, nil).Format }
	v, err := verdict.New(verdict.Config{Quiet: cfg.QuietPeriod, Audit: audit.DefaultConfig(), Now: cfg.Now}, groups, formatOf)
	if err != nil {
		return nil, &ConfigError{"QuietPeriod", cfg.QuietPeriod.String(), err.Error()}
	}
	if m == nil {
		m = NewMetrics()
	}
	return &Agent{cfg: cfg, formats: reg, groups: groups, verdict: v, fin: fin, ledger: l, m: m, log: &logger{w: cfg.Log}}, nil
}

// Metrics returns the agent's metrics.
func (a *Agent) Metrics() *Metrics { return a.m }

// Run sweeps at once and then every Interval until ctx is done; a failed
// sweep is logged and retried at the next interval. It returns nil when
// ctx is cancelled (a graceful stop).
func (a *Agent) Run(ctx context.Context) error {
	return (&Fleet{agents: []*Agent{a}, interval: a.cfg.Interval}).Run(ctx)
}

// Sweep runs one sweep over the root. The error is non-nil only when the
// root cannot be swept at all (*RootError) or ctx ended; everything else
// (a job whose status is unknown, a file that cannot be deleted) is kept,
// logged, counted and reported.
func (a *Agent) Sweep(ctx context.Context) (*Report, error) {
	return (&Fleet{agents: []*Agent{a}, interval: a.cfg.Interval}).Sweep(ctx)
}

// sweep sweeps the root into r, which the caller records.
func (a *Agent) sweep(ctx context.Context, r *Report) error {
	rt, err := openRoot(a.cfg.Root)
	if err != nil {
		r.Errors, r.Failed = r.Errors+1, true
		a.m.Errors.WithLabelValues("root").Inc()
		return err
	}
	defer rt.Close()
	s := &sweep{Agent: a, r: r, rt: rt, now: a.cfg.Now()}
	// Last: a journal renamed within the root takes its old path's
	// ranges when the finalizer meets it in this sweep (finalize's adopt).
	defer s.forgetOrphans(ctx)
	if p, ok := a.groups.(Pinger); ok {
		if err := p.Ping(ctx); err != nil {
			s.statusFailed(err)
		}
	}
	entries, err := readDir(rt, ".")
	if err != nil {
		r.Errors, r.Failed = r.Errors+1, true
		a.m.Errors.WithLabelValues("list").Inc()
		return &RootError{Root: a.cfg.Root, Err: err}
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			s.keep(Decision{Path: s.abs(e.Name()), Reason: KeepNotJobDir, Detail: "a " + journalfile.Kind(e.Type()) + ", not a job directory: left alone"})
			continue
		}
		if s.runTree(e.Name()) {
			s.runs(ctx, e.Name())
			continue
		}
		s.job(ctx, e.Name())
	}
	return nil
}

// openRoot checks the root (an existing directory, not a symlink) and
// opens it as an os.Root.
func openRoot(root string) (*os.Root, error) {
	// Cleaned first: Lstat("link/") and Lstat("link/.") follow the link.
	root = filepath.Clean(root)
	info, err := os.Lstat(root)
	if err != nil {
		return nil, &RootError{Root: root, Err: err}
	}
	if !info.IsDir() {
		return nil, &RootError{Root: root, Err: errors.New("not a directory (a symlink is not followed)")}
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		return nil, &RootError{Root: root, Err: err}
	}
	return rt, nil
}

// readDir lists a directory under rt, sorted by name.
func readDir(rt *os.Root, name string) ([]os.DirEntry, error) {
	f, err := rt.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	sortEntries(entries)
	return entries, nil
}
