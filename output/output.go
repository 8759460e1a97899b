// Package output is the Fluent Bit output plugin's logic in plain Go: it
// reads an instance's configuration through a property getter, owns the
// per-process shared parts (metrics endpoint, ledger) and turns each flushed
// chunk into a return code. The cgo layer in plugin/ only converts C types
// and calls into this package, so everything here is tested without cgo.
package output

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/deadletter"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/internal/recent"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/loki"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/pipeline"
	"github.com/journalship/journalship/pricing"
)

// Return codes, identical to Fluent Bit's FLB_ERROR, FLB_OK and FLB_RETRY.
const (
	Error = 0
	OK    = 1
	Retry = 2
)

// PluginName is the name Fluent Bit knows the output by (`Name journalship`).
const PluginName = "journalship"

// PluginDescription is shown by Fluent Bit's plugin listing.
const PluginDescription = "Validates agent session journals and ships them to Grafana Loki, at least once"

// Getter returns the value of one configuration property of an instance, or
// "" when it is not set (as Fluent Bit's output_get_property does).
type Getter func(key string) string

var instances atomic.Int64

// Instance is one configured `[OUTPUT] Name journalship` section.
type Instance struct {
	id       int
	log      *logger
	decoders sync.Pool // *chunk.Decoder: a decoder serves one flush at a time
	pipe     *pipeline.Pipeline
	ledger   *ledger.Ledger
	dl       *deadletter.Writer
	client   *loki.Client
	prices   *pricing.Source
	metrics  *metrics.Set
	// recs keeps the record slices of recent flushes, grown to a chunk's
	// size; a bounded channel, not a sync.Pool, which the garbage
	// collector would empty between two flushes.
	recs       chan *[]chunk.Record
	panics     *recent.Counts // panics per chunk, to dead-letter a poison chunk
	closed     atomic.Bool
	hasMetrics bool
	keys       chunk.Config // the record keys read
	// warnedPath and warnedOffset: records without the path or offset
	// key were reported (once per instance).
	warnedPath, warnedOffset atomic.Bool
}

// Option changes how NewInstance builds an instance beyond its settings.
type Option func(*options)

type options struct{ logName string }

// WithLogName tags the instance's log lines with name instead of Fluent
// Bit's "output:journalship:journalship.N", for the CLI ("journalship ship").
func WithLogName(name string) Option { return func(o *options) { o.logName = name } }

// NewInstance builds an instance from its configuration properties. The
// error names the setting at fault. A panic while building it is logged,
// releases what the instance had opened and returns a *PanicError.
func NewInstance(get Getter, opts ...Option) (inst *Instance, err error) {
	defer func() {
		if p := recover(); p != nil {
			inst, err = nil, recoverInit(inst, p)
		}
	}()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := parseConfig(get)
	if err != nil {
		return nil, err
	}
	id := int(instances.Add(1) - 1)
	inst = &Instance{id: id, log: newLogger(cfg.logLevel, id), panics: recent.NewCounts(panicMemory)}
	if o.logName != "" {
		inst.log.name = o.logName
	}
	if err := inst.open(cfg); err != nil {
		inst.Close()
		return nil, err
	}
	if initHook != nil {
		initHook(get)
	}
	// Compiling the secret rules (Gitleaks' TOML, a few hundred regexps
	// and keyword tries) allocates about 40 MB to keep 4 MB. The Go
	// runtime returns freed pages to the system only slowly, so the host
	// would carry them as resident memory through its first busy
	// minutes; they go back now, at the cost of one collection (none
	// when the environment turned collections off: GOGC=off).
	if !strings.EqualFold(strings.TrimSpace(os.Getenv("GOGC")), "off") {
		debug.FreeOSMemory()
	}
	inst.log.Infof("ready: loki=%s ledger=%s dead_letter=%s", cfg.loki.URL, cfg.ledger.Path, cfg.deadLetter.Path)
	return inst, nil
}

func (i *Instance) open(cfg config) error {
	if _, err := chunk.NewDecoder(cfg.chunk); err != nil {
		return err
	}
	i.keys = cfg.chunk
	i.recs = make(chan *[]chunk.Record, idleRecordSlices)
	i.decoders.New = func() any {
		d, _ := chunk.NewDecoder(cfg.chunk) // validated above
		return d
	}
	var err error
	m, err := metrics.Acquire(cfg.metrics)
	if err != nil {
		return err
	}
	if i.client, err = loki.New(cfg.loki, m.Registry); err != nil {
		metrics.Release()
		return err
	}
	i.hasMetrics, i.metrics = true, m
	m.LinesDeadLettered.WithLabelValues(reasonUndecodableChunk)
	presetPanicMetrics(m)
	if i.dl, err = deadletter.Open(cfg.deadLetter); err != nil {
		return unusablePath("Dead_Letter_Path", cfg.deadLetter.Path, err)
	}
	deps := pipeline.Deps{Pusher: i.client, DeadLetters: i.dl, Metrics: m, Logger: i.log}
	if !cfg.pricingOff {
		if i.prices, err = pricing.Open(cfg.pricing, i.log); err != nil {
			return err
		}
		deps.Prices = i.prices
	}
	if !cfg.ledgerOff {
		if i.ledger, err = ledger.Open(cfg.ledger); err != nil {
			return unusablePath("Ledger_Path", cfg.ledger.Path, err)
		}
		deps.Ledger = i.ledger
	}
	if i.pipe, err = pipeline.New(cfg.pipeline, deps); err != nil {
		return err
	}
	if i.prices != nil {
		i.prices.OnLoad(func(t *pricing.Table) { i.pipe.PresetCost(t.ModelsFor) })
	}
	return nil
}

