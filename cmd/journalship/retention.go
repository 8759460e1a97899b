package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/cortex/jobdb"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/output"
	"github.com/journalship/journalship/retention"
)

// retentionOpts are the retention command's own flags.
type retentionOpts struct {
	cfg         retention.Config
	roots       string // --root: comma-separated
	fin         finalize.Config
	pg          jobdb.Config
	status      string
	once        bool
	metricsAddr string
}

const retentionAbout = `Deletes journal files once every byte is in Loki and their job is over.
A job directory's files go when the job is terminal and --post-terminal has
passed since it finished; a run that is its own file (Codelia, OrbitMesh)
goes when it ended --post-terminal ago; a Claude Code session (its main
transcript and the session directory beside it, together) goes
--post-terminal after it went idle and quiet for --stale-after (it writes
no end record); any file older than --max-age is a safety-net candidate. --root may list several roots (a node's formats each
under their own), swept one after the other; each file is judged by the
format the plugin gives it (--format, --format-roots). Either way a file is first finalized (its remaining lines and
truncated-tail marker shipped) and deleted only when the ledger accounts
for every byte of it. Runs as a daemon (a sweep every --interval) or once
(--once); --dry-run prints what would be deleted and why, and writes
nothing at all: no ledger, no dead-letter file, no deletion.`

func retentionFlags(fs *flag.FlagSet) (output.Getter, *retentionOpts) {
	get := settingFlags(fs, map[string]string{"Metrics_Address": "127.0.0.1:2022"})
	o := &retentionOpts{cfg: retention.DefaultConfig(), fin: finalize.DefaultConfig(), pg: jobdb.DefaultConfig()}
	o.fin.Backfill.MaxElapsed = 30 * time.Second
	o.roots = o.cfg.Root
	fs.StringVar(&o.roots, "root", o.roots, "sessions roots, comma-separated: <root>/<job_id>/*.jsonl, or a runtime's tree of one file per run (absolute, spelled as tail reports paths)")
	fs.DurationVar(&o.cfg.PostTerminal, "post-terminal", o.cfg.PostTerminal, "keep a terminal job's files this long after it finished")
	fs.DurationVar(&o.cfg.MaxAge, "max-age", o.cfg.MaxAge, "a file whose mtime is older is deleted whatever its job's state (once fully in Loki)")
	fs.DurationVar(&o.cfg.Interval, "interval", o.cfg.Interval, "time between sweeps (daemon mode)")
	fs.BoolVar(&o.cfg.ForceMaxAge, "force-max-age", false, "delete files past --max-age even when not fully in Loki (their unshipped bytes are lost)")
	fs.BoolVar(&o.cfg.DryRun, "dry-run", false, "print what would be deleted and why; finalize, ship, delete and forget nothing")
	fs.BoolVar(&o.once, "once", false, "one sweep, then exit (CronJob); default: a sweep every --interval (DaemonSet sidecar)")
	fs.StringVar(&o.status, "status", "journal", "where job status comes from: journal (the latest session's SESSION_END) or postgres")
	fs.StringVar(&o.pg.DSN, "pg-dsn", "", "PostgreSQL connection string (--status postgres); $JOURNALSHIP_PG_DSN if empty")
	fs.StringVar(&o.pg.Query, "pg-query", o.pg.Query, "query taking the job id as $1 and returning (status, finished_at)")
	fs.DurationVar(&o.fin.StaleAfter, "stale-after", o.fin.StaleAfter, "a partial last line unchanged this long means its writer died; a file modified more recently is never deleted")
	fs.DurationVar(&o.fin.Backfill.MaxElapsed, "max-retry", o.fin.Backfill.MaxElapsed, "how long one batch is retried while Loki fails")
	return get, o
}

func runRetention(args []string, stdout io.Writer) error {
	c := newCommand("retention", "journalship retention --root DIR[,DIR...] [--once] [--dry-run] [flags]", retentionAbout)
	c.out = stdout
	get, o := retentionFlags(c.fs)
	if err := c.parse(args); err != nil {
		return err
	}
	if c.fs.NArg() > 0 {
		return c.usage("unexpected arguments %q (the sessions root is --root)", c.fs.Args())
	}
	o.metricsAddr = get("Metrics_Address")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return retentionRun(ctx, get, o, stdout)
}

