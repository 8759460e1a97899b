package main

// What `journalship demo` prints once the sample landed: the lines, the
// annotations, tokens and dollars by format and model, and an audit trail
// per format, each with the LogQL behind it.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/pricing"
)

// selector matches every entry journalship ships.
const selector = `{service_name="agent-sessions"}`

// nameWidth is the width of the report's format column: the longest
// format name.
var nameWidth = func() int {
	w := len("format")
	for _, f := range sampleFormats {
		w = max(w, len(f.Format))
	}
	return w
}()

// kindSide is entryKind's name for an entry the finalizer built from a
// file beside the journals (a Go pkg/session checkpoint or run summary).
const kindSide = "side"

// entryKind tells a journal line ("line") from the finalizer's entries:
// its truncated_tail markers and file summaries (by event_type), and the
// records it ships from beside the journals, which, unlike a line, have
// no byte offset.
func entryKind(e lokiquery.Entry) string {
	switch et := e.Stream["event_type"]; {
	case et == "truncated_tail", et == "file_summary":
		return et
	case e.Metadata["byte_offset"] == "":
		return kindSide
	}
	return "line"
}

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
	markers, summaries, side := 0, 0, 0
	for _, e := range all {
		switch entryKind(e) {
		case "truncated_tail":
			markers++
		case "file_summary":
			summaries++
		case kindSide:
			side++
		}
	}
	fmt.Fprintf(d.out, "\n4. what landed in Loki\n\n   %d journal lines + %d records from beside the journals + %d truncated-tail markers + %d file summaries   %s\n",
		len(all)-markers-summaries-side, side, markers, summaries, selector)
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
			fmt.Fprintf(d.out, "   %-*s %s\n", nameWidth, name, strings.Join(row, "    "))
		}
	}
}

// formatsIn returns the formats that are keys of m: the sample's first,
// in their order, then any other (unknown), sorted.
func (d *demo) formatsIn(m map[string]map[string]float64) []string {
	var out []string
	for _, s := range d.samples {
		if _, ok := m[s.format.Format]; ok {
			out = append(out, s.format.Format)
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

// usageQuery sums key over every format's journal lines, by format and
// model: the cost dashboard's query, less the records from beside the
// journals (a Go pkg/session run's stated cost), which have no byte
// offset and whose truth is the runtime's, not the lines'.
func usageQuery(key, rng string) string {
	return `sum by (format, model) (sum_over_time(` + selector + ` | byte_offset!="" | ` + key + `!="" | unwrap ` + key + ` ` + rng + `))`
}

// usage prints tokens and dollars by format and model, checked against
// the journals: the tokens their lines count, priced at the built-in
// table (the demo ships with it) as the pipeline prices them.
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
	fmt.Fprintf(d.out, "\n   tokens and dollars of the journals' lines by format and model (the cost dashboard's, less run summaries), checked against the journals\n   %s\n   KEY: %s\n",
		usageQuery("KEY", rng), strings.Join(usageKeys, ", "))
	fmt.Fprintf(d.out, "   %-*s %-28s %10s %9s %11s %11s %10s   %s\n", nameWidth, "format", "model", "in", "out", "cache read", "cache write", "USD", "check")
	total, prices := 0.0, pricing.Default()
	for _, s := range d.samples {
		want := wantUsage(s.corpus, prices)
		rows := usageRows(s.format.Format, want, got)
		if len(rows) == 0 {
			fmt.Fprintf(d.out, "   %-*s (no LLM usage in its records)\n", nameWidth, s.format.Format)
		}
		for _, m := range rows {
			v := got[[2]string{s.format.Format, m}]
			if v == nil {
				v = make([]float64, len(usageKeys))
			}
			check := "ok"
			if w := want[m]; int64(v[0]) != w.tokens[0] || int64(v[1]) != w.tokens[1] || int64(v[2]) != w.tokens[2] || int64(v[3]) != w.tokens[3] ||
				math.Abs(v[4]-w.cost) > costTolerance*max(1, w.cost) {
				check = fmt.Sprintf("MISMATCH: journals say %d / %d / %d / %d, $%.4f", w.tokens[0], w.tokens[1], w.tokens[2], w.tokens[3], w.cost)
				d.mismatch = true
			}
			fmt.Fprintf(d.out, "   %-*s %-28s %10.0f %9.0f %11.0f %11.0f %10.4f   %s\n", nameWidth, s.format.Format, m, v[0], v[1], v[2], v[3], v[4], check)
			total += v[4]
		}
	}
	fmt.Fprintf(d.out, "   %-*s %-28s %10s %9s %11s %11s %10.4f   (built-in price table)\n", nameWidth, "total", "", "", "", "", "", total)
	if total == 0 {
		return fmt.Errorf("demo: no cost_usd in Loki")
	}
	return nil
}

// costTolerance is how far the dollars Loki sums may be from the
// journals' (relative; absolute under one dollar): the pipeline rounds
// each line's cost to 1e-11 dollars, and the sums add up in other orders.
const costTolerance = 1e-9

// modelUsage is what the journals say of one model: tokens in, out, cache
// read and cache write, and their cost.
type modelUsage struct {
	tokens [4]int64
	cost   float64
}

// wantUsage is the corpus's usage by model: the tokens of its counted
// lines (sample.Corpus.TokensByModel, CacheTokensByModel) and, priced at
// prices as the pipeline prices a response (each part of the prompt at
// its own price, the one-hour cache writes at theirs), their dollars.
func wantUsage(c *sample.Corpus, prices *pricing.Table) map[string]modelUsage {
	out := map[string]modelUsage{}
	for m, v := range c.TokensByModel() {
		out[m] = modelUsage{tokens: [4]int64{v[0], v[1]}}
	}
	for m, v := range c.CacheTokensByModel() {
		w := out[m]
		w.tokens[2], w.tokens[3] = v[0], v[1]
		out[m] = w
	}
	for _, f := range c.Files {
		for _, l := range f.Lines {
			if !l.Counted || l.Model == "" {
				continue
			}
			p, ok := prices.Lookup("", l.Model)
			if !ok {
				continue // price_unknown: no dollars
			}
			w := out[l.Model]
			w.cost += p.CostTokens(pricing.Tokens{Uncached: max(0, l.PromptTokens-l.CacheReadTokens-l.CacheWriteTokens),
				Output: l.CompletionTokens, CacheRead: l.CacheReadTokens, CacheWrite: l.CacheWriteTokens, CacheWrite1h: l.CacheWrite1hTokens})
			out[l.Model] = w
		}
	}
	return out
}

// usageRows lists, sorted, the models of format in the journals or in Loki.
func usageRows(format string, want map[string]modelUsage, got map[[2]string][]float64) []string {
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
	f, what := s.corpus.Files[0], "one "+s.format.Format+" "+s.format.File
	for _, c := range s.corpus.Files {
		if len(c.PartialTail) > 0 {
			f, what = c, "a crashed "+s.format.Format+" "+s.format.File
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
	return strings.TrimRight(fmt.Sprintf("%-8s %-21s %s", seq, e.Stream["event_type"], detail), " ")
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
