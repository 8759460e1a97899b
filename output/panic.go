package output

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"os"
	"runtime/debug"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/deadletter"
	"github.com/journalship/journalship/metrics"
)

// A Go panic that reached Fluent Bit's C code would end the whole process,
// every other output of the node with it. Every function Fluent Bit calls
// therefore recovers: the plugin shim wraps its entry points in Guard, and
// NewInstance, Flush and Close recover themselves, because they know what
// to release, which chunk failed and what to answer.

// Entry names a function Fluent Bit calls across the cgo boundary. It is
// the "entry" label of journalship_panics_total.
type Entry string

// The entry points of the plugin, by the Fluent Bit call they serve.
const (
	EntryRegister    Entry = "register"     // FLBPluginRegister
	EntryInit        Entry = "init"         // FLBPluginInit
	EntryFlush       Entry = "flush"        // FLBPluginFlushCtx
	EntryLegacyFlush Entry = "legacy_flush" // FLBPluginFlush
	EntryExit        Entry = "exit"         // FLBPluginExitCtx
	EntryLegacyExit  Entry = "legacy_exit"  // FLBPluginExit
	EntryUnregister  Entry = "unregister"   // FLBPluginUnregister
)

// entries are every Entry, the label values preset at 0.
var entries = []Entry{EntryRegister, EntryInit, EntryFlush, EntryLegacyFlush, EntryExit, EntryLegacyExit, EntryUnregister}

// PanicError is a panic recovered in an entry point that reports errors
// (NewInstance, Close). The panic's stack was logged when it was recovered.
type PanicError struct {
	Entry Entry
	Value any // what was passed to panic
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s panicked: %v", e.Entry, e.Value)
}

// Unwrap returns the panic value when it is an error (a runtime error, an
// error passed to panic).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// panicsBeforeDeadLetter is how many times one chunk (same tag, same bytes)
// may panic in Flush before it is dead-lettered and acknowledged. Each
// panic before that answers Retry, so a panic caused by something passing
// (memory pressure, a state another flush left) gets its retries, while a
// chunk that panics every time neither blocks its input forever nor is
// dropped unseen.
const panicsBeforeDeadLetter = 3

// panicMemory bounds how many panicking chunks an instance remembers: the
// count of the oldest is forgotten when a new one comes, so a poison chunk
// that has not come back in that many other panics starts again at one.
const panicMemory = 1024

// reasonPanic is the dead-letter reason label of a chunk whose flush
// panicked panicsBeforeDeadLetter times (one dead letter per chunk).
const reasonPanic = "panic"

// causePanic is the retries_total cause of a flush that panicked.
const causePanic = "panic"

// Test seams. Tests (and the journalship_panictest build of the plugin)
// set them to inject panics; in production they stay nil, which costs a
// nil check per decoded record and one per NewInstance.
var (
	// recordHook is called with each record as it is decoded in Flush.
	recordHook func(r *chunk.Record)
	// initHook is called by NewInstance once the instance is open.
	initHook func(get Getter)
)

// processLog logs panics of entry points that have no instance.
var processLog = &logger{mu: &stderrMu, w: os.Stderr, level: levelError, name: "output:" + PluginName}

// Guard calls fn, the body of the cgo entry point entry, and returns its
// result. A panic in fn does not reach Fluent Bit: it is logged with its
// stack, counted in journalship_panics_total{entry}, and Guard returns
// onPanic (Fluent Bit's FLB_ERROR for init, FLB_RETRY for a flush).
func Guard(entry Entry, onPanic int, fn func() int) (rc int) {
	defer func() {
		if p := recover(); p != nil {
			logPanic(processLog, entry, p, debug.Stack(), "")
			countPanic(nil, entry)
			rc = onPanic
		}
	}()
	return fn()
}

// logPanic logs a recovered panic, where it happened and its stack.
func logPanic(l *logger, entry Entry, p any, stack []byte, where string) {
	if where != "" {
		where = " " + where
	}
	l.Errorf("%s panicked%s: %v\n%s", entry, where, p, stack)
}

// countPanic counts a recovered panic in set, or in the process-wide set
// of the metrics endpoint when the caller has none (it may not exist yet,
// or any more: the count then goes nowhere, as no endpoint could show it).
func countPanic(set *metrics.Set, entry Entry) {
	if set != nil {
		set.Panics.WithLabelValues(string(entry)).Inc()
		return
	}
	s, err := metrics.Acquire(metrics.Config{}) // no address: starts no endpoint
	if err != nil {
		return
	}
	s.Panics.WithLabelValues(string(entry)).Inc()
	_ = metrics.Release()
}

