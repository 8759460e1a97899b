package grafana

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// expectFunc computes from the world what a target must return in a
// scenario.
type expectFunc func(w *world, sc scenario) want

// expectKey names a target: dashboard uid, panel title, refId.
func expectKey(uid, panel, ref string) string { return uid + " | " + panel + " | " + ref }

// TestDashboardQueries runs every target of every panel and every variable
// query of the three dashboards, interpolated as Grafana does, against the
// world, and compares each answer with the expectation computed from the
// corpus. A target without an expectation, an error, an empty answer or a
// wrong number fails.
func TestDashboardQueries(t *testing.T) {
	dashes := loadDashboards(t)
	ds := loadDatasources(t)
	scrape, err := parseDuration(scrapeIntervalOf(t, ds["prometheus"]))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	exps := expectations()
	r := newRuns(exps)
	for _, d := range dashes {
		scs := w.scenarios(d.UID, scrape)
		for _, sc := range scs {
			if life := w.shipAt.Sub(w.zeroAt); life >= sc.rateInterval() {
				t.Fatalf("the world took %s from the first scrape to the last, more than $__rate_interval (%s): rates would miss the start", life, sc.rateInterval())
			}
			t.Run(d.UID+"/"+sc.name, func(t *testing.T) { w.checkTargets(t, d, sc, r) })
		}
		t.Run(d.UID+"/variables", func(t *testing.T) { w.checkVariableQueries(t, d, r.used) })
		t.Run(d.UID+"/format-shares", func(t *testing.T) { r.checkShares(t, d, scs) })
	}
	for k := range exps {
		switch {
		case !r.used[k]:
			t.Errorf("expectation %q matches no target of the dashboards", k)
		case !r.data[k]:
			t.Errorf("%s returned nothing in every scenario: the query is not tested", k)
		}
	}
}

// runs is the bookkeeping of TestDashboardQueries: which expectations were
// used, which targets returned data in some scenario (an empty answer is
// right only where the corpus has nothing, and every target must show
// data somewhere), and answers already fetched (the same interpolated
// query in two scenarios).
type runs struct {
	exps  map[string]expectFunc
	used  map[string]bool
	data  map[string]bool
	cache map[string]answer
	got   map[string]map[string]answer // target → scenario name → answer
}

// newRuns starts the bookkeeping of TestDashboardQueries.
func newRuns(exps map[string]expectFunc) *runs {
	return &runs{exps: exps, used: map[string]bool{}, data: map[string]bool{}, cache: map[string]answer{},
		got: map[string]map[string]answer{}}
}

// viewRange is the dashboards' time range in the test: the last two days,
// on panels 1000 pixels wide, so $__interval is 2m and $__rate_interval
// 135s (scrape interval 15s): every rate window reaches back before the
// first scrape.
const viewRange = 48 * time.Hour

// auditJobs is how many Cortex Plane jobs the audit trail is opened on:
// the four with faults and two clean ones.
const auditJobs = 6

// scenarios are the views each dashboard is checked in, with the variables
// set as listed (a variable not listed keeps its default: Format All).
// Every dashboard is also viewed with one format selected, and two: each
// answer must then be the selected formats' share alone.
func (w *world) scenarios(uid string, scrape time.Duration) []scenario {
	base := scenario{from: w.to.Add(-viewRange), to: w.to, dataPoints: 1000, scrape: scrape}
	with := func(name string, vars map[string][]string) scenario {
		s := base
		s.name, s.vars = name, vars
		return s
	}
	var out []scenario
	switch uid {
	case auditUID:
		out = w.auditScenarios(with)
	case costUID:
		out = append(out, with("all-tenants", map[string][]string{"tenant": nil}), with("tenant-acme", map[string][]string{"tenant": {tenantAcme}}))
		for _, fs := range formatSelections() {
			out = append(out, with("format-"+strings.Join(fs, "+"), map[string][]string{"tenant": nil, "format": fs}))
		}
	case healthUID:
		out = append(out, with("all", map[string][]string{"instance": nil, "node": nil}),
			with("node-b", map[string][]string{"instance": {w.shipAddr}, "node": {"node-b"}}),
			with("node-b-codelia", map[string][]string{"instance": nil, "node": {"node-b"}, "format": {codeliaDir}}))
		for _, fs := range formatSelections() {
			out = append(out, with("format-"+strings.Join(fs, "+"), map[string][]string{"instance": nil, "node": nil, "format": fs}))
		}
	}
	return out
}

// formatSelections are the Format selections every dashboard is viewed
// with besides All: each format alone, and two at once.
func formatSelections() [][]string {
	var out [][]string
	for _, f := range formats {
		out = append(out, []string{f})
	}
	return append(out, []string{codeliaDir, orbitmeshDir})
}

