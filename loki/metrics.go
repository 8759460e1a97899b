package loki

import (
	"errors"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a request (label "outcome" of journalship_loki_requests_total):
// "success", "partial" (a 400 with rejected entries), "permanent", or the
// Cause of a RetryableError.
const (
	OutcomeSuccess   = "success"
	OutcomePartial   = "partial"
	OutcomePermanent = "permanent"
	// OutcomeSplit: 413, the request was sent again in halves.
	OutcomeSplit = "split"
)

// metrics are the client's Prometheus collectors. Several clients given the
// same registerer share them.
type metrics struct {
	duration *prometheus.HistogramVec // by status_class
	bytes    prometheus.Counter       // compressed bytes sent
	rawBytes prometheus.Counter       // uncompressed protobuf bytes sent
	requests *prometheus.CounterVec   // by outcome
	entries  prometheus.Counter       // entries stored
	rejected prometheus.Counter       // entries refused for good
	// uncertain counts entries sent again because Loki's answer could
	// not tell whether it stored them.
	uncertain prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "journalship_loki_request_duration_seconds",
			Help:    "Duration of Loki push requests, by HTTP status class (2xx, 4xx, 5xx, error for no answer).",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"status_class"}),
		bytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "journalship_loki_sent_bytes_total",
			Help: "Bytes of push request bodies sent to Loki (snappy-compressed).",
		}),
		rawBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "journalship_loki_sent_uncompressed_bytes_total",
			Help: "Bytes of push request bodies sent to Loki before compression.",
		}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "journalship_loki_requests_total",
			Help: "Loki push requests by outcome: success, partial, permanent, or the retryable cause.",
		}, []string{"outcome"}),
		entries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "journalship_loki_entries_stored_total",
			Help: "Entries Loki accepted.",
		}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "journalship_loki_entries_rejected_total",
			Help: "Entries Loki refused permanently (reported in Result.Rejected).",
		}),
		uncertain: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "journalship_loki_uncertain_entries_total",
			Help: "Entries sent again because Loki's answer could not tell whether it stored them (a sharded stream's refusals, a refusal count its rule cannot explain): possible duplicates in Loki.",
		}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.duration, err = register(reg, m.duration)
	if err == nil {
		m.bytes, err = register(reg, m.bytes)
	}
	if err == nil {
		m.rawBytes, err = register(reg, m.rawBytes)
	}
	if err == nil {
		m.requests, err = register(reg, m.requests)
	}
	if err == nil {
		m.entries, err = register(reg, m.entries)
	}
	if err == nil {
		m.rejected, err = register(reg, m.rejected)
	}
	if err == nil {
		m.uncertain, err = register(reg, m.uncertain)
	}
	return m, err
}

// register registers c, or returns the identical collector registered before.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

// statusClass is "2xx"... for a status, "error" for no answer.
func statusClass(status int) string {
	if status <= 0 {
		return "error"
	}
	return strconv.Itoa(status/100) + "xx"
}
