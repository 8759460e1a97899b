package retention

import (
	"fmt"
	"net"

	"github.com/journalship/journalship/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the retention agent's own metrics, on their own registry
// (without Go and process collectors, so it can be served next to the
// shipping path's metrics.Set; see Serve).
type Metrics struct {
	Registry *prometheus.Registry
	// FilesDeleted and BytesDeleted count deletions by rule (job_terminal,
	// max_age, max_age_forced).
	FilesDeleted *prometheus.CounterVec
	BytesDeleted *prometheus.CounterVec
	// DirsDeleted counts job directories removed once empty.
	DirsDeleted prometheus.Counter
	// FilesKept is, as of the last sweep, the number of files kept by
	// reason.
	FilesKept *prometheus.GaugeVec
	// UnshippedPastMaxAge is, as of the last sweep, the number of files
	// past the max age that the ledger does not account for: a shipping
	// outage an operator must see. Alert on > 0.
	UnshippedPastMaxAge prometheus.Gauge
	// StatusErrors counts failures to learn a job's status, by source.
	StatusErrors *prometheus.CounterVec
	// Errors counts other failures (listing, deleting, ledger), by op.
	Errors *prometheus.CounterVec
	// LedgerRowsForgotten counts ledger rows dropped for files already gone.
	LedgerRowsForgotten prometheus.Counter
	// HolesShippedLines counts the lines shipped from holes the ledger
	// showed between a file's shipped ranges (chunks Fluent Bit lost).
	HolesShippedLines prometheus.Counter
	// SweepDuration observes whole sweeps.
	SweepDuration prometheus.Histogram
	// Sweeps counts sweeps by outcome (ok, degraded, failed).
	Sweeps *prometheus.CounterVec
	// LastSweep is the Unix time the last sweep ended.
	LastSweep prometheus.Gauge
}

// NewMetrics creates the metrics on a fresh registry.
func NewMetrics() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{Registry: reg}
	m.FilesDeleted = counterVec(reg, "files_deleted_total", "Journal files deleted, by rule.", "rule")
	m.BytesDeleted = counterVec(reg, "bytes_deleted_total", "Bytes of journal files deleted, by rule.", "rule")
	m.DirsDeleted = counter(reg, "dirs_deleted_total", "Empty job directories removed.")
	m.FilesKept = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "journalship", Subsystem: "retention", Name: "files_kept",
		Help: "Journal files kept by the last sweep, by reason."}, []string{"reason"})
	m.UnshippedPastMaxAge = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "journalship", Subsystem: "retention", Name: "unshipped_past_max_age_files",
		Help: "Files past the max age that the ledger does not account for (last sweep): shipping is failing."})
	m.StatusErrors = counterVec(reg, "status_errors_total", "Failures to learn a job's status, by source.", "source")
	m.Errors = counterVec(reg, "errors_total", "Listing, deleting and ledger failures, by operation.", "op")
	m.LedgerRowsForgotten = counter(reg, "ledger_rows_forgotten_total", "Ledger rows forgotten because their file was gone.")
	m.HolesShippedLines = counter(reg, "holes_shipped_lines_total", "Lines shipped from holes between a file's shipped ranges (lines Fluent Bit lost).")
	m.SweepDuration = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "journalship", Subsystem: "retention", Name: "sweep_duration_seconds",
		Help: "Duration of whole sweeps.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 16)})
	m.Sweeps = counterVec(reg, "sweeps_total", "Sweeps, by outcome (ok, degraded: some jobs or files could not be judged, failed).", "outcome")
	m.LastSweep = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "journalship", Subsystem: "retention", Name: "last_sweep_timestamp_seconds",
		Help: "Unix time the last sweep ended."})
	reg.MustRegister(m.FilesKept, m.UnshippedPastMaxAge, m.SweepDuration, m.LastSweep)
	m.preset()
	return m
}

// Label values the counters are created with at 0, so that a dashboard's
// increase() counts the first deletion, sweep or error.
var (
	rules        = []string{RuleJobTerminal, RuleRunOver, RuleMaxAge, RuleMaxAgeForced}
	outcomes     = []string{OutcomeOK, OutcomeDegraded, OutcomeFailed}
	errorOps     = []string{"root", "list", "stat", "ledger", "finalize", "delete", "forget", "rmdir"}
	statusSource = []string{"journal", "postgres", "unknown"}
)

func (m *Metrics) preset() {
	for _, r := range rules {
		m.FilesDeleted.WithLabelValues(r)
		m.BytesDeleted.WithLabelValues(r)
	}
	for _, o := range outcomes {
		m.Sweeps.WithLabelValues(o)
	}
	for _, op := range errorOps {
		m.Errors.WithLabelValues(op)
	}
	for _, s := range statusSource {
		m.StatusErrors.WithLabelValues(s)
	}
}

func counter(reg *prometheus.Registry, name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "journalship", Subsystem: "retention", Name: name, Help: help})
	reg.MustRegister(c)
	return c
}

func counterVec(reg *prometheus.Registry, name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "journalship", Subsystem: "retention", Name: name, Help: help}, labels)
	reg.MustRegister(c)
	return c
}

// record sets the last sweep's gauges and counters from a report.
func (m *Metrics) record(r *Report) {
	m.FilesKept.Reset()
	for reason, n := range r.Kept {
		m.FilesKept.WithLabelValues(reason).Set(float64(n))
	}
	m.UnshippedPastMaxAge.Set(float64(r.UnshippedPastMaxAge))
	m.SweepDuration.Observe(r.Duration.Seconds())
	m.Sweeps.WithLabelValues(r.Outcome()).Inc()
	m.LastSweep.Set(float64(r.End.Unix()))
}

// Serve serves the union of gatherers on addr at /metrics. addr "" or "off"
// disables it (nil, nil).
func Serve(addr string, gatherers ...prometheus.Gatherer) (*metrics.Server, error) {
	if addr == "" || addr == "off" {
		return nil, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, &ConfigError{"metrics-address", addr, err.Error()}
	}
	s, err := metrics.ServeGatherers(metrics.Config{Address: addr, Path: "/metrics"}, gatherers...)
	if err != nil {
		return nil, fmt.Errorf("retention: metrics: %w", err)
	}
	return s, nil
}
