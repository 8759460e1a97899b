package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
	cortexsample "github.com/journalship/journalship/internal/sample/cortex"
)

// runDemo is `make run`: a local Loki, a realistic sample of journals of
// every format (jobs, runs and sessions, crashes, gaps, corruption),
// shipped through the same pipeline the plugin runs, then what landed,
// read back with LogQL.
func runDemo(args []string, stdout io.Writer) error {
	c := newCommand("demo", "journalship demo [--keep] [--dir DIR] [--loki-url URL] [--jobs N] [--seed N]", demoAbout)
	c.out = stdout
	dir := c.fs.String("dir", "", "work directory, new or empty: the sample journals ("+demoRootsHelp()+"), the ledger, the dead letters, Loki's data (default: a new temp dir)")
	seed := c.fs.Int64("seed", 1, "sample seed")
	jobs := c.fs.Int("jobs", 6, unitsHelp()+" in the sample (each at least what its fault scenarios need)")
	keep := c.fs.Bool("keep", false, "leave Loki running until Ctrl-C, to explore what landed (in Grafana, LogCLI or curl)")
	lokiURL := c.fs.String("loki-url", "", "ship to this (empty) Loki instead of starting one")
	if err := c.parse(args); err != nil {
		return err
	}
	if c.fs.NArg() > 0 {
		return c.usage("unexpected arguments %q", c.fs.Args())
	}
	if *jobs < 1 || *jobs > cortexsample.MaxJobs {
		return c.usage("--jobs %d is outside [1, %d]", *jobs, cortexsample.MaxJobs)
	}
	if *dir != "" {
		// A previous demo's journals, ledger and Loki data would be
		// counted again beside the new sample's.
		if entries, err := os.ReadDir(*dir); err == nil && len(entries) > 0 {
			return c.usage("--dir %s is not empty (a previous demo's?): give a new or empty directory", *dir)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *dir == "" {
		d, err := os.MkdirTemp("", "journalship-demo-")
		if err != nil {
			return err
		}
		*dir = d
	}
	abs, err := filepath.Abs(*dir) // Format_Roots takes absolute roots
	if err != nil {
		return err
	}
	d := &demo{out: stdout, dir: abs, lokiURL: *lokiURL}
	return d.run(ctx, *seed, *jobs, *keep)
}

// demoAbout is demo's help, the formats' part from their Kinds.
var demoAbout = wrap("What 'make run' runs: starts a local Loki (bin/loki, found beside this "+
	"executable, in the repository's bin/ or on PATH; $JOURNALSHIP_LOKI overrides) on a free "+
	"loopback port, writes a realistic sample of journals of every format, each under its own "+
	"root ("+demoUnitsHelp()+"; each with its fault scenarios: crashes, seq gaps, corruption, "+
	"forks and replays), ships them through the plugin's pipeline with those roots as "+
	"Format_Roots, finalizes them, and prints what landed, read back with LogQL: lines by format "+
	"and event type, annotations by format, tokens and dollars by format and model checked "+
	"against the journals (dollars at the built-in price table), and the audit trail of a "+
	"crashed file of each format.", 74) + `

With --keep, Loki stays up until Ctrl-C: point a Grafana Loki data source
at the URL it prints (Grafana in a container: run it with --network host),
or query it with curl or logcli.`

// demo is one run of `journalship demo`: its work directory, its Loki and
// the sample it wrote.
type demo struct {
	out      io.Writer
	dir      string
	lokiURL  string
	query    *lokiquery.Client
	samples  []demoSample // one per format, in sampleFormats' order
	start    time.Time
	mismatch bool
}

// demoSample is one format's sample corpus and where it was written.
type demoSample struct {
	format *sampleFormat
	root   string
	corpus *sample.Corpus
}

// run starts Loki (unless given one), writes, ships and reports the sample
// of jobs units of every format, and with keep waits for ctx to end.
func (d *demo) run(ctx context.Context, seed int64, jobs int, keep bool) error {
	fmt.Fprintf(d.out, "journalship demo — work dir %s\n\n", d.dir)
	if d.lokiURL == "" {
		loki, err := lokiproc.Start(ctx, lokiproc.Config{Dir: filepath.Join(d.dir, "loki")})
		if err != nil {
			return fmt.Errorf("demo: starting Loki: %w", err)
		}
		defer loki.Stop()
		d.lokiURL = loki.URL
		fmt.Fprintf(d.out, "1. Loki %s ready in %s (data in %s)\n", loki.URL, loki.Ready.Round(time.Millisecond), loki.Dir)
	} else {
		fmt.Fprintf(d.out, "1. shipping to the Loki at %s\n", d.lokiURL)
	}
	d.query = &lokiquery.Client{URL: d.lokiURL}
	if err := d.writeSample(seed, jobs); err != nil {
		return err
	}
	if err := d.ship(ctx); err != nil {
		return err
	}
	if err := d.report(ctx); err != nil {
		return err
	}
	if keep {
		d.keepHelp()
		<-ctx.Done()
	}
	return nil
}

// writeSample writes a sample of every format, with its fault scenarios,
// under the format's root in the work directory.
func (d *demo) writeSample(seed int64, n int) error {
	d.start = time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	fmt.Fprintf(d.out, "2. wrote a sample of every format, each under its own root:\n")
	for _, f := range sampleFormats {
		count := max(n, f.MinFaults)
		c, err := f.Generate(seed, count, d.start, true)
		if err != nil {
			return err
		}
		root := filepath.Join(d.dir, f.DemoRoot)
		if err := c.WriteTo(root); err != nil {
			return err
		}
		d.samples = append(d.samples, demoSample{format: f, root: root, corpus: c})
		lines, tails := 0, 0
		for _, file := range c.Files {
			lines += len(file.Lines)
			if len(file.PartialTail) > 0 {
				tails++
			}
		}
		fmt.Fprintf(d.out, "   %-*s %-12s %3d files, %4d lines, %d crashed mid-append   %s\n",
			nameWidth, f.Format, countOf(f, count), len(c.Files), lines, tails, root)
	}
	return nil
}

// roots is the sample roots, in sampleFormats' order.
func (d *demo) roots() []string {
	out := make([]string, len(d.samples))
	for i, s := range d.samples {
		out[i] = s.root
	}
	return out
}

// formatRoots is the Format_Roots setting of the sample: cortex=DIR/sessions,...
func (d *demo) formatRoots() string {
	parts := make([]string, len(d.samples))
	for i, s := range d.samples {
		parts[i] = s.format.Format + "=" + s.root
	}
	return strings.Join(parts, ",")
}

// ship ships the sample twice (the second time nothing) and finalizes it.
func (d *demo) ship(ctx context.Context) error {
	settings := map[string]string{
		"loki_url": d.lokiURL, "ledger_path": filepath.Join(d.dir, "ledger.db"),
		"dead_letter_path": filepath.Join(d.dir, "deadletter.jsonl"), "metrics_address": "off",
		"node_name": "demo-node", "log_level": "warn", "format_roots": d.formatRoots(),
	}
	get := func(k string) string { return settings[strings.ToLower(k)] }
	cfg := backfill.DefaultConfig()
	st, err := shipPaths(ctx, get, cfg, d.roots()...)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "3. shipped %d lines from %d files in %s (%d dead-lettered; %s the finalizer)\n   Format_Roots %s\n",
		st.Shipped, st.Files, st.Elapsed.Round(time.Millisecond), st.DeadLettered,
		plural(st.PartialTails, "partial last line waits for", "partial last lines wait for"), d.formatRoots())
	st2, err := shipPaths(ctx, get, cfg, d.roots()...)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "   shipping again is a no-op: %d shipped, %d already in the ledger\n", st2.Shipped, st2.Skipped)
	fcfg := finalize.DefaultConfig()
	fcfg.StaleAfter = 0 // the sample's writers are all gone
	var quiet strings.Builder
	outs, err := finalizePaths(ctx, get, fcfg, &quiet, d.roots()...)
	if err != nil {
		return err
	}
	finished, tails := 0, 0
	for _, o := range outs {
		if o.Finished {
			finished++
		}
		if o.TailBytes > 0 {
			tails++
		}
	}
	fmt.Fprintf(d.out, "   the finalizer accounted for %d finished files (of %d) and marked %d torn last line(s) in Loki\n", finished, len(outs), tails)
	return nil
}

// keepHelp tells how to look at the kept Loki.
func (d *demo) keepHelp() {
	fmt.Fprintf(d.out, `
Loki stays up at %[1]s until Ctrl-C. To look at what landed:
  Grafana:  Connections > Data sources > Add > Loki, URL %[1]s (uid "loki" for the
            dashboards in deploy/grafana); Grafana in a container needs --network host
  curl:     curl -sG %[1]s/loki/api/v1/query_range --data-urlencode 'query={service_name="agent-sessions"}' --data-urlencode since=24h
  the CLI:  journalship ship --loki-url %[1]s --ledger-path %[2]s --dead-letter-path %[3]s --format-roots %[4]s DIR
`, d.lokiURL, filepath.Join(d.dir, "ledger.db"), filepath.Join(d.dir, "deadletter.jsonl"), d.formatRoots())
}
