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
	r := &runs{exps: exps, used: map[string]bool{}, data: map[string]bool{}, cache: map[string]answer{}}
	for _, d := range dashes {
		for _, sc := range w.scenarios(d.UID, scrape) {
			if life := w.shipAt.Sub(w.zeroAt); life >= sc.rateInterval() {
				t.Fatalf("the world took %s from the first scrape to the last, more than $__rate_interval (%s): rates would miss the start", life, sc.rateInterval())
			}
			t.Run(d.UID+"/"+sc.name, func(t *testing.T) { w.checkTargets(t, d, sc, r) })
		}
		t.Run(d.UID+"/variables", func(t *testing.T) { w.checkVariableQueries(t, d, r.used) })
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
}

// viewRange is the dashboards' time range in the test: the last two days,
// on panels 1000 pixels wide, so $__interval is 2m and $__rate_interval
// 135s (scrape interval 15s): every rate window reaches back before the
// first scrape.
const viewRange = 48 * time.Hour

// auditJobs is how many jobs the audit trail is opened on: the four with
// faults and two clean ones.
const auditJobs = 6

// scenarios are the views each dashboard is checked in, with the variables
// set as listed.
func (w *world) scenarios(uid string, scrape time.Duration) []scenario {
	base := scenario{from: w.to.Add(-viewRange), to: w.to, dataPoints: 1000, scrape: scrape}
	with := func(name string, vars map[string][]string) scenario {
		s := base
		s.name, s.vars = name, vars
		return s
	}
	var out []scenario
	switch uid {
	case "journalship-audit-trail":
		for i, job := range w.jobIDs()[:auditJobs] {
			out = append(out, with(fmt.Sprintf("job%02d", i), map[string][]string{"job": {job}, "session": {".*"}, "node": nil}))
		}
		crashed := w.crashedFile()
		out = append(out, with("crashed-session", map[string][]string{"job": {crashed.JobID}, "session": {crashed.SessionID}, "node": {"node-a"}}))
	case "journalship-cost":
		out = append(out, with("all-tenants", map[string][]string{"tenant": nil}), with("tenant-acme", map[string][]string{"tenant": {tenantAcme}}))
	case "journalship-pipeline-health":
		out = append(out, with("all", map[string][]string{"instance": nil, "node": nil}),
			with("node-b", map[string][]string{"instance": {w.shipAddr}, "node": {"node-b"}}))
	}
	return out
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
