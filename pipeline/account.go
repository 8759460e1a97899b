package pipeline

import (
	"errors"

	"github.com/journalship/journalship/integrity"
)

// tally sums one Ship's counts so that metrics are updated once per flush,
// not once per line.
type tally struct {
	outcomes    [4]int // valid, schema_invalid, corrupt, undecodable
	annots      [annotCount]int
	deadLetters map[string]int
	received    int64
	shipped     int64
	missing     int64
	tokens      map[string][2]int64
}

const undecodable = 3

func (t *tally) reset() {
	*t = tally{deadLetters: t.deadLetters, tokens: t.tokens}
	clear(t.deadLetters)
	clear(t.tokens)
	if t.deadLetters == nil {
		t.deadLetters, t.tokens = map[string]int{}, map[string][2]int64{}
	}
}

// account updates the result and the metrics after a successful Ship.
func (p *Pipeline) account(w *work) {
	t := &w.tally
	t.reset()
	for i := range w.items {
		it, r := &w.items[i], &w.recs[i]
		n := int64(len(r.Line))
		w.result.Bytes += n
		t.received += n
		if it.dlStage == "decode" {
			t.outcomes[undecodable]++
		} else {
			t.outcomes[it.outcome]++
		}
		if it.dlReason != "" {
			w.result.DeadLettered++
			t.deadLetters[it.dlStage]++
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
		t.missing += it.missing
		if it.hasTokens && it.model != "" {
			v := t.tokens[it.model]
			t.tokens[it.model] = [2]int64{v[0] + it.tokens[0], v[1] + it.tokens[1]}
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
	for stage, n := range t.deadLetters {
		m.LinesDeadLettered.WithLabelValues(stage).Add(float64(n))
	}
	for model, v := range t.tokens {
		m.Tokens.WithLabelValues(model, "prompt").Add(float64(v[0]))
		m.Tokens.WithLabelValues(model, "completion").Add(float64(v[1]))
	}
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
	p.deps.Logger.Warnf("flush handed back for retry: %v", err)
}
