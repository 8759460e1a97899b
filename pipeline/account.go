package pipeline

import (
	"errors"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/loki"
)

// tally sums one Ship's counts so that metrics are updated once per flush,
// not once per line.
type tally struct {
	outcomes    [4]int // valid, schema_invalid, corrupt, undecodable
	annots      [annotCount]int
	notes       map[string]int // the formats' own annotations, by kind
	deadLetters map[string]int
	received    int64
	shipped     int64
	missing     int64
	redactions  map[redactKey]int
	tokens      map[tenantModel][4]int64 // in, out, cache read, cache write
	costs       map[tenantModel]float64  // USD by price table entry
}

// tenantModel keys the token and cost tallies.
type tenantModel struct{ tenant, model string }

const undecodable = 3

func (t *tally) reset() {
	*t = tally{deadLetters: t.deadLetters, tokens: t.tokens, costs: t.costs, notes: t.notes, redactions: t.redactions}
	clear(t.redactions)
	clear(t.notes)
	clear(t.deadLetters)
	clear(t.tokens)
	clear(t.costs)
	if t.deadLetters == nil {
		t.deadLetters, t.tokens, t.costs, t.notes = map[string]int{}, map[tenantModel][4]int64{}, map[tenantModel]float64{}, map[string]int{}
		t.redactions = map[redactKey]int{}
	}
}

// account updates the result and the metrics after a successful Ship.
func (p *Pipeline) account(w *work) {
	t := &w.tally
	t.reset()
	for i := range w.items {
		it, r := &w.items[i], &w.recs[i]
		if it.unsettled {
			continue // counted when a retry settles it
		}
		n := int64(len(r.Line))
		w.result.Bytes += n
		t.received += n
		for _, f := range it.redacted {
			t.redactions[redactKey{f.Rule, it.format}]++ // shipped or dead-lettered, never in the clear
		}
		if it.dlClass == dlUndecodable {
			t.outcomes[undecodable]++
		} else {
			t.outcomes[it.outcome]++
		}
		if it.dlReason != "" {
			w.result.DeadLettered++
			t.deadLetters[it.dlClass.name]++
			continue
		}
		if !it.sent {
			continue
		}
		w.result.Shipped++
		t.shipped += n
		for k := range annotCount {
			if it.annots&(1<<k) != 0 {
				t.annots[k]++
			}
		}
		for _, kind := range it.note[:it.notes] {
			t.notes[kind]++
		}
		t.missing = format.AddCounts(t.missing, it.missing)
		if it.usage.Has && it.model != "" {
			k := tenantModel{it.tenant, it.model}
			v := t.tokens[k]
			u := it.usage
			t.tokens[k] = [4]int64{format.AddCounts(v[0], u.Input), format.AddCounts(v[1], u.Output),
				format.AddCounts(v[2], u.CacheRead), format.AddCounts(v[3], u.CacheWrite)}
		}
		if it.costModel != "" {
			t.costs[tenantModel{it.tenant, it.costModel}] += it.cost
		}
	}
	p.publish(w)
}

var outcomeNames = [4]string{integrity.Valid.String(), integrity.SchemaInvalid.String(), integrity.Corrupt.String(), "undecodable"}

