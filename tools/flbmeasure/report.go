package main

import (
	"fmt"
	"io"
	"slices"
)

// printTables writes the markdown table of each output's medians over the
// rounds, then every run.
func printTables(w io.Writer, outs []string, all []result) {
	type med struct{ cpu, rss, req, bytes, entries float64 }
	meds := map[string]med{}
	for _, o := range outs {
		var rs []result
		for _, r := range all {
			if r.Output == o {
				rs = append(rs, r)
			}
		}
		pick := func(f func(result) float64) float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = f(r)
			}
			return median(v)
		}
		meds[o] = med{
			cpu:     pick(func(r result) float64 { return r.CPU }),
			rss:     pick(func(r result) float64 { return r.PeakRSS }),
			req:     pick(func(r result) float64 { return float64(r.Counts.Requests) }),
			bytes:   pick(func(r result) float64 { return float64(r.Counts.Bytes) }),
			entries: pick(func(r result) float64 { return float64(r.Counts.Entries) }),
		}
	}
	base, haveNull := meds[outNull]

	fmt.Fprintf(w, "\nMedians of %d rounds:\n\n", len(all)/max(len(outs), 1))
	fmt.Fprintln(w, "| output | CPU s | above null | requests | bytes sent MB | entries | peak RSS MB |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, o := range outs {
		m := meds[o]
		above, req, sent, entries := "—", "—", "—", "—"
		if haveNull && o != outNull {
			above = fmt.Sprintf("%.2f", m.cpu-base.cpu)
		}
		if o != outNull {
			req, sent, entries = fmt.Sprintf("%.0f", m.req), fmt.Sprintf("%.1f", m.bytes/1e6), fmt.Sprintf("%.0f", m.entries)
		}
		fmt.Fprintf(w, "| %s | %.2f | %s | %s | %s | %s | %.1f |\n", label(o), m.cpu, above, req, sent, entries, m.rss)
	}

	fmt.Fprintln(w, "\nEvery run:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| round | output | CPU s | wall s | requests | bytes sent MB | uncompressed MB | entries | peak RSS MB | complete |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range all {
		entries := fmt.Sprint(r.Counts.Entries)
		if r.Output == outNull {
			entries = fmt.Sprintf("%d read", r.Records)
		}
		done := "yes"
		if !r.Complete {
			done = "no: " + r.Note
		}
		fmt.Fprintf(w, "| %d | %s | %.2f | %.1f | %d | %.1f | %.1f | %s | %.1f | %s |\n", r.Round, r.Output, r.CPU, r.Wall,
			r.Counts.Requests, float64(r.Counts.Bytes)/1e6, float64(r.Counts.Raw)/1e6, entries, r.PeakRSS, done)
	}
}

// label names an output in the table of medians.
func label(o string) string {
	switch o {
	case outNull:
		return "`null` (tail only)"
	case outLoki:
		return "Fluent Bit's C `loki` output (JSON)"
	case outGrafanaLoki:
		return "grafana-loki's Go plugin"
	}
	return o
}

// median of v (the mean of the middle two when len(v) is even); 0 when empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}
