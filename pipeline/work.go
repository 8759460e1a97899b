package pipeline

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/deadletter"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/loki"
	"github.com/journalship/journalship/redact"
)

// annotation kinds, as a bit set per line.
type annot uint32

const (
	aCorrupt annot = 1 << iota
	aSchemaInvalid
	aUnknownType
	aBestEffort
	aDuplicateKey
	aSeqGap
	aSeqRepeat
	aSeqRegression
	aPathMismatch
	aTimestampFallback
	aTimestampRewritten
	aJobIDMismatch
	aModelUnknown
	aPriceUnknown
	aCostDisagrees
	aCountedElsewhere
	aRedacted
	annotCount = iota
)

var annotNames = [annotCount]string{"corrupt", "schema_invalid", "unknown_type", "best_effort",
	"duplicate_key", "seq_gap", "seq_repeat", "seq_regression", "path_mismatch",
	"timestamp_fallback", "timestamp_rewritten", "job_id_mismatch", "model_unknown", "price_unknown",
	"cost_disagrees", "counted_elsewhere", "redacted"}

// item is the pipeline's verdict on one record.
type item struct {
	outcome   integrity.Outcome
	eventType string // the format's event type, "" for an unknown one
	format    string // the file's format
	annots    annot
	note      [format.MaxNotes]string // the format's own annotations
	notes     int
	ts        time.Time
	labels    []loki.Label
	meta      []loki.Label
	model     string
	usage     format.Usage
	cost      float64 // USD, when costModel is set
	costModel string  // the price table entry the cost is attributed to
	tenant    string  // the file's Loki tenant
	// line, when not nil, is the line as shipped: its secrets replaced
	// (redact); redacted counts them by rule.
	line     []byte
	redacted []redact.Finding
	// stated is the cost the line states itself (a run's own estimate),
	// when hasStated; runCost is what journalship computed for the same
	// run, the detail of cost_disagrees.
	stated, runCost float64
	hasStated       bool
	missing         int64 // seqs a gap leaves out
	seq             int64
	hasSeq          bool
	after           integrity.Prev // continuity state after the line: the highest seq so far
	sent            bool           // in the batch
	dlReason        string
	dlClass         dlClass
	rewritten       bool
	// unsettled: the flush failed before Loki answered for the line; it
	// is neither recorded nor counted, and is sent again on retry.
	unsettled bool
	// bill is the billed unit the line counts (format.Event.Bill), 0 when
	// none or when another journal counts it.
	bill uint64
}

// work is the per-Ship state, pooled so that steady state allocates
// nothing per record.
type work struct {
	recs   []chunk.Record
	tag    string
	order  []int
	items  []item
	judges map[format.Format]format.Judge
	arena  *integrity.Arena
	ev     format.Event
	// meta is the block of metadata pairs entries are built in, one of
	// metaBlocks (the first metaUsed are this flush's): an entry's
	// metadata is a slice of a block, so a full block is left as it is.
	meta       []loki.Label
	metaBlocks [][]loki.Label
	metaUsed   int
	batch      loki.Batch
	retry      loki.Batch
	dl         []deadletter.Entry
	segs       []ledger.Segment
	last       []int // for each of segs, the index in recs of its last line
	result     Result
	unver      int
	// lastTS is the time of the nearest line with one before the line
	// starting at tsEnd (-1: none known), in the current file.
	lastTS time.Time
	tsEnd  int64
	now    time.Time // the clock at the start of the Ship
	tally  tally
	ctx    context.Context
	// restamps are the re-stamp bases decided in this flush, written to
	// the ledger before the push.
	restamps []restampDecision
	// claims are the billed units this flush counts first on the node,
	// claimed in the ledger before the push; claimed has their owners.
	claims  []ledger.Bill
	claimed map[uint64]string
	// kept holds the records of a flush the ledger does not hold yet,
	// when it holds some (claim).
	kept []chunk.Record
	// verified has the identities of the files claim found holding the
	// flush's lines, so that the ledger records them without a second
	// check on disk (identify).
	verified map[string]journalfile.Identity
}

// idleWorks bounds the works kept between flushes: one per Fluent Bit
// worker (Workers 2) and a spare.
const idleWorks = 3

// workPool keeps up to idleWorks works between flushes, buffers grown.
// A sync.Pool would not do: the garbage collector empties it, and a
// 2 MB chunk's buffers (its arena, items, metadata and batch, several
// MB) were then allocated again flush after flush, which was most of the
// plugin's allocation and garbage collection inside Fluent Bit.
type workPool chan *work

// get returns an idle work, or a new one.
func (p workPool) get() *work {
	select {
	case w := <-p:
		return w
	default:
		return &work{judges: map[format.Format]format.Judge{}, arena: integrity.NewArena(64 << 10),
			verified: map[string]journalfile.Identity{}}
	}
}

