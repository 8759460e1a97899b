package grafana

import (
	"sort"

	"github.com/journalship/journalship/internal/sample"
)

const costUID = "journalship-cost"

// dollarTol is the relative tolerance of dollar sums: Loki, Prometheus and
// the test add the same costs in different orders (float rounding, ~1e-15);
// a wrong price or token count is off by far more.
const dollarTol = 1e-9

// costExpectations are the cost dashboard's targets.
func costExpectations() map[string]expectFunc {
	k := func(panel, ref string) string { return expectKey(costUID, panel, ref) }
	return map[string]expectFunc{
		k("Spend (Loki)", "A"): func(w *world, sc scenario) want {
			return want{values: w.sum(priced, none, dollars), tol: dollarTol}
		},
		k("Spend of the selected tenants (Prometheus)", "A"): func(w *world, sc scenario) want {
			return want{values: w.sum(and(priced, tenantSelected(sc)), none, dollars), tol: dollarTol}
		},
		k("Tokens", "A"):         func(w *world, sc scenario) want { return want{values: w.sum(validResponse, none, tokensIn)} },
		k("Tokens", "B"):         func(w *world, sc scenario) want { return want{values: w.sum(validResponse, none, tokensOut)} },
		k("Completed jobs", "A"): func(w *world, sc scenario) want { return single(float64(len(w.completedJobs()))) },
		k("Cost per completed job", "A"): func(w *world, sc scenario) want {
			jobs := w.completedJobs()
			cost := w.sum(and(priced, func(f *fact) bool { return jobs[f.file.JobID] }), none, dollars)[""]
			return want{values: map[string]float64{"": cost / float64(len(jobs))}, tol: dollarTol}
		},
		k("Unpriced LLM calls", "A"): func(w *world, sc scenario) want {
			return want{values: orZero(w.count(func(f *fact) bool { return f.has("price_unknown") }, none))}
		},
		k("Dollars by model", "A"): func(w *world, sc scenario) want {
			return want{by: []string{"cost_model"}, values: w.sum(priced, func(f *fact) string { return f.costModel }, dollars), tol: dollarTol}
		},
		k("Tokens by model", "A"): func(w *world, sc scenario) want {
			return want{by: []string{"model"}, values: w.sum(validResponse, byModel, tokensIn)}
		},
		k("Tokens by model", "B"): func(w *world, sc scenario) want {
			return want{by: []string{"model"}, values: w.sum(validResponse, byModel, tokensOut)}
		},
		k("Dollars by agent", "A"): func(w *world, sc scenario) want {
			return want{by: []string{"agent_id"}, values: w.sum(priced, func(f *fact) string { return f.file.AgentID }, dollars), tol: dollarTol}
		},
		k("Tokens by agent", "A"): func(w *world, sc scenario) want {
			return want{by: []string{"agent_id"}, values: w.sum(validResponse, byAgent, tokensIn)}
		},
		k("Tokens by agent", "B"): func(w *world, sc scenario) want {
			return want{by: []string{"agent_id"}, values: w.sum(validResponse, byAgent, tokensOut)}
		},
		k("Dollars per hour by tenant (Prometheus)", "A"): func(w *world, sc scenario) want {
			v := w.sum(and(priced, tenantSelected(sc)), byTenant, dollars)
			return want{by: []string{"tenant"}, values: perSecond(v, sc, 3600), tol: dollarTol}
		},
		k("Tokens per second by tenant (Prometheus)", "A"): func(w *world, sc scenario) want {
			v := w.sum(and(validResponse, tenantSelected(sc)), func(f *fact) string { return key(f.tenant, "prompt") }, tokensIn)
			for kk, n := range w.sum(and(validResponse, tenantSelected(sc)), func(f *fact) string { return key(f.tenant, "completion") }, tokensOut) {
				v[kk] = n
			}
			return want{by: []string{"tenant", "direction"}, values: perSecond(v, sc, 1), tol: 1e-12}
		},
		k("Top jobs by cost", "A"): func(w *world, sc scenario) want {
			return want{by: []string{"job_id"}, values: top(w.sum(priced, byJob, dollars), 10), tol: dollarTol}
		},
		k("Spend by tenant and model (Prometheus)", "A"): func(w *world, sc scenario) want {
			v := w.sum(and(priced, tenantSelected(sc)), func(f *fact) string { return key(f.tenant, f.costModel) }, dollars)
			return want{by: []string{"tenant", "model"}, values: v, zeros: true, tol: dollarTol}
		},
		k("Models without a price", "A"): func(w *world, sc scenario) want {
			return want{by: []string{"model"}, values: w.count(func(f *fact) bool { return f.has("price_unknown") }, byModel)}
		},
	}
}

func byTenant(f *fact) string { return f.tenant }

func byAgent(f *fact) string { return f.file.AgentID }

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

// completedJobs are the jobs one of whose sessions ended "completed".
func (w *world) completedJobs() map[string]bool {
	out := map[string]bool{}
	for i := range w.facts {
		f := &w.facts[i]
		if f.shipped && f.eventType == sample.TypeSessionEnd && f.str("reason") == "completed" {
			out[f.file.JobID] = true
		}
	}
	return out
}