// Flush ships one chunk (Fluent Bit's msgpack buffer, as handed to
// FLBPluginFlushCtx) and returns OK or Retry. OK means every line is in
// Loki or in the dead-letter file. data is only used during the call.
//
// A panic while flushing answers Retry, logged with the tag and the file
// and offset of the records at hand; once the same chunk (same tag, same
// bytes) has panicked panicsBeforeDeadLetter times, it is written whole
// to the dead-letter file (stage "panic") and answered OK.
//
// The flush runs on a goroutine of its own while the caller waits. Inside
// Fluent Bit the caller is Fluent Bit's thread, which the Go runtime keeps
// locked to its goroutine: each time the flush waited there (for each
// request's answer, for the ledger's commit) the runtime handed the
// waiting to another thread and woke this one back. With small flushes
// (a tag per file in flbmeasure) those thread switches took a third of
// the plugin's CPU. Now the thread waits once per flush.
func (i *Instance) Flush(data []byte, tag string) int {
	if i.closed.Load() {
		return Retry
	}
	done := make(chan int, 1)
	go func() {
		// data stays valid: the caller waits for the answer.
		done <- Guard(EntryFlush, Retry, func() int { return i.guardedFlush(data, tag) })
	}()
	return <-done
}

// guardedFlush is flush with its panic guard (see Flush).
func (i *Instance) guardedFlush(data []byte, tag string) (rc int) {
	var spot flushSpot
	defer func() {
		if p := recover(); p != nil {
			rc = i.recoverFlush(p, debug.Stack(), data, tag, &spot)
		}
	}()
	return i.flush(data, tag, &spot)
}

// flush is Flush without its panic guard; spot follows its progress. The
// record slice and the decoder go back to their pools only when nothing
// panicked: the panic's report still reads them, and a decoder left half
// way must not serve another flush.
func (i *Instance) flush(data []byte, tag string, spot *flushSpot) int {
	var rp *[]chunk.Record
	select {
	case rp = <-i.recs:
	default:
		rp = new([]chunk.Record)
	}
	rc := i.decodeAndShip(data, tag, spot, rp)
	select {
	case i.recs <- rp:
	default:
	}
	return rc
}

// idleRecordSlices bounds the record slices kept between flushes: one
// per Fluent Bit worker (Workers 2) and a spare.
const idleRecordSlices = 3

// decodeAndShip decodes the chunk into *rp and ships its records.
func (i *Instance) decodeAndShip(data []byte, tag string, spot *flushSpot, rp *[]chunk.Record) int {
	spot.recs, spot.decoding = (*rp)[:0], true
	dec := i.decoders.Get().(*chunk.Decoder)
	derr := dec.Decode(data, func(r *chunk.Record) error {
		spot.cur = r
		if recordHook != nil {
			recordHook(r)
		}
		spot.recs = append(spot.recs, *r)
		return nil
	})
	spot.cur, spot.decoding = nil, false
	i.decoders.Put(dec)
	recs := spot.recs
	*rp = recs
	i.checkRecordKeys(recs, tag)
	if derr != nil {
		if err := i.deadLetterRest(data, tag, derr); err != nil {
			i.log.Errorf("tag=%s: %v; cannot dead-letter it: %v", tag, derr, err)
			return Retry
		}
	}
	res, err := i.pipe.Ship(context.Background(), recs, tag)
	if err != nil {
		return Retry
	}
	i.log.Debugf("tag=%s: %d lines, %d shipped, %d dead-lettered", tag, res.Lines, res.Shipped, res.DeadLettered)
	return OK
}

// checkRecordKeys says once, loudly, when records come without the file
// path or offset the plugin reads (tail's Path_Key and Offset_Key not set,
// or named differently from the plugin's Path_Key and Offset_Key): their
// lines still ship, but without their file, so there is no seq
// continuity, no ledger and nothing retention could ever delete. A record
// without its line is dead-lettered with the reason by the pipeline.
func (i *Instance) checkRecordKeys(recs []chunk.Record, tag string) {
	for k := range recs {
		r := &recs[k]
		switch {
		case r.Problem != "":
			continue // dead-lettered with its own reason
		case len(r.Path) == 0 && !i.warnedPath.Swap(true):
			i.log.Errorf("tag=%s: records carry no %q key: set tail's Path_Key %s (or this output's Path_Key to tail's); lines ship without their file, so no continuity check, no ledger and no retention (journalship check-config finds this)",
				tag, i.keys.PathKey, i.keys.PathKey)
		case !r.HasOffset && !i.warnedOffset.Swap(true):
			i.log.Errorf("tag=%s: records carry no %q key: set tail's Offset_Key %s (or this output's Offset_Key to tail's); lines ship, but the ledger cannot record them (journalship check-config finds this)",
				tag, i.keys.OffsetKey, i.keys.OffsetKey)
		}
	}
}