// put keeps w for a later flush unless enough are idle.
func (p workPool) put(w *work) {
	select {
	case p <- w:
	default:
	}
}

// judge returns this work's judge for f, made on first use.
func (w *work) judge(f format.Format) format.Judge {
	j, ok := w.judges[f]
	if !ok {
		j = f.NewJudge()
		w.judges[f] = j
	}
	return j
}

func (w *work) reset(recs []chunk.Record, tag string) {
	w.recs, w.tag = recs, tag
	w.order = w.order[:0]
	for i := range recs {
		w.order = append(w.order, i)
	}
	w.items = slices.Grow(w.items[:0], len(recs))[:len(recs)]
	clear(w.items)
	size := 0
	for i := range recs {
		size += len(recs[i].Line) + len(recs[i].Path) + 64
	}
	w.arena.Reset(size)
	w.meta, w.metaUsed = nil, 0
	w.batch.Reset()
	w.restamps = w.restamps[:0]
	w.claims = w.claims[:0]
	clear(w.claimed)
	w.retry.Reset()
	w.dl, w.segs, w.last = w.dl[:0], w.segs[:0], w.last[:0]
	w.result, w.unver = Result{Lines: len(recs)}, 0
	slices.SortStableFunc(w.order, func(a, b int) int {
		ra, rb := &recs[a], &recs[b]
		if c := bytes.Compare(ra.Path, rb.Path); c != 0 {
			return c
		}
		switch {
		case !ra.HasOffset || !rb.HasOffset:
			return 0
		case ra.Offset < rb.Offset:
			return -1
		case ra.Offset > rb.Offset:
			return 1
		}
		return 0
	})
}

// metaBlock is how many metadata pairs one block holds: about a hundred
// entries' worth. Blocks, rather than one array sized for the worst case
// of every record, keep a 2 MB chunk's metadata at what it uses.
const metaBlock = 4096

// startMeta begins one entry's metadata, in a new block when the current
// one might not hold maxMeta more pairs.
func (w *work) startMeta() meta {
	if cap(w.meta)-len(w.meta) < maxMeta {
		if w.metaUsed == len(w.metaBlocks) {
			w.metaBlocks = append(w.metaBlocks, make([]loki.Label, 0, metaBlock))
		}
		w.meta = w.metaBlocks[w.metaUsed][:0]
		w.metaUsed++
	}
	return meta{w: w, start: len(w.meta)}
}

// groups calls fn for each run of records of one file, in offset order.
func (w *work) groups(fn func(path []byte, idx []int)) {
	for start := 0; start < len(w.order); {
		path := w.recs[w.order[start]].Path
		end := start + 1
		for end < len(w.order) && bytes.Equal(w.recs[w.order[end]].Path, path) {
			end++
		}
		fn(path, w.order[start:end])
		start = end
	}
}

// unsettle marks the item of Ref ref unsettled.
func (w *work) unsettle(ref int) {
	if ref >= 0 && ref < len(w.items) {
		w.items[ref].unsettled, w.items[ref].sent = true, false
	}
}

// settledAny tells whether some line of the flush is settled: stored by
// Loki or dead-lettered.
func (w *work) settledAny() bool {
	for i := range w.items {
		if !w.items[i].unsettled {
			return true
		}
	}
	return false
}

func (w *work) deadLetter(i int, class dlClass, reason string) {
	it := &w.items[i]
	it.dlClass, it.dlReason = class, reason
	r := &w.recs[i]
	w.dl = append(w.dl, deadletter.Entry{Time: r.Time, File: string(r.Path), Offset: r.Offset,
		HasOffset: r.HasOffset, Line: shipped(it, r), Reason: reason, Stage: class.stage, Tag: w.tag})
}

// dlClass is why a line was dead-lettered, as a bounded label value (the
// reason label of lines_dead_lettered_total), with the stage that refused
// it (the dead-letter entry's stage field).
type dlClass struct{ stage, name string }

// Dead-letter classes.
var (
	dlUndecodable   = dlClass{"decode", "undecodable_record"} // a record without a line (Fluent Bit chunk)
	dlTooLong       = dlClass{"pipeline", "line_too_long"}    // over Max_Line_Bytes
	dlOutsideWindow = dlClass{"pipeline", "outside_window"}   // Old_Entries dead_letter
	dlUnencodable   = dlClass{"pipeline", "unencodable"}      // the entry cannot be put in a push request
	dlLokiRejected  = dlClass{"loki", "loki_rejected"}        // Loki refused it for good (400)
	dlNoTenant      = dlClass{"pipeline", "no_tenant"}        // no tenant rule places its file (Tenant_Fallback unset)
)

// DeadLetterReasons are the reason label values of lines_dead_lettered_total
// that the pipeline uses.
var DeadLetterReasons = []string{dlUndecodable.name, dlTooLong.name, dlOutsideWindow.name,
	dlUnencodable.name, dlLokiRejected.name, dlNoTenant.name}