// auditScenarios: the audit trail opened on Cortex Plane jobs (the four
// with faults and two clean ones, one crashed session alone), on every
// job of the other formats (sessions, a Codelia run without a session),
// and with one format selected: its own jobs only, another format's job
// empty.
func (w *world) auditScenarios(with func(string, map[string][]string) scenario) []scenario {
	job := func(j, session string, node, format []string) map[string][]string {
		return map[string][]string{"job": {j}, "session": {session}, "node": node, "format": format}
	}
	var out []scenario
	for i, j := range w.jobIDs()[:auditJobs] {
		out = append(out, with(fmt.Sprintf("job%02d", i), job(j, ".*", nil, nil)))
	}
	crashed := w.crashedFile()
	out = append(out, with("crashed-session", job(crashed.JobID, crashed.SessionID, []string{"node-a"}, nil)))
	for _, f := range formats {
		if f == cortexDir {
			continue
		}
		for i, u := range w.units(f) {
			out = append(out, with(fmt.Sprintf("%s%02d", f, i), job(u, ".*", nil, nil)))
		}
	}
	for _, fs := range formatSelections() {
		out = append(out, with("format-"+strings.Join(fs, "+"), job(w.units(fs[0])[0], ".*", nil, fs)))
	}
	return append(out, with("cortex-job-format-codelia", job(w.jobIDs()[0], ".*", nil, []string{codeliaDir})))
}

// checkTargets runs and checks every target of d in sc.
func (w *world) checkTargets(t *testing.T, d *Dashboard, sc scenario, r *runs) {
	for _, p := range d.allPanels() {
		for _, tg := range p.Targets {
			k := expectKey(d.UID, p.Title, tg.RefID)
			r.used[k] = true
			exp, ok := r.exps[k]
			if !ok {
				t.Errorf("%s: no expectation for this target: %s", k, tg.Expr)
				continue
			}
			q, err := w.prepare(d, p, tg, sc)
			if err != nil {
				t.Errorf("%s: %v", k, err)
				continue
			}
			ck := fmt.Sprint(q.expr, q.instant, q.logs, q.at, sc.from, sc.to)
			a, seen := r.cache[ck]
			if !seen {
				a, err = w.run(context.Background(), sc, q)
				if err != nil {
					t.Errorf("%s [%s]: query failed: %v\n  query: %s", k, sc.name, err, q.expr)
					continue
				}
				r.cache[ck] = a
			}
			r.data[k] = r.data[k] || !a.empty()
			r.keep(k, sc.name, a)
			if err := exp(w, sc).check(a); err != nil {
				t.Errorf("%s [%s]: wrong answer: %v\n  query: %s", k, sc.name, err, q.expr)
			}
		}
	}
}

// prepare interpolates a target as Grafana would send it.
func (w *world) prepare(d *Dashboard, p *Panel, tg Target, sc scenario) (query, error) {
	q := query{dsType: p.Datasource.Type, limit: tg.MaxLines, dir: tg.Direction}
	switch q.dsType {
	case "loki":
		q.instant = tg.QueryType == "instant"
		q.logs = isLogQuery(tg.Expr)
	case "prometheus":
		q.instant = tg.Instant != nil && *tg.Instant
		// Range panels too are evaluated at one instant: the last scrape,
		// where rate() and increase() neither extrapolate nor miss a sample.
		q.at = w.shipAt
		if strings.Contains(tg.Expr, "journalship_retention_") {
			q.at = w.retAt
		}
	}
	expr, err := sc.interpolate(d, tg.Expr, q.dsType, q.instant)
	q.expr = expr
	return q, err
}

// checkVariableQueries runs each query variable's query and compares the
// values it lists with the world's.
func (w *world) checkVariableQueries(t *testing.T, d *Dashboard, used map[string]bool) {
	ctx := context.Background()
	from, to := w.to.Add(-viewRange), w.to
	for i := range d.Templating.List {
		v := &d.Templating.List[i]
		if v.Type != "query" {
			continue
		}
		k := expectKey(d.UID, "$"+v.Name, "")
		used[k] = true
		want, ok := w.variableValues()[k]
		if !ok {
			t.Errorf("%s: no expectation for this variable", k)
			continue
		}
		var got []string
		var err error
		switch v.Datasource.Type {
		case "loki":
			var q LokiVariableQuery
			if q, err = lokiVarQuery(v); err == nil {
				got, err = lokiLabelValues(ctx, w.loki.URL, q.Label, q.Stream, from, to)
			}
		case "prometheus":
			var q PromVariableQuery
			if q, err = promVarQuery(v); err == nil {
				m := labelValuesCall.FindStringSubmatch(q.Query)
				got, err = w.prom.LabelValues(ctx, m[2], m[1], from, to)
			}
		}
		switch {
		case err != nil:
			t.Errorf("%s: query failed: %v", k, err)
		case !slices.Equal(got, want):
			t.Errorf("%s: lists %q, want %q", k, got, want)
		}
	}
}
