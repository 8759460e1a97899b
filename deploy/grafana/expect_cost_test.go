package grafana

import "sort"

const costUID = "journalship-cost"

// dollarTol is the relative tolerance of dollar sums: Loki, Prometheus and
// the test add the same costs in different orders (float rounding, ~1e-15);
// a wrong price or token count is off by far more.
const dollarTol = 1e-9

// costExpectations are the cost dashboard's targets. The Loki panels
// count the selected formats; the Prometheus panels every format (the
// metrics have no format label).
func costExpectations() map[string]expectFunc {
	k := func(panel, ref string) string { return expectKey(costUID, panel, ref) }
	loki := func(pred func(*fact) bool, keyOf func(*fact) string, val func(*fact) float64, by []string, tol float64) expectFunc {
		return func(w *world, sc scenario) want {
			return want{by: by, values: nonZero(w.sum(and(pred, sc.formatOK), keyOf, val)), tol: tol}
		}
	}
	byFormatAgent := func(f *fact) string { return key(f.format, f.agent) }
	out := map[string]expectFunc{
		k("Spend (Loki)", "A"): loki(priced, none, dollars, nil, dollarTol),
		k("Spend of the selected tenants (Prometheus)", "A"): func(w *world, sc scenario) want {
			return want{values: w.sum(and(priced, tenantSelected(sc)), none, dollars), tol: dollarTol}
		},
		k("Completed jobs", "A"):         func(w *world, sc scenario) want { return single(float64(len(w.completedJobs(sc)))) },
		k("Cost per completed job", "A"): costPerCompletedJob,
		k("Unpriced LLM calls", "A"): func(w *world, sc scenario) want {
			return want{values: orZero(w.count(and(sc.formatOK, func(f *fact) bool { return f.has("price_unknown") }), none))}
		},
		k("Dollars by model", "A"): loki(priced, func(f *fact) string { return f.costModel }, dollars, []string{"cost_model"}, dollarTol),
		k("Dollars by agent", "A"): loki(priced, byFormatAgent, dollars, []string{"format", "agent_id"}, dollarTol),
		k("Dollars per hour by tenant (Prometheus)", "A"): func(w *world, sc scenario) want {
			v := w.sum(and(priced, tenantSelected(sc)), byTenant, dollars)
			return want{by: []string{"tenant"}, values: perSecond(v, sc, 3600), tol: dollarTol}
		},
		k("Tokens per second by tenant (Prometheus)", "A"): tokenRates,
		k("Top jobs by cost", "A"): func(w *world, sc scenario) want {
			return want{by: []string{"job"}, values: top(w.sum(and(priced, sc.formatOK), byJob, dollars), 10), tol: dollarTol}
		},
		k("Spend by tenant and model (Prometheus)", "A"): func(w *world, sc scenario) want {
			v := w.sum(and(priced, tenantSelected(sc)), func(f *fact) string { return key(f.tenant, f.costModel) }, dollars)
			return want{by: []string{"tenant", "model"}, values: v, zeros: true, tol: dollarTol}
		},
		k("Models without a price", "A"): func(w *world, sc scenario) want {
			return want{by: []string{"model"}, values: w.count(and(sc.formatOK, func(f *fact) bool { return f.has("price_unknown") }), byModel)}
		},
	}
	for i, val := range tokenKeys {
		ref := string(rune('A' + i))
		out[k("Tokens", ref)] = loki(counted, none, val, nil, 0)
		out[k("Tokens by model", ref)] = loki(counted, byModel, val, []string{"model"}, 0)
		out[k("Tokens by agent", ref)] = loki(counted, byFormatAgent, val, []string{"format", "agent_id"}, 0)
	}
	return out
}

// costPerCompletedJob: the cost of the completed jobs over their number;
// nothing when none of them has a priced call (the query's "and" keeps
// the jobs with a cost).
func costPerCompletedJob(w *world, sc scenario) want {
	jobs := w.completedJobs(sc)
	cost := w.sum(and(priced, sc.formatOK, func(f *fact) bool { return jobs[f.unit] }), none, dollars)
	if len(cost) == 0 {
		return want{values: map[string]float64{}}
	}
	return want{values: map[string]float64{"": cost[""] / float64(len(jobs))}, tol: dollarTol}
}

// tokenDirections are the direction labels of journalship_llm_tokens_total,
// in the order of tokenKeys.
var tokenDirections = []string{"prompt", "completion", "cache_read", "cache_write"}

// tokenRates: every format's tokens per second by tenant and direction
// (cache series only where a model reported cache tokens; the test
// creates them at 0 beforehand).
func tokenRates(w *world, sc scenario) want {
	v := map[string]float64{}
	for i, val := range tokenKeys {
		dir := tokenDirections[i]
		for kk, n := range w.sum(and(counted, tenantSelected(sc)), func(f *fact) string { return key(f.tenant, dir) }, val) {
			v[kk] = n
		}
	}
	return want{by: []string{"tenant", "direction"}, values: perSecond(v, sc, 1), zeros: true, tol: 1e-12}
}

func byTenant(f *fact) string { return f.tenant }

func tenantSelected(sc scenario) func(*fact) bool {
	return func(f *fact) bool { return sc.selected("tenant", f.tenant) }
}

// perSecond turns counts over the test into what rate(...[$__rate_interval])
// evaluated at the last scrape returns (times scale): every increment
// happened inside the window, which starts before the first scrape (all
// series at 0), so rate × window is exactly the count.
func perSecond(counts map[string]float64, sc scenario, scale float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range counts {
		out[k] = v / sc.rateInterval().Seconds() * scale
	}
	return out
}

// top keeps the n largest values.
func top(m map[string]float64, n int) map[string]float64 {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	out := map[string]float64{}
	for _, k := range keys[:min(n, len(keys))] {
		out[k] = m[k]
	}
	return out
}

// completedJobs are the jobs (Cortex Plane jobs, else sessions, else runs)
// of the selected formats one of whose sessions or runs ended completed.
func (w *world) completedJobs(sc scenario) map[string]bool {
	out := map[string]bool{}
	for i := range w.facts {
		f := &w.facts[i]
		if f.shipped && sc.formatOK(f) && f.role == "session_end" && f.endReason == "completed" {
			out[f.unit] = true
		}
	}
	return out
}
