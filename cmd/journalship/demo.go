package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
)

// runDemo is `make run`: a local Loki, a realistic sample of journals
// (several jobs, a crash, a gap, corruption), shipped through the same
// pipeline the plugin runs, then what landed, read back with LogQL.
func runDemo(args []string, stdout io.Writer) error {
	c := newCommand("demo", "journalship demo [--keep] [--dir DIR] [--loki-url URL] [--jobs N] [--seed N]", demoAbout)
	c.out = stdout
	dir := c.fs.String("dir", "", "work directory: the sample journals, the ledger, the dead letters, Loki's data (default: a new temp dir)")
	seed := c.fs.Int64("seed", 1, "sample seed")
	jobs := c.fs.Int("jobs", 6, "jobs in the sample")
	keep := c.fs.Bool("keep", false, "leave Loki running until Ctrl-C, to explore what landed (in Grafana, LogCLI or curl)")
	lokiURL := c.fs.String("loki-url", "", "ship to this (empty) Loki instead of starting one")
	if err := c.parse(args); err != nil {
		return err
	}
	if c.fs.NArg() > 0 {
		return c.usage("unexpected arguments %q", c.fs.Args())
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
	d := &demo{out: stdout, dir: *dir, lokiURL: *lokiURL}
	return d.run(ctx, *seed, *jobs, *keep)
}

const demoAbout = `What 'make run' runs: starts a local Loki (bin/loki, found beside this
executable, in the repository's bin/ or on PATH; $JOURNALSHIP_LOKI
overrides) on a free loopback port, writes a realistic sample of journals
(several jobs, a crashed session, a seq gap, corruption), ships it through
the plugin's pipeline, finalizes it, and prints what landed, read back
with LogQL: lines by event type, tokens and dollars by model, the audit
trail of the crashed session.

With --keep, Loki stays up until Ctrl-C: point a Grafana Loki data source
at the URL it prints (Grafana in a container: run it with --network host),
or query it with curl or logcli.`

type demo struct {
	out      io.Writer
	dir      string
	lokiURL  string
	query    *lokiquery.Client
	corpus   *sample.Corpus
	start    time.Time
	mismatch bool
}

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

func (d *demo) writeSample(seed int64, jobs int) error {
	cfg := sample.DefaultConfig()
	cfg.Seed, cfg.Jobs = seed, jobs
	c, err := sample.Generate(cfg)
	if err != nil {
		return err
	}
	d.corpus, d.start = c, cfg.Start
	root := filepath.Join(d.dir, "sessions")
	if err := c.WriteTo(root); err != nil {
		return err
	}
	lines, tails := 0, 0
	for _, f := range c.Files {
		lines += len(f.Lines)
		if len(f.PartialTail) > 0 {
			tails++
		}
	}
	fmt.Fprintf(d.out, "2. wrote %d journal files (%d lines, %d crashed mid-append) under %s\n", len(c.Files), lines, tails, root)
	return nil
}

func (d *demo) ship(ctx context.Context) error {
	settings := map[string]string{
		"loki_url": d.lokiURL, "ledger_path": filepath.Join(d.dir, "ledger.db"),
		"dead_letter_path": filepath.Join(d.dir, "deadletter.jsonl"), "metrics_address": "off",
		"node_name": "demo-node", "log_level": "warn",
	}
	get := func(k string) string { return settings[strings.ToLower(k)] }
	cfg := backfill.DefaultConfig()
	st, err := shipPaths(ctx, get, cfg, filepath.Join(d.dir, "sessions"))
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "3. shipped %d lines from %d files in %s (%d dead-lettered; %s the finalizer)\n",
		st.Shipped, st.Files, st.Elapsed.Round(time.Millisecond), st.DeadLettered,
		plural(st.PartialTails, "partial last line waits for", "partial last lines wait for"))
	st2, err := shipPaths(ctx, get, cfg, filepath.Join(d.dir, "sessions"))
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "   shipping again is a no-op: %d shipped, %d already in the ledger\n", st2.Shipped, st2.Skipped)
	fcfg := finalize.DefaultConfig()
	fcfg.StaleAfter = 0 // the sample's writers are all gone
	var quiet strings.Builder
	outs, err := finalizePaths(ctx, get, fcfg, &quiet, filepath.Join(d.dir, "sessions"))
	if err != nil {
		return err
	}
	tails := 0
	for _, o := range outs {
		if o.TailBytes > 0 {
			tails++
		}
	}
	fmt.Fprintf(d.out, "   the finalizer accounted for %d finished files and marked %d torn last line(s) in Loki\n", len(outs), tails)
	return nil
}

