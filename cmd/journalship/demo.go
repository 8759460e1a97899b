package main

import (
	"context"
	"encoding/json"
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

// runDemo is `make run`: a local Loki, a realistic sample of journals of
// every format (jobs, runs and sessions, crashes, gaps, corruption),
// shipped through the same pipeline the plugin runs, then what landed,
// read back with LogQL.
func runDemo(args []string, stdout io.Writer) error {
	c := newCommand("demo", "journalship demo [--keep] [--dir DIR] [--loki-url URL] [--jobs N] [--seed N]", demoAbout)
	c.out = stdout
	dir := c.fs.String("dir", "", "work directory: the sample journals (DIR/sessions, DIR/codelia, DIR/orbitmesh), the ledger, the dead letters, Loki's data (default: a new temp dir)")
	seed := c.fs.Int64("seed", 1, "sample seed")
	jobs := c.fs.Int("jobs", 6, "Cortex Plane jobs, Codelia runs and OrbitMesh sessions in the sample (each at least what its fault scenarios need)")
	keep := c.fs.Bool("keep", false, "leave Loki running until Ctrl-C, to explore what landed (in Grafana, LogCLI or curl)")
	lokiURL := c.fs.String("loki-url", "", "ship to this (empty) Loki instead of starting one")
	if err := c.parse(args); err != nil {
		return err
	}
	if c.fs.NArg() > 0 {
		return c.usage("unexpected arguments %q", c.fs.Args())
	}
	if *jobs < 1 || *jobs > sample.MaxJobs {
		return c.usage("--jobs %d is outside [1, %d]", *jobs, sample.MaxJobs)
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

const demoAbout = `What 'make run' runs: starts a local Loki (bin/loki, found beside this
executable, in the repository's bin/ or on PATH; $JOURNALSHIP_LOKI
overrides) on a free loopback port, writes a realistic sample of journals
of every format, each under its own root (Cortex Plane jobs in DIR/sessions,
Codelia runs in DIR/codelia, OrbitMesh sessions in DIR/orbitmesh; each
with its fault scenarios: crashes, seq gaps, corruption), ships them
through the plugin's pipeline with those roots as Format_Roots, finalizes
them, and prints what landed, read back with LogQL: lines by format and
event type, annotations by format, tokens and dollars by model checked
against the journals, and the audit trail of a crashed session of each
format.

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
		count := max(n, f.minFaults)
		c, err := f.generate(seed, count, d.start, true)
		if err != nil {
			return err
		}
		root := filepath.Join(d.dir, f.demoRoot)
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
		fmt.Fprintf(d.out, "   %-10s %-12s %3d files, %4d lines, %d crashed mid-append   %s\n",
			f.name, f.count(count), len(c.Files), lines, tails, root)
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
		parts[i] = s.format.name + "=" + s.root
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

// selector matches every entry journalship ships.
const selector = `{service_name="agent-sessions"}`

// report prints what a Grafana user sees, with the LogQL behind it.
func (d *demo) report(ctx context.Context) error {
	from, to := d.start.Add(-time.Hour), time.Now().Add(time.Minute)
	rng := fmt.Sprintf("[%ds]", int(to.Sub(from).Seconds())+60)
	all, err := d.query.WaitFor(ctx, selector, from, to, 1, 30*time.Second)
	if err != nil {
		return err
	}
	all, err = d.query.QueryRange(ctx, selector, from, to, 5000, "forward")
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
	fmt.Fprintf(d.out, "\n4. what landed in Loki\n\n   %d journal lines + %d truncated-tail markers + %d file summaries   %s\n", len(all)-markers-summaries, markers, summaries, selector)
	if err := d.eventTypes(ctx, `sum by (format, event_type) (count_over_time(`+selector+` `+rng+`))`); err != nil {
		return err
	}
	if err := d.annotations(ctx, `sum by (format, annotations) (count_over_time(`+selector+` | annotations!="" `+rng+`))`); err != nil {
		return err
	}
	if err := d.usage(ctx, rng); err != nil {
		return err
	}
	if d.mismatch {
		return fmt.Errorf("demo: tokens by model in Loki differ from the journals")
	}
	for _, s := range d.samples {
		d.timeline(s, all)
	}
	return nil
}

// instant runs a metric query at the report's time.
func (d *demo) instant(ctx context.Context, q string) ([]lokiquery.Sample, error) {
	samples, err := d.query.Instant(ctx, q, time.Now().Add(time.Minute))
	if err != nil {
		return nil, fmt.Errorf("demo: %s: %w", q, err)
	}
	return samples, nil
}

// eventTypes prints the lines by event type, format by format.
func (d *demo) eventTypes(ctx context.Context, q string) error {
	samples, err := d.instant(ctx, q)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "\n   lines by format and event type   %s\n", q)
	counts := map[string]map[string]float64{}
	for _, s := range samples {
		add(counts, s.Metric["format"], s.Metric["event_type"], s.Value)
	}
	d.cells(counts)
	return nil
}

// annotations prints, format by format, how many lines carry each
// annotation kind (a line with several counts for each).
func (d *demo) annotations(ctx context.Context, q string) error {
	samples, err := d.instant(ctx, q)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "\n   annotations by format, lines with each kind   %s\n", q)
	counts := map[string]map[string]float64{}
	for _, s := range samples {
		for _, kind := range strings.Split(s.Metric["annotations"], ",") {
			add(counts, s.Metric["format"], kind, s.Value)
		}
	}
	d.cells(counts)
	return nil
}

// add adds v to counts[format][name].
func add(counts map[string]map[string]float64, format, name string, v float64) {
	if counts[format] == nil {
		counts[format] = map[string]float64{}
	}
	counts[format][name] += v
}

// cells prints counts by format, three names and counts to a row.
func (d *demo) cells(counts map[string]map[string]float64) {
	for _, f := range d.formatsIn(counts) {
		names := make([]string, 0, len(counts[f]))
		for n := range counts[f] {
			names = append(names, n)
		}
		sort.Strings(names)
		for i := 0; i < len(names); i += 3 {
			row := make([]string, 0, 3)
			for _, n := range names[i:min(i+3, len(names))] {
				row = append(row, fmt.Sprintf("%-24s %4.0f", n, counts[f][n]))
			}
			name := ""
			if i == 0 {
				name = f
			}
			fmt.Fprintf(d.out, "   %-10s %s\n", name, strings.Join(row, "    "))
		}
	}
}

// formatsIn returns the formats that are keys of m: the sample's first,
// in their order, then any other (unknown), sorted.
func (d *demo) formatsIn(m map[string]map[string]float64) []string {
	var out []string
	for _, s := range d.samples {
		if _, ok := m[s.format.name]; ok {
			out = append(out, s.format.name)
		}
	}
	var rest []string
	for f := range m {
		if lookupSampleFormat(f) == nil {
			rest = append(rest, f)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// usageKeys are the metadata keys of a response's usage, as every format
// ships them, and its cost.
var usageKeys = []string{"tokens_in", "tokens_out", "tokens_cache_read", "tokens_cache_write", "cost_usd"}

// usageQuery sums key over every format's LLM responses, by format and model.
func usageQuery(key, rng string) string {
	return `sum by (format, model) (sum_over_time(` + selector + ` | role="llm_response" | integrity="valid" | ` + key + `!="" | unwrap ` + key + ` ` + rng + `))`
}

// usage prints tokens and dollars by format and model, the tokens checked
// against the journals.
func (d *demo) usage(ctx context.Context, rng string) error {
	got := map[[2]string][]float64{} // by format and model, usageKeys' sums
	for i, key := range usageKeys {
		samples, err := d.instant(ctx, usageQuery(key, rng))
		if err != nil {
			return err
		}
		for _, s := range samples {
			k := [2]string{s.Metric["format"], s.Metric["model"]}
			if got[k] == nil {
				got[k] = make([]float64, len(usageKeys))
			}
			got[k][i] = s.Value
		}
	}
	fmt.Fprintf(d.out, "\n   tokens and dollars by format and model (the cost dashboard's), checked against the journals\n   %s\n   KEY: %s\n",
		usageQuery("KEY", rng), strings.Join(usageKeys, ", "))
	fmt.Fprintf(d.out, "   %-10s %-28s %10s %9s %11s %11s %10s   %s\n", "format", "model", "in", "out", "cache read", "cache write", "USD", "check")
	total := 0.0
	for _, s := range d.samples {
		want := wantUsage(s.corpus)
		rows := usageRows(s.format.name, want, got)
		if len(rows) == 0 {
			fmt.Fprintf(d.out, "   %-10s (no LLM usage in its records)\n", s.format.name)
		}
		for _, m := range rows {
			v := got[[2]string{s.format.name, m}]
			if v == nil {
				v = make([]float64, len(usageKeys))
			}
			check := "ok"
			if w := want[m]; int64(v[0]) != w[0] || int64(v[1]) != w[1] || int64(v[2]) != w[2] || int64(v[3]) != w[3] {
				check = fmt.Sprintf("MISMATCH: journals say %d / %d / %d / %d", w[0], w[1], w[2], w[3])
				d.mismatch = true
			}
			fmt.Fprintf(d.out, "   %-10s %-28s %10.0f %9.0f %11.0f %11.0f %10.4f   %s\n", s.format.name, m, v[0], v[1], v[2], v[3], v[4], check)
			total += v[4]
		}
	}
	fmt.Fprintf(d.out, "   %-10s %-28s %10s %9s %11s %11s %10.4f   (built-in price table)\n", "total", "", "", "", "", "", total)
	if total == 0 {
		return fmt.Errorf("demo: no cost_usd in Loki")
	}
	return nil
}

// wantUsage is the corpus's tokens by model: in, out, cache read, cache write.
func wantUsage(c *sample.Corpus) map[string][4]int64 {
	out := map[string][4]int64{}
	for m, v := range c.TokensByModel() {
		out[m] = [4]int64{v[0], v[1]}
	}
	for m, v := range c.CacheTokensByModel() {
		w := out[m]
		w[2], w[3] = v[0], v[1]
		out[m] = w
	}
	return out
}

// usageRows lists, sorted, the models of format in the journals or in Loki.
func usageRows(format string, want map[string][4]int64, got map[[2]string][]float64) []string {
	var out []string
	for m := range want {
		out = append(out, m)
	}
	for k := range got {
		if _, ok := want[k[1]]; k[0] == format && !ok {
			out = append(out, k[1])
		}
	}
	sort.Strings(out)
	return out
}

// timeline prints the audit trail of the sample's first crashed file (or
// its first file): its first and last lines and every annotated one.
func (d *demo) timeline(s demoSample, all []lokiquery.Entry) {
	if len(s.corpus.Files) == 0 {
		return
	}
	f, what := s.corpus.Files[0], "one "+s.format.name+" "+s.format.file
	for _, c := range s.corpus.Files {
		if len(c.PartialTail) > 0 {
			f, what = c, "a crashed "+s.format.name+" "+s.format.file
			break
		}
	}
	path := filepath.Join(s.root, filepath.FromSlash(f.Rel))
	var trail []lokiquery.Entry
	for _, e := range all {
		if e.Metadata["file"] == path {
			trail = append(trail, e)
		}
	}
	fmt.Fprintf(d.out, "\n   audit trail of %s   %s | file=%q\n", what, selector, path)
	skipped := 0
	for i, e := range trail {
		if i >= 3 && i < len(trail)-4 && e.Metadata["annotations"] == "" {
			skipped++
			continue
		}
		if skipped > 0 {
			fmt.Fprintf(d.out, "   …            %s\n", plural(skipped, "line", "lines"))
			skipped = 0
		}
		fmt.Fprintf(d.out, "   %s  %s\n", e.Time.UTC().Format("15:04:05.000"), trailLine(e))
	}
}

// trailLine is one entry of an audit trail: seq, event type, derived
// state, annotations, and the text of a truncated-tail marker.
func trailLine(e lokiquery.Entry) string {
	seq := ""
	if s := e.Metadata["seq"]; s != "" {
		seq = "seq " + s
	}
	detail := e.Metadata["annotations"]
	if st := e.Metadata["state"]; st != "" {
		detail = strings.TrimSpace("state=" + st + "  " + detail)
	}
	if e.Stream["event_type"] == "truncated_tail" {
		detail += "  " + markerText(e.Line)
	}
	return strings.TrimRight(fmt.Sprintf("%-8s %-20s %s", seq, e.Stream["event_type"], detail), " ")
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

// markerText tells what a truncated_tail entry says (its line is
// journalship's JSON: file, offset, bytes, preview): where the torn line
// starts, its size and its first bytes. Anything else is shown as it is.
func markerText(line string) string {
	var m struct {
		Offset  *int64 `json:"offset"`
		Bytes   int    `json:"bytes"`
		Preview string `json:"preview"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Offset == nil {
		return clip(line, 120)
	}
	return clip(fmt.Sprintf("%d bytes cut at offset %d: %s", m.Bytes, *m.Offset, m.Preview), 120)
}

// clip shortens s to n runes, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