// retentionRun builds the agent from the plugin's settings and the
// retention flags and runs one sweep (--once, printing the report to w)
// or sweeps until ctx ends.
func retentionRun(ctx context.Context, get output.Getter, o *retentionOpts, w io.Writer) error {
	// A file modified within --stale-after is never deleted: the finalizer
	// would not call it finished either.
	o.cfg.QuietPeriod = o.fin.StaleAfter
	roots := retention.ParseRoots(o.roots)
	if len(roots) > 0 {
		o.cfg.Root = roots[0]
	} else {
		o.cfg.Root = ""
	}
	if err := o.cfg.Validate(); err != nil {
		return err
	}
	formats, err := output.FormatSettings(get)
	if err != nil {
		return err
	}
	o.cfg.Formats = formats
	status, closeStatus, err := buildStatus(o)
	if err != nil {
		return err
	}
	defer closeStatus()
	if o.cfg.DryRun {
		return retentionDryRun(ctx, get, o, roots, status, w)
	}
	inst, err := output.NewInstance(func(k string) string {
		if strings.EqualFold(k, "Metrics_Address") {
			return "off" // served below, with the retention metrics
		}
		return get(k)
	}, output.WithLogName("journalship retention"))
	if err != nil {
		return err
	}
	defer inst.Close()
	if inst.Ledger() == nil {
		return errors.New("retention: needs the ledger (Ledger_Path is none): it is what says a file is in Loki")
	}
	shipping, err := metrics.Acquire(metrics.Config{}) // the instance's process-wide set
	if err != nil {
		return err
	}
	defer metrics.Release()
	m := retention.NewMetrics()
	srv, err := retention.Serve(o.metricsAddr, m.Registry, shipping.Registry)
	if err != nil {
		return err
	}
	if srv != nil {
		defer srv.Close()
	}
	o.fin.Metrics, o.fin.Now = shipping, o.cfg.Now
	o.fin.IdleAfter = o.cfg.MaxAge // a file silent past the max age is finished
	fin, err := finalize.New(o.fin, inst, inst.Ledger(), status)
	if err != nil {
		return err
	}
	fleet, err := retention.NewFleet(o.cfg, roots, status, fin, inst.Ledger(), m)
	if err != nil {
		return err
	}
	return sweepOrRun(ctx, fleet, o.once, w)
}

// retentionDryRun judges the root with the ledger opened read-only and
// writes nothing: no ledger or dead-letter file is created, nothing is
// shipped, finalized, deleted or forgotten, and no metrics port is taken
// (a dry run beside a running agent must not fight it for 2022). A ledger
// that does not exist yet means nothing is shipped yet.
func retentionDryRun(ctx context.Context, get output.Getter, o *retentionOpts, roots []string, status format.GroupStatus, w io.Writer) error {
	lcfg, err := output.CheckSettings(get)
	if err != nil {
		return err
	}
	if lcfg.Path == "" {
		return errors.New("retention: needs the ledger (Ledger_Path is none): it is what says a file is in Loki")
	}
	lcfg.ReadOnly = true
	var l retention.Ledger
	switch led, err := ledger.Open(lcfg); {
	case err == nil:
		defer led.Close()
		l = led
	case errors.Is(err, ledger.ErrNotExist):
		fmt.Fprintf(w, "dry run: no ledger at %s yet, so nothing counts as shipped (--ledger-path names another)\n", lcfg.Path)
		l = emptyLedger{}
	default:
		return &output.PathError{Setting: "Ledger_Path", Path: lcfg.Path, Err: err}
	}
	fleet, err := retention.NewFleet(o.cfg, roots, status, nil, l, nil)
	if err != nil {
		return err
	}
	return sweepOrRun(ctx, fleet, o.once, w)
}

// emptyLedger is a ledger with nothing in it, for a dry run before any
// shipping: every file is unshipped, so nothing would be deleted.
type emptyLedger struct{}

func (emptyLedger) File(_ context.Context, path string) (ledger.FileState, error) {
	return ledger.FileState{Path: path, Size: -1}, nil
}
func (emptyLedger) Files(context.Context) ([]ledger.FileState, error) { return nil, nil }
func (emptyLedger) Forget(context.Context, string) error {
	return errors.New("retention: a dry run forgets nothing")
}
func (emptyLedger) ForgetMarks(context.Context, string) error {
	return errors.New("retention: a dry run forgets nothing")
}

// sweepOrRun runs one sweep and prints its report (once) or sweeps until
// ctx ends.
func sweepOrRun(ctx context.Context, fleet *retention.Fleet, once bool, w io.Writer) error {
	if !once {
		return fleet.Run(ctx)
	}
	rep, err := fleet.Sweep(ctx)
	if rep != nil {
		rep.Print(w)
	}
	return err
}

// buildStatus returns the job status source named by --status: nil for
// the journals themselves (their format's, found with the plugin's Format
// and Format_Roots).
func buildStatus(o *retentionOpts) (format.GroupStatus, func(), error) {
	switch o.status {
	case "journal":
		return nil, func() {}, nil
	case "postgres":
		if o.pg.DSN == "" {
			o.pg.DSN = os.Getenv("JOURNALSHIP_PG_DSN")
		}
		pg, err := jobdb.New(o.pg)
		if err != nil {
			return nil, nil, err
		}
		return pg, func() { pg.Close() }, nil
	}
	return nil, nil, &retention.ConfigError{Field: "status", Value: o.status, Reason: "must be journal or postgres"}
}