// report prints what a Grafana user sees, with the LogQL behind it.
func (d *demo) report(ctx context.Context) error {
	from, to := d.start.Add(-time.Hour), time.Now().Add(time.Minute)
	rng := fmt.Sprintf("[%ds]", int(to.Sub(from).Seconds())+60)
	sel := `{service_name="agent-sessions"}`
	all, err := d.query.WaitFor(ctx, sel, from, to, 1, 30*time.Second)
	if err != nil {
		return err
	}
	all, err = d.query.QueryRange(ctx, sel, from, to, 5000, "forward")
	if err != nil {
		return err
	}
	markers, summaries := 0, 0
	for _, e := range all {
		switch e.Stream["event_type"] {
		case "truncated_tail":
			markers++
		case "file_summary":
			summaries++
		}
	}
	fmt.Fprintf(d.out, "\n4. what landed in Loki\n\n   %d journal lines + %d truncated-tail markers + %d file summaries   %s\n", len(all)-markers-summaries, markers, summaries, sel)
	if err := d.table(ctx, "lines by event type", `sum by (event_type) (count_over_time(`+sel+` `+rng+`))`, "event_type"); err != nil {
		return err
	}
	if err := d.table(ctx, "lines by session", `sum by (job_id, session_id) (count_over_time(`+sel+` `+rng+`))`, "job_id", "session_id"); err != nil {
		return err
	}
	if err := d.table(ctx, "integrity annotations", `sum by (annotations) (count_over_time(`+sel+` | annotations!="" `+rng+`))`, "annotations"); err != nil {
		return err
	}
	tok := func(field string) string {
		return `sum by (model) (sum_over_time({service_name="agent-sessions", event_type="LLM_RESPONSE"} | integrity="valid" | json t="` + field + `" | unwrap t ` + rng + `))`
	}
	if err := d.tokens(ctx, tok("prompt_tokens"), tok("completion_tokens")); err != nil {
		return err
	}
	if err := d.cost(ctx, `sum by (cost_model) (sum_over_time({service_name="agent-sessions", event_type="LLM_RESPONSE"} | unwrap cost_usd `+rng+`))`); err != nil {
		return err
	}
	if d.mismatch {
		return fmt.Errorf("demo: tokens by model in Loki differ from the journals")
	}
	return d.timeline(all)
}

func (d *demo) table(ctx context.Context, title, q string, keys ...string) error {
	samples, err := d.query.Instant(ctx, q, time.Now().Add(time.Minute))
	if err != nil {
		return fmt.Errorf("demo: %s: %w", q, err)
	}
	fmt.Fprintf(d.out, "\n   %s   %s\n", title, q)
	sort.Slice(samples, func(i, j int) bool { return label(samples[i].Metric, keys) < label(samples[j].Metric, keys) })
	for _, s := range samples {
		fmt.Fprintf(d.out, "   %8.0f  %s\n", s.Value, label(s.Metric, keys))
	}
	return nil
}

func label(m map[string]string, keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = m[k]
	}
	return strings.Join(parts, "  ")
}

