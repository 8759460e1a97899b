package pipeline

import (
	"errors"

	"github.com/journalship/journalship/integrity"
)

// account updates the result and the metrics after a successful Ship.
func (p *Pipeline) account(w *work) {
	m := p.deps.Metrics
	for i := range w.items {
		it, r := &w.items[i], &w.recs[i]
		w.result.Bytes += int64(len(r.Line))
		if it.dlReason != "" {
			w.result.DeadLettered++
		} else if it.sent {
			w.result.Shipped++
		}
		if m == nil {
			continue
		}
		m.LinesIn.WithLabelValues(outcomeLabel(it)).Inc()
		m.Bytes.WithLabelValues("received").Add(float64(len(r.Line)))
		if it.dlReason != "" {
			m.LinesDeadLettered.WithLabelValues(it.dlStage).Inc()
			continue
		}
		m.Bytes.WithLabelValues("shipped").Add(float64(len(r.Line)))
		for k := range annotCount {
			if it.annots&(1<<k) != 0 {
				m.Annotations.WithLabelValues(annotNames[k]).Inc()
			}
		}
		m.SeqMissing.Add(float64(it.missing))
		if it.hasTokens && it.model != "" {
			m.Tokens.WithLabelValues(it.model, "prompt").Add(float64(it.tokens[0]))
			m.Tokens.WithLabelValues(it.model, "completion").Add(float64(it.tokens[1]))
		}
	}
	if m != nil {
		m.LinesShipped.Add(float64(w.result.Shipped))
		if w.unver > 0 {
			m.Annotations.WithLabelValues("seq_unverified").Add(float64(w.unver))
		}
	}
}

func outcomeLabel(it *item) string {
	if it.dlStage == "decode" {
		return "undecodable"
	}
	return it.outcome.String()
}

func (p *Pipeline) countRetry(err error) {
	var re *RetryError
	if p.deps.Metrics != nil && errors.As(err, &re) {
		p.deps.Metrics.Retries.WithLabelValues(re.Cause).Inc()
	}
	p.deps.Logger.Warnf("flush handed back for retry: %v", err)
}

var _ = integrity.Valid
