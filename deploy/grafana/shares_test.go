package grafana

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/journalship/journalship/internal/lokiquery"
)

// The format shares: besides the expectations computed from the truth,
// the answers of a view with one format selected are checked against the
// answers of the same view with every format (its base: the same
// variables, Format All), independently of the truth: what the format's
// share of an answer is can be read off the answer itself.

// keep records an answer for the shares check.
func (r *runs) keep(k, scenario string, a answer) {
	if r.got[k] == nil {
		r.got[k] = map[string]answer{}
	}
	r.got[k][scenario] = a
}

// checkShares compares each single-format view of d with its base:
//   - a Prometheus target counts every format: the same answer;
//   - log entries and series labelled with their format: exactly the
//     base's of that format;
//   - any other Loki answer, when the base has a view for each format and
//     the query adds up (no topk, no ratio): the formats' totals add up to
//     the base's.
func (r *runs) checkShares(t *testing.T, d *Dashboard, scs []scenario) {
	bases := map[string][]scenario{} // base name → its single-format views
	for _, sc := range scs {
		if fs := sc.vars["format"]; len(fs) == 1 {
			if b, ok := baseOf(sc, scs); ok {
				bases[b.name] = append(bases[b.name], sc)
			}
		}
	}
	if len(bases) == 0 {
		t.Fatalf("%s: no view with one format selected and the same view with every format", d.UID)
	}
	for _, p := range d.allPanels() {
		for _, tg := range p.Targets {
			k := expectKey(d.UID, p.Title, tg.RefID)
			for base, views := range bases {
				if err := r.shares(k, p.Datasource.Type, tg.Expr, base, views); err != nil {
					t.Errorf("%s, base view %s: %v", k, base, err)
				}
			}
		}
	}
}

// baseOf finds the view with the same variables as sc but every format.
func baseOf(sc scenario, scs []scenario) (scenario, bool) {
	for _, b := range scs {
		if b.vars["format"] == nil && sameBut(b.vars, sc.vars, "format") {
			return b, true
		}
	}
	return scenario{}, false
}

// sameBut: the two selections agree on every variable but skip.
func sameBut(a, b map[string][]string, skip string) bool {
	for _, m := range []map[string][]string{a, b} {
		for name := range m {
			if _, inA := a[name]; name != skip && (!slices.Equal(a[name], b[name]) || !inA) {
				return false
			}
			if _, inB := b[name]; name != skip && !inB {
				return false
			}
		}
	}
	return true
}

// shares checks one target's single-format answers against the base's.
func (r *runs) shares(k, dsType, expr, base string, views []scenario) error {
	all, ok := r.got[k][base]
	if !ok {
		return fmt.Errorf("no answer in the base view")
	}
	total := 0.0
	var labelled bool
	for _, sc := range views {
		one := r.got[k][sc.name]
		f := sc.vars["format"][0]
		switch {
		case dsType == "prometheus":
			if err := sameSeries(one.series, all.series); err != nil {
				return fmt.Errorf("%s: a Prometheus panel counts every format: %v", sc.name, err)
			}
		case all.log:
			if err := samePlaces(one.entries, entriesOf(all.entries, f)); err != nil {
				return fmt.Errorf("%s: %v", sc.name, err)
			}
		case hasFormatLabel(all.series) || hasFormatLabel(one.series):
			labelled = true
			if err := sameSeries(one.series, seriesOf(all.series, f)); err != nil {
				return fmt.Errorf("%s: %v", sc.name, err)
			}
		default:
			total += sumOf(one.series)
		}
	}
	if dsType == "prometheus" || all.log || labelled || len(views) < len(formats) || !additive(expr) {
		return nil
	}
	if !near(total, sumOf(all.series), dollarTol) {
		return fmt.Errorf("the formats' answers add up to %v, every format's is %v", total, sumOf(all.series))
	}
	return nil
}

// additive: the query's answer over every format is the sum of its answers
// over each (not a top k, not a ratio).
func additive(expr string) bool {
	return !strings.Contains(expr, "topk(") && !strings.Contains(expr, ") / ")
}

func hasFormatLabel(ss []series) bool {
	return slices.ContainsFunc(ss, func(s series) bool { return s.labels["format"] != "" })
}

func seriesOf(ss []series, format string) []series {
	var out []series
	for _, s := range ss {
		if s.labels["format"] == format {
			out = append(out, s)
		}
	}
	return out
}

func entriesOf(es []lokiquery.Entry, format string) []lokiquery.Entry {
	var out []lokiquery.Entry
	for _, e := range es {
		if e.Stream["format"] == format {
			out = append(out, e)
		}
	}
	return out
}

func sumOf(ss []series) float64 {
	v := 0.0
	for _, s := range ss {
		v += s.value
	}
	return v
}

// sameSeries compares two answers series by series (labels and value).
func sameSeries(got, want []series) error {
	render := func(ss []series) map[string]float64 {
		out := map[string]float64{}
		for _, s := range ss {
			keys := slices.Sorted(maps.Keys(s.labels))
			parts := make([]string, len(keys))
			for i, l := range keys {
				parts[i] = l + "=" + s.labels[l]
			}
			out[strings.Join(parts, ",")] += s.value
		}
		return out
	}
	g, w := render(got), render(want)
	for k, v := range w {
		if !near(g[k], v, dollarTol) {
			return fmt.Errorf("series {%s}: %v, want %v", k, g[k], v)
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			return fmt.Errorf("series {%s} is not the selected format's", k)
		}
	}
	return nil
}

// samePlaces compares two log answers entry by entry (place and line).
func samePlaces(got, want []lokiquery.Entry) error {
	render := func(es []lokiquery.Entry) []string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = placeOf(e) + " " + e.Line
		}
		sort.Strings(out)
		return out
	}
	if g, w := render(got), render(want); !slices.Equal(g, w) {
		return fmt.Errorf("%d entries, want the %d of the selected format", len(g), len(w))
	}
	return nil
}
