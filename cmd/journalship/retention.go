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
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/output"
	"github.com/journalship/journalship/retention"
)

// retentionOpts are the retention command's own flags.
type retentionOpts struct {
	cfg         retention.Config
	fin         finalize.Config
	pg          retention.PGConfig
	status      string
	once        bool
	metricsAddr string
}

func retentionFlags(fs *flag.FlagSet) (output.Getter, *retentionOpts) {
	get := settingFlags(fs, map[string]string{"Metrics_Address": "127.0.0.1:2022"})
	o := &retentionOpts{cfg: retention.DefaultConfig(), fin: finalize.DefaultConfig(), pg: retention.DefaultPGConfig()}
	o.fin.Backfill.MaxElapsed = 30 * time.Second
	fs.StringVar(&o.cfg.Root, "root", o.cfg.Root, "sessions root, <root>/<job_id>/*.jsonl (absolute, spelled as tail reports paths)")
	fs.DurationVar(&o.cfg.PostTerminal, "post-terminal", o.cfg.PostTerminal, "keep a terminal job's files this long after it finished")
	fs.DurationVar(&o.cfg.MaxAge, "max-age", o.cfg.MaxAge, "a file whose mtime is older is deleted whatever its job's state (once fully in Loki)")
	fs.DurationVar(&o.cfg.Interval, "interval", o.cfg.Interval, "time between sweeps (daemon mode)")
	fs.BoolVar(&o.cfg.ForceMaxAge, "force-max-age", false, "delete files past --max-age even when not fully in Loki (their unshipped bytes are lost)")
	fs.BoolVar(&o.cfg.DryRun, "dry-run", false, "print what would be deleted and why; finalize, ship, delete and forget nothing")
	fs.BoolVar(&o.once, "once", false, "one sweep, then exit (CronJob); default: a sweep every --interval (DaemonSet sidecar)")
	fs.StringVar(&o.status, "status", "journal", "where job status comes from: journal (the latest session's SESSION_END) or postgres")
	fs.StringVar(&o.pg.DSN, "pg-dsn", "", "PostgreSQL connection string (--status postgres); $JOURNALSHIP_PG_DSN if empty")
	fs.StringVar(&o.pg.Query, "pg-query", o.pg.Query, "query taking the job id as $1 and returning (status, finished_at)")
	fs.DurationVar(&o.fin.StaleAfter, "stale-after", o.fin.StaleAfter, "a partial last line unchanged this long means its writer died")
	fs.DurationVar(&o.fin.Backfill.MaxElapsed, "max-retry", o.fin.Backfill.MaxElapsed, "how long one batch is retried while Loki fails")
	return get, o
}

func runRetention(args []string) error {
	fs := flag.NewFlagSet("retention", flag.ContinueOnError)
	get, o := retentionFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("retention: unexpected arguments %q (use --root)", fs.Args())
	}
	o.metricsAddr = get("Metrics_Address")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return retentionRun(ctx, get, o, os.Stdout)
}

// retentionRun builds the agent from the plugin's settings and the
// retention flags and runs one sweep (--once, printing the report to w)
// or sweeps until ctx ends.
func retentionRun(ctx context.Context, get output.Getter, o *retentionOpts, w io.Writer) error {
	if err := o.cfg.Validate(); err != nil {
		return err
	}
	status, closeStatus, err := buildStatus(o)
	if err != nil {
		return err
	}
	defer closeStatus()
	inst, err := output.NewInstance(func(k string) string {
		if strings.EqualFold(k, "Metrics_Address") {
			return "off" // served below, with the retention metrics
		}
		return get(k)
	})
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
	var fin retention.Finalizer
	if !o.cfg.DryRun {
		f, err := finalize.New(o.fin, inst, inst.Ledger(), retention.FinalizeStatus{Status: status})
		if err != nil {
			return err
		}
		fin = f
	}
	agent, err := retention.New(o.cfg, status, fin, inst.Ledger(), m)
	if err != nil {
		return err
	}
	if !o.once {
		return agent.Run(ctx)
	}
	rep, err := agent.Sweep(ctx)
	if rep != nil {
		rep.Print(w)
	}
	return err
}

// buildStatus returns the job status source named by --status.
func buildStatus(o *retentionOpts) (retention.Status, func(), error) {
	switch o.status {
	case "journal":
		return retention.JournalStatus{}, func() {}, nil
	case "postgres":
		if o.pg.DSN == "" {
			o.pg.DSN = os.Getenv("JOURNALSHIP_PG_DSN")
		}
		pg, err := retention.NewPGStatus(o.pg)
		if err != nil {
			return nil, nil, err
		}
		return pg, func() { pg.Close() }, nil
	}
	return nil, nil, &retention.ConfigError{Field: "status", Value: o.status, Reason: "must be journal or postgres"}
}