// recoverInit handles a panic of NewInstance: it logs it, releases what
// inst (nil when the panic came before it existed) had opened and returns
// the error NewInstance answers with.
func recoverInit(inst *Instance, p any) error {
	stack := debug.Stack()
	l, set := processLog, (*metrics.Set)(nil)
	if inst != nil {
		l, set = inst.log, inst.metrics
	}
	logPanic(l, EntryInit, p, stack, "building the instance")
	countPanic(set, EntryInit)
	if inst != nil {
		if err := inst.Close(); err != nil {
			l.Errorf("releasing the instance whose init panicked: %v", err)
		}
	}
	return &PanicError{Entry: EntryInit, Value: p}
}

// presetPanicMetrics creates the series a panic can touch at 0.
func presetPanicMetrics(m *metrics.Set) {
	for _, e := range entries {
		m.Panics.WithLabelValues(string(e))
	}
	m.LinesDeadLettered.WithLabelValues(reasonPanic)
	m.Retries.WithLabelValues(causePanic)
}

// flushSpot is where a flush is, for the report of a panic. It lives on
// Flush's stack: the decoder's callback stores one pointer per record.
type flushSpot struct {
	decoding bool
	recs     []chunk.Record // the records decoded so far
	cur      *chunk.Record  // while decoding: the record being handed over
}

// describe says which records a panicking flush was working on.
func (s *flushSpot) describe() string {
	if s.decoding {
		if s.cur != nil {
			return fmt.Sprintf("while decoding record %d (%s)", s.cur.Index, recordPlace(s.cur))
		}
		return fmt.Sprintf("while decoding, after %d records", len(s.recs))
	}
	switch n := len(s.recs); n {
	case 0:
		return "in a chunk of no records"
	case 1:
		return fmt.Sprintf("while shipping its one record (%s)", recordPlace(&s.recs[0]))
	default:
		return fmt.Sprintf("while shipping its %d records, first %s, last %s", n, recordPlace(&s.recs[0]), recordPlace(&s.recs[n-1]))
	}
}

// recordPlace names a record's file and byte offset.
func recordPlace(r *chunk.Record) string {
	if !r.HasOffset {
		return fmt.Sprintf("file=%q offset=unknown", r.Path)
	}
	return fmt.Sprintf("file=%q offset=%d", r.Path, r.Offset)
}

// recoverFlush answers a flush that panicked with p: Retry the first
// times the chunk panics, then OK once it is in the dead-letter file.
// Anything failing here (a panic included) answers Retry.
func (i *Instance) recoverFlush(p any, stack []byte, data []byte, tag string, spot *flushSpot) (rc int) {
	defer func() {
		if q := recover(); q != nil {
			i.log.Errorf("tag=%s: handling a panic of flush panicked too, asking for a retry: %v\n%s", tag, q, debug.Stack())
			rc = Retry
		}
	}()
	countPanic(i.metrics, EntryFlush)
	key := chunkKey(data, tag)
	n := i.panics.Add(key)
	where := fmt.Sprintf("tag=%s %s; chunk of %d bytes, key %016x, panic %d of %d", tag, spot.describe(), len(data), key, n, panicsBeforeDeadLetter)
	logPanic(i.log, EntryFlush, p, stack, where)
	if n < panicsBeforeDeadLetter {
		i.metrics.Retries.WithLabelValues(causePanic).Inc()
		return Retry
	}
	if err := i.deadLetterPanicked(data, tag, spot, p, n); err != nil {
		i.log.Errorf("tag=%s: cannot dead-letter the chunk that panicked %d times, asking for a retry: %v", tag, n, err)
		i.metrics.Retries.WithLabelValues(causePanic).Inc()
		return Retry
	}
	i.panics.Forget(key)
	i.log.Errorf("tag=%s: chunk %016x panicked %d times: dead-lettered whole (stage %q), acknowledged", tag, key, n, reasonPanic)
	return OK
}

// deadLetterPanicked writes the raw chunk to the dead-letter file, as
// deadLetterRest does with undecodable bytes, under its first record's
// file and offset when it has one.
func (i *Instance) deadLetterPanicked(data []byte, tag string, spot *flushSpot, p any, n int) error {
	e := deadletter.Entry{Time: time.Now(), Line: []byte(base64.StdEncoding.EncodeToString(data)),
		Reason: fmt.Sprintf("flush panicked %d times on this Fluent Bit chunk (line is the base64 of the raw bytes): %v", n, p),
		Stage:  reasonPanic, Tag: tag}
	if len(spot.recs) > 0 {
		first := &spot.recs[0]
		e.File, e.Offset, e.HasOffset = string(first.Path), first.Offset, first.HasOffset
	}
	if err := i.dl.Write([]deadletter.Entry{e}); err != nil {
		return err
	}
	i.metrics.LinesDeadLettered.WithLabelValues(reasonPanic).Inc()
	return nil
}

// chunkKey identifies a chunk across retries: FNV-64a of its tag and bytes.
// It is only computed when a flush panicked.
func chunkKey(data []byte, tag string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(tag))
	h.Write([]byte{0})
	h.Write(data)
	return h.Sum64()
}
