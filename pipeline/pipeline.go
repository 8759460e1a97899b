package pipeline

import (
	"context"
	"errors"
	"fmt"
	"github.com/journalship/journalship/redact"
	"github.com/journalship/journalship/tenant"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/deadletter"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/internal/recent"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/loki"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/pricing"
)

// Pusher delivers a batch to Loki synchronously (*loki.Client).
type Pusher interface {
	Push(ctx context.Context, b *loki.Batch) (loki.Result, error)
}

// Ledger records what Loki accepted (*ledger.Ledger).
type Ledger interface {
	Record(ctx context.Context, segs []ledger.Segment) error
	Covering(ctx context.Context, path string, end int64) (ledger.Range, bool, error)
}

// DeadLetters keeps refused lines (*deadletter.Writer).
type DeadLetters interface {
	Write(entries []deadletter.Entry) error
}

// Deps are the parts the pipeline delivers to.
type Deps struct {
	Pusher      Pusher
	Ledger      Ledger // may be nil: nothing is recorded
	DeadLetters DeadLetters
	Metrics     *metrics.Set // may be nil
	Prices      Pricer       // may be nil: no cost is computed
	Logger      Logger       // may be nil
}

// Pricer prices a model's tokens for a tenant (*pricing.Source).
type Pricer interface {
	Lookup(tenant, model string) (pricing.Price, bool)
}

// Logger receives one line per notable event (dead letters, retries,
// look-behind failures). Fluent Bit's conventions are applied by the caller.
type Logger interface {
	Warnf(format string, args ...any)
	Debugf(format string, args ...any)
}

// Result counts what one Ship did.
type Result struct {
	Lines        int
	Shipped      int
	DeadLettered int
	// AlreadyShipped counts lines the ledger held already for their file
	// (sent by another shipper): acknowledged, not sent again.
	AlreadyShipped int
	Bytes          int64
}

// RetryError means nothing may be acknowledged: the caller must offer the
// same records again later (Fluent Bit: FLB_RETRY).
type RetryError struct {
	Cause string // rate_limited, server_error, network, timeout, ingestion_blocked, auth, dead_letter, ledger, ...
	Err   error
}

func (e *RetryError) Error() string {
	var le *loki.RetryableError
	if errors.As(e.Err, &le) {
		return e.Err.Error() // it names its cause already
	}
	return fmt.Sprintf("retry (%s): %v", e.Cause, e.Err)
}
func (e *RetryError) Unwrap() error { return e.Err }

// Retryable is always true.
func (e *RetryError) Retryable() bool { return true }

// Pipeline is safe for concurrent Ship calls (Fluent Bit workers).
type Pipeline struct {
	cfg      Config
	deps     Deps
	files    *fileCache
	models   *interner // model names
	ids      *interner // session and agent ids
	reader   *journalfile.Reader
	tenants  *tenant.Router
	redactor *redact.Redactor
	works    workPool
	labelSet *labelSets
	formats  *registry.Registry
	behind   *behind
	bills    *bills
	counted  *recent.Counts // synthetic entries whose cost was counted
	// modelLabel bounds the model label values of the token and cost
	// series (journal content).
	modelLabel *metrics.Bounded
}

// New builds a pipeline.
func New(cfg Config, deps Deps) (*Pipeline, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Pusher == nil || deps.DeadLetters == nil {
		return nil, fmt.Errorf("pipeline: a pusher and a dead-letter writer are required")
	}
	if deps.Logger == nil {
		deps.Logger = nopLogger{}
	}
	r, err := journalfile.New(cfg.Lookbehind)
	if err != nil {
		return nil, err
	}
	reg, err := registry.New(cfg.Formats)
	if err != nil {
		return nil, err
	}
	tenants, err := tenant.New(cfg.Tenants)
	if err != nil {
		return nil, err
	}
	redactor, err := redact.New(cfg.Redact)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{cfg: cfg, deps: deps, files: newFileCache(cfg.FileCacheSize),
		models: &interner{m: map[string]string{}},
		ids:    &interner{m: map[string]string{}}, reader: r, formats: reg,
		tenants: tenants, redactor: redactor}
	p.labelSet = newLabelSets(cfg)
	p.behind = newBehind(cfg.MaxBehind, deps.Ledger)
	p.bills = newBills(deps.Ledger)
	p.counted = recent.NewCounts(countedMemory)
	p.modelLabel = deps.Metrics.Models(knownModels(deps.Prices, tenants.Named()), deps.Logger.Warnf)
	p.presetMetrics()
	p.works = make(workPool, idleWorks)
	return p, nil
}

// Ship validates, annotates and delivers records (lines of any files, in
// any order). It returns nil only when every record is in Loki or in the
// dead-letter file and the ledger knows; otherwise a *RetryError.
//
// Each file's shipping lock is held for the call (see claim), and lines the
// ledger already holds for the file are not sent again (AlreadyShipped).
func (p *Pipeline) Ship(ctx context.Context, recs []chunk.Record, tag string) (Result, error) {
	all := len(recs)
	w := p.works.get()
	defer p.works.put(w)
	ctx, recs, release, err := p.claim(ctx, recs, w)
	if err != nil {
		err = &RetryError{Cause: "ledger", Err: err}
		p.countRetry(err)
		return Result{Lines: all}, err
	}
	defer release()
	w.reset(recs, tag)
	w.now, w.ctx = p.cfg.Now(), ctx
	defer func() { w.ctx = nil }()
	p.behind.refresh(ctx, w.now)
	p.process(ctx, w)
	if err := p.deliver(ctx, w); err != nil {
		p.countRetry(err)
		return Result{Lines: all}, err
	}
	p.account(w)
	res := w.result
	res.Lines, res.AlreadyShipped = all, all-len(recs)
	return res, nil
}

type nopLogger struct{}

func (nopLogger) Warnf(string, ...any)  {}
func (nopLogger) Debugf(string, ...any) {}