// deadLetterRest keeps the undecodable remainder of a chunk.
func (i *Instance) deadLetterRest(data []byte, tag string, derr error) error {
	var de *chunk.DecodeError
	start := 0
	if errors.As(derr, &de) {
		start = de.Start
	}
	rest := data[min(start, len(data)):]
	i.log.Errorf("tag=%s: undecodable chunk data from byte %d (%d bytes) dead-lettered: %v", tag, start, len(rest), derr)
	err := i.dl.Write([]deadletter.Entry{{Time: time.Now(), Line: []byte(base64.StdEncoding.EncodeToString(rest)),
		Reason: "undecodable Fluent Bit chunk (line is the base64 of the raw bytes): " + derr.Error(), Stage: "decode", Tag: tag}})
	if err == nil {
		i.metrics.LinesDeadLettered.WithLabelValues(reasonUndecodableChunk).Inc()
	}
	return err
}

// reasonUndecodableChunk is the dead-letter reason label of chunk bytes
// that could not be decoded into records (one dead letter per chunk).
const reasonUndecodableChunk = "undecodable_chunk"

// Close releases the instance's resources. A panic while closing is
// logged and returned as a *PanicError.
func (i *Instance) Close() (err error) {
	if i.closed.Swap(true) {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			logPanic(i.log, EntryExit, p, debug.Stack(), fmt.Sprintf("closing instance %d", i.id))
			countPanic(nil, EntryExit) // the instance's metrics may be released
			err = &PanicError{Entry: EntryExit, Value: p}
		}
	}()
	i.logRuntime()
	var errs []error
	if i.prices != nil {
		i.prices.Close()
	}
	if i.ledger != nil {
		errs = append(errs, i.ledger.Close())
	}
	if i.dl != nil {
		errs = append(errs, i.dl.Close())
	}
	if i.hasMetrics {
		errs = append(errs, metrics.Release())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("journalship instance %d close: %w", i.id, err)
	}
	return nil
}

// logRuntime logs, at debug level, what the process's Go runtime did so
// far: the plugin's allocations and garbage collection, which Fluent Bit's
// own CPU figures include but cannot tell apart (make bench reads it).
func (i *Instance) logRuntime() {
	if i.log == nil || i.log.level < levelDebug {
		return
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	i.log.Debugf("runtime: mallocs=%d bytes_allocated=%d gc_cycles=%d gc_cpu_fraction=%.4f",
		m.Mallocs, m.TotalAlloc, m.NumGC, m.GCCPUFraction)
}

// Shutdown releases the per-process resources once every instance is
// closed. Instances release what they share on Close; nothing else is held.
func Shutdown() error { return nil }

// Ship runs already-decoded records through the instance's pipeline: the
// CLI ships files this way with exactly the plugin's configuration.
func (i *Instance) Ship(ctx context.Context, recs []chunk.Record, tag string) (pipeline.Result, error) {
	return i.pipe.Ship(ctx, recs, tag)
}

// Ledger returns the instance's ledger (nil when Ledger_Path is none).
func (i *Instance) Ledger() *ledger.Ledger { return i.ledger }

// ShipSynthetic ships entries journalship writes itself (the finalizer's
// truncated-tail markers, file summaries) through the instance's pipeline.
func (i *Instance) ShipSynthetic(ctx context.Context, entries []pipeline.Synthetic) error {
	return i.pipe.ShipSynthetic(ctx, entries)
}

// RedactLine is the pipeline's RedactLine: line with its secrets replaced.
func (i *Instance) RedactLine(path string, line []byte) []byte { return i.pipe.RedactLine(path, line) }

// Format returns the journal format of the file at path, as the pipeline
// detects it.
func (i *Instance) Format(path string) format.Format { return i.pipe.Format(path) }

// PathError is a file setting (Ledger_Path, Dead_Letter_Path) whose file
// cannot be opened; its message names the setting and its CLI flag, so a
// bare "permission denied" under /var/lib/journalship says what to change.
type PathError struct {
	Setting string // "Ledger_Path"
	Path    string
	Err     error
}

func (e *PathError) Error() string {
	return fmt.Sprintf("setting %s: %v; set %s (the CLI's --%s) to a file this user can create and write",
		e.Setting, e.Err, e.Setting, FlagName(e.Setting))
}

func (e *PathError) Unwrap() error { return e.Err }

// unusablePath wraps a failure to open the file of setting as a *PathError.
func unusablePath(setting, path string, err error) error {
	return &PathError{Setting: setting, Path: path, Err: err}
}
