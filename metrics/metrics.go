// Package metrics defines journalship's Prometheus metrics and serves them.
// One Set and one HTTP endpoint exist per process however many plugin
// instances Fluent Bit starts: instances are told apart by the "instance"
// label only where it matters (lines and pushes).
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Set holds every metric of the shipping path.
type Set struct {
	Registry *prometheus.Registry

	// LinesIn counts lines received, by outcome (valid, schema_invalid,
	// corrupt, undecodable).
	LinesIn *prometheus.CounterVec
	// LinesShipped counts lines Loki accepted.
	LinesShipped prometheus.Counter
	// LinesDeadLettered counts lines written to the dead-letter file, by
	// reason class.
	LinesDeadLettered *prometheus.CounterVec
	// Annotations counts annotations by kind (seq_gap, corrupt, ...).
	Annotations *prometheus.CounterVec
	// SeqMissing counts the seqs that gaps leave out.
	SeqMissing prometheus.Counter
	// Bytes counts journal bytes received and shipped.
	Bytes *prometheus.CounterVec
	// PushDuration observes whole flushes to Loki.
	PushDuration prometheus.Histogram
	// Retries counts flushes answered with FLB_RETRY (or retried by the
	// CLI), by cause.
	Retries *prometheus.CounterVec
	// Tokens counts LLM tokens by model, direction (prompt, completion,
	// and cache_read, cache_write: parts of prompt) and tenant.
	Tokens *prometheus.CounterVec
	// CostUSD counts dollars of LLM tokens by the price table entry they
	// are attributed to and tenant.
	CostUSD *prometheus.CounterVec
	// LedgerErrors counts failures to record shipped ranges.
	LedgerErrors prometheus.Counter
	// FilesFinished counts files the finalizer accounted for, by the
	// audit's level (clean, warning, corrupt) and severity.
	FilesFinished *prometheus.CounterVec
	// TruncatedTails counts partial last lines marked by the finalizer.
	TruncatedTails prometheus.Counter
	// FileSizeAlerts counts finished files over the seed's 10 MB alert.
	FileSizeAlerts prometheus.Counter
	// JobDirSizeAlerts counts finished files whose job directory is over
	// the seed's 50 MB alert.
	JobDirSizeAlerts prometheus.Counter
	// LabelValuesFolded counts label values from journal content replaced
	// by "other" because their label's limit was reached, by label.
	LabelValuesFolded *prometheus.CounterVec
	// Panics counts Go panics recovered at the plugin's entry points
	// (register, init, flush, exit, ...) instead of ending Fluent Bit.
	Panics *prometheus.CounterVec
	// SecretsRedacted counts secrets replaced in lines before they left
	// the node, by rule and journal format.
	SecretsRedacted *prometheus.CounterVec

	models *Bounded // the model label's limit, shared by every pipeline
}

// DefaultMaxModelValues is how many model label values besides the price
// tables' models a process keeps by default.
const DefaultMaxModelValues = 100

// MaxModelValuesSetting is the setting that raises the model label's limit.
const MaxModelValuesSetting = "Metrics_Max_Model_Values"

// New creates a Set on a fresh registry, with Go and process collectors,
// keeping DefaultMaxModelValues model label values besides the known ones.
func New() *Set {
	return newSet(DefaultMaxModelValues)
}

// newSet creates a Set keeping maxModels model label values besides the
// known ones.
func newSet(maxModels int) *Set {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s := &Set{Registry: reg}
	s.LinesIn = counterVec(reg, "lines_received_total", "Journal lines received, by integrity outcome.", "outcome")
	s.LinesShipped = counter(reg, "lines_shipped_total", "Journal lines Loki accepted.")
	s.LinesDeadLettered = counterVec(reg, "lines_dead_lettered_total", "Lines written to the dead-letter file, by reason.", "reason")
	s.Annotations = counterVec(reg, "annotations_total", "Annotations attached to shipped lines, by kind.", "kind")
	s.SeqMissing = counter(reg, "seq_missing_total", "Sequence numbers missing from journals (sum of gap sizes).")
	s.Bytes = counterVec(reg, "bytes_total", "Journal bytes, by stage (received, shipped).", "stage")
	s.PushDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: "journalship", Name: "push_duration_seconds",
		Help:    "Time to push one flush to Loki, all requests included.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
	})
	reg.MustRegister(s.PushDuration)
	s.Retries = counterVec(reg, "retries_total", "Flushes handed back for retry, by cause.", "cause")
	s.Tokens = counterVec(reg, "llm_tokens_total", "LLM tokens of valid responses, by model, direction (prompt, completion; cache_read and cache_write, part of prompt) and tenant.", "model", "direction", "tenant")
	s.CostUSD = counterVec(reg, "llm_cost_usd_total", "US dollars of LLM tokens at the price table's prices, by attributed model and tenant.", "model", "tenant")
	s.LedgerErrors = counter(reg, "ledger_errors_total", "Failures to record shipped byte ranges in the ledger.")
	s.FilesFinished = counterVec(reg, "files_finished_total", "Journal files the finalizer accounted for, by audit level and severity.", "level", "severity")
	s.TruncatedTails = counter(reg, "truncated_tails_total", "Partial last lines (writes cut by a crash) marked by the finalizer.")
	s.FileSizeAlerts = counter(reg, "file_size_alerts_total", "Finished journal files over the size alert (10 MB, docs/formats/cortex-plane.md).")
	s.JobDirSizeAlerts = counter(reg, "job_dir_size_alerts_total", "Finished journal files whose job directory is over the size alert (50 MB, docs/formats/cortex-plane.md).")
	s.LabelValuesFolded = counterVec(reg, "label_values_folded_total", "Label values from journal content replaced by other (the label's limit reached), by label.", "label")
	s.models = NewBounded(BoundedConfig{Label: "model", Setting: MaxModelValuesSetting, Max: maxModels,
		Folded: s.LabelValuesFolded.WithLabelValues("model")})
	s.Panics = counterVec(reg, "panics_total", "Go panics recovered where Fluent Bit calls the plugin, by entry point.", "entry")
	s.SecretsRedacted = counterVec(reg, "secrets_redacted_total", "Secrets replaced in journal lines before they left the node, by detection rule and journal format.", "rule", "format")
	return s
}

// Models returns the model label of one pipeline's token and cost series:
// the values known reports (its price table's models) are kept, and the
// others share the process's limit of distinct values; warn logs the first
// value folded into "other". Nil on a nil Set (every value kept).
func (s *Set) Models(known func(string) bool, warn func(format string, args ...any)) *Bounded {
	if s == nil {
		return nil
	}
	return s.models.With(known, warn)
}

func counter(reg *prometheus.Registry, name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "journalship", Name: name, Help: help})
	reg.MustRegister(c)
	return c
}

func counterVec(reg *prometheus.Registry, name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "journalship", Name: name, Help: help}, labels)
	reg.MustRegister(c)
	return c
}