func (d *demo) tokens(ctx context.Context, promptQ, complQ string) error {
	p, err := d.query.Instant(ctx, promptQ, time.Now().Add(time.Minute))
	if err != nil {
		return fmt.Errorf("demo: %s: %w", promptQ, err)
	}
	c, err := d.query.Instant(ctx, complQ, time.Now().Add(time.Minute))
	if err != nil {
		return fmt.Errorf("demo: %s: %w", complQ, err)
	}
	got := map[string][2]float64{}
	for _, s := range p {
		v := got[s.Metric["model"]]
		v[0] = s.Value
		got[s.Metric["model"]] = v
	}
	for _, s := range c {
		v := got[s.Metric["model"]]
		v[1] = s.Value
		got[s.Metric["model"]] = v
	}
	want := d.corpus.TokensByModel()
	fmt.Fprintf(d.out, "\n   tokens by model (cost dashboard)   %s\n   %-30s %12s %12s   %s\n", promptQ, "model", "prompt", "completion", "check against the journals")
	models := make([]string, 0, len(want))
	for m := range want {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		ok := "ok"
		if int64(got[m][0]) != want[m][0] || int64(got[m][1]) != want[m][1] {
			ok = fmt.Sprintf("MISMATCH: journals say %d / %d", want[m][0], want[m][1])
			d.mismatch = true
		}
		fmt.Fprintf(d.out, "   %-30s %12.0f %12.0f   %s\n", m, got[m][0], got[m][1], ok)
	}
	return nil
}

// cost prints dollars by price table entry (the built-in table).
func (d *demo) cost(ctx context.Context, q string) error {
	samples, err := d.query.Instant(ctx, q, time.Now().Add(time.Minute))
	if err != nil {
		return fmt.Errorf("demo: %s: %w", q, err)
	}
	fmt.Fprintf(d.out, "\n   dollars by model (built-in price table)   %s\n", q)
	sort.Slice(samples, func(i, j int) bool { return samples[i].Metric["cost_model"] < samples[j].Metric["cost_model"] })
	total := 0.0
	for _, s := range samples {
		fmt.Fprintf(d.out, "   %-30s %12.4f USD\n", s.Metric["cost_model"], s.Value)
		total += s.Value
	}
	fmt.Fprintf(d.out, "   %-30s %12.4f USD\n", "total", total)
	if len(samples) == 0 {
		return fmt.Errorf("demo: no cost_usd in Loki")
	}
	return nil
}

// timeline prints the audit trail of the first crashed session.
func (d *demo) timeline(all []lokiquery.Entry) error {
	var crashed *sample.File
	for i := range d.corpus.Files {
		if f := &d.corpus.Files[i]; len(f.PartialTail) > 0 {
			crashed = f
			break
		}
	}
	if crashed == nil {
		return nil
	}
	fmt.Fprintf(d.out, "\n   audit trail of a crashed session   {service_name=\"agent-sessions\"} | session_id=%q\n", crashed.SessionID)
	for _, e := range all {
		if e.Metadata["session_id"] != crashed.SessionID {
			continue
		}
		detail := e.Metadata["annotations"]
		if e.Stream["event_type"] == "truncated_tail" {
			detail += "  " + e.Line
		}
		fmt.Fprintf(d.out, "   %s  seq %-3s %-20s %s\n", e.Time.UTC().Format("15:04:05.000"), e.Metadata["seq"], e.Stream["event_type"], detail)
	}
	return nil
}

// keepHelp tells how to look at the kept Loki.
func (d *demo) keepHelp() {
	fmt.Fprintf(d.out, `
Loki stays up at %[1]s until Ctrl-C. To look at what landed:
  Grafana:  Connections > Data sources > Add > Loki, URL %[1]s (uid "loki" for the
            dashboards in deploy/grafana); Grafana in a container needs --network host
  curl:     curl -sG %[1]s/loki/api/v1/query_range --data-urlencode 'query={service_name="agent-sessions"}' --data-urlencode since=24h
  the CLI:  journalship ship --loki-url %[1]s --ledger-path %[2]s --dead-letter-path %[3]s DIR
`, d.lokiURL, filepath.Join(d.dir, "ledger.db"), filepath.Join(d.dir, "deadletter.jsonl"))
}