// publish adds a Ship's tally to the metrics.
func (p *Pipeline) publish(w *work) {
	m, t := p.deps.Metrics, &w.tally
	if m == nil {
		return
	}
	for o, n := range t.outcomes {
		if n > 0 {
			m.LinesIn.WithLabelValues(outcomeNames[o]).Add(float64(n))
		}
	}
	for k, n := range t.annots {
		if n > 0 {
			m.Annotations.WithLabelValues(annotNames[k]).Add(float64(n))
		}
	}
	for kind, n := range t.notes {
		m.Annotations.WithLabelValues(kind).Add(float64(n))
	}
	for reason, n := range t.deadLetters {
		m.LinesDeadLettered.WithLabelValues(reason).Add(float64(n))
	}
	for k, v := range t.tokens {
		model, tenant := p.modelLabel.Value(k.model), tenantLabel(k.tenant)
		// Counts are never negative (formats read counts >= 0 and sums
		// saturate): a counter's Add panics on a negative value.
		m.Tokens.WithLabelValues(model, "prompt", tenant).Add(float64(max(v[0], 0)))
		m.Tokens.WithLabelValues(model, "completion", tenant).Add(float64(max(v[1], 0)))
		// Cache series only for models that report caches: prompt
		// includes them (format.Usage).
		if v[2] > 0 {
			m.Tokens.WithLabelValues(model, "cache_read", tenant).Add(float64(v[2]))
		}
		if v[3] > 0 {
			m.Tokens.WithLabelValues(model, "cache_write", tenant).Add(float64(v[3]))
		}
	}
	for k, usd := range t.costs {
		m.CostUSD.WithLabelValues(p.modelLabel.Value(k.model), tenantLabel(k.tenant)).Add(usd)
	}
	p.countRedactions(t.redactions)
	m.Bytes.WithLabelValues("received").Add(float64(t.received))
	m.Bytes.WithLabelValues("shipped").Add(float64(t.shipped))
	m.SeqMissing.Add(float64(t.missing))
	m.LinesShipped.Add(float64(w.result.Shipped))
	if w.unver > 0 {
		m.Annotations.WithLabelValues("seq_unverified").Add(float64(w.unver))
	}
}

func (p *Pipeline) countRetry(err error) {
	var re *RetryError
	if p.deps.Metrics != nil && errors.As(err, &re) {
		p.deps.Metrics.Retries.WithLabelValues(re.Cause).Inc()
	}
	if re != nil && re.Cause == loki.CauseRequestRefused {
		p.deps.Logger.Warnf("Loki refuses the request itself, not its lines: fix the configuration (labels, tenant limits, a proxy in front of Loki); the lines are kept and retried: %v", err)
		return
	}
	p.deps.Logger.Warnf("flush handed back for retry: %v", err)
}

// tenantLabel is the tenant label of the token and cost metrics: "default"
// for lines sent without a tenant.
func tenantLabel(tenant string) string {
	if tenant == "" {
		return "default"
	}
	return tenant
}

// RetryCauses are the cause label values of retries_total.
var RetryCauses = []string{loki.CauseRateLimited, loki.CauseServerError, loki.CauseIngestionBlocked,
	loki.CauseNetwork, loki.CauseTimeout, loki.CauseCanceled, loki.CauseAuth, loki.CauseNotFound,
	loki.CauseUnexpected, loki.CauseRequestRefused, loki.CauseUnknown, "dead_letter", "ledger", causeClaimedElsewhere}

// PresetCost creates the cost series of the price table entries modelsFor
// gives each tenant the configuration names (the entries a reloaded table
// adds included) at zero, so the first priced response shows in
// increase(). A tenant only a path pattern names gets its series when its
// first response is counted.
func (p *Pipeline) PresetCost(modelsFor func(tenant string) []string) {
	if p.deps.Metrics == nil {
		return
	}
	for _, t := range p.Tenants() {
		for _, m := range modelsFor(t) {
			p.deps.Metrics.CostUSD.WithLabelValues(m, tenantLabel(t))
		}
	}
}

// Tenants lists the tenants the configuration names ("" when every
// journal goes to one unnamed tenant).
func (p *Pipeline) Tenants() []string {
	if named := p.tenants.Named(); len(named) > 0 {
		return named
	}
	return []string{""}
}

// presetMetrics creates every counter series the pipeline can touch at
// zero, so a dashboard shows 0 rather than "no data" and increase() sees the
// first line.
func (p *Pipeline) presetMetrics() {
	m := p.deps.Metrics
	if m == nil {
		return
	}
	for _, o := range outcomeNames {
		m.LinesIn.WithLabelValues(o)
	}
	for _, a := range annotNames {
		m.Annotations.WithLabelValues(a)
	}
	m.Annotations.WithLabelValues("seq_unverified")
	for _, f := range p.formats.Formats() {
		for _, a := range f.Annotations() {
			m.Annotations.WithLabelValues(a)
		}
	}
	for _, s := range DeadLetterReasons {
		m.LinesDeadLettered.WithLabelValues(s)
	}
	for _, c := range RetryCauses {
		m.Retries.WithLabelValues(c)
	}
	for _, s := range []string{"received", "shipped"} {
		m.Bytes.WithLabelValues(s)
	}
}
