package pipeline

import (
	"github.com/journalship/journalship/chunk"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/loki"
)

// maxMeta bounds the metadata pairs of one entry: every key plus the
// annotation details.
const maxMeta = 40

// Metadata keys for annotation details; always structured metadata.
const (
	mdViolations        = "violations"
	mdCorruptReason     = "corrupt_reason"
	mdSeqGap            = "seq_gap"
	mdSeqRepeat         = "seq_repeat"
	mdSeqRegression     = "seq_regression"
	mdPathProblem       = "path_problem"
	mdOriginalTimestamp = "original_timestamp"
	mdEventType         = "event_type_name" // an unknown type's own name
	mdCostUSD           = "cost_usd"        // an LLM_RESPONSE's tokens at the price table's prices
	mdCostModel         = "cost_model"      // the price table entry cost_usd is attributed to
	// mdReportedCost is the cost a line states itself (a Claude Code
	// result's total_cost_usd): shipped, never summed with cost_usd, which
	// already counts the run's responses.
	mdReportedCost = "reported_cost_usd"
	mdCostComputed = "cost_disagrees" // what journalship computed for the run a reported cost disagrees with
)

// eventTypeValue is the bounded event_type label: the format's types,
// "other" for unknown ones and "corrupt" for lines without a readable type.
func eventTypeValue(it *item) string {
	switch {
	case it.outcome == integrity.Corrupt:
		return "corrupt"
	case it.eventType == "":
		return "other"
	}
	return it.eventType
}

// labelSets caches the label slice for each combination of the varying
// bounded label values, so building an entry's labels allocates nothing.
type labelSets struct {
	layout []Key
	static []loki.Label
	node   string
	mu     sync.Mutex
	m      map[[5]string][]loki.Label
}

func newLabelSets(cfg Config) *labelSets {
	ls := &labelSets{layout: cfg.Layout.Labels, node: cfg.Enrich.Node, m: map[[5]string][]loki.Label{}}
	for k, v := range cfg.Enrich.Static {
		ls.static = append(ls.static, loki.Label{Name: k, Value: v})
	}
	slices.SortFunc(ls.static, func(a, b loki.Label) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	return ls
}

// get returns the labels of a stream; a tenant ("" for Config.Tenants'
// default) is carried in loki.TenantLabel.
func (ls *labelSets) get(tenant, fmtName, eventType, integ, version string) []loki.Label {
	key := [5]string{tenant, fmtName, eventType, integ, version}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l, ok := ls.m[key]; ok {
		return l
	}
	l := slices.Clone(ls.static)
	for _, k := range ls.layout {
		switch k {
		case KeyEventType:
			l = append(l, loki.Label{Name: string(k), Value: eventType})
		case KeyNode:
			l = append(l, loki.Label{Name: string(k), Value: ls.node})
		case KeyIntegrity:
			l = append(l, loki.Label{Name: string(k), Value: integ})
		case KeySchemaVersion:
			l = append(l, loki.Label{Name: string(k), Value: version})
		case KeyFormat:
			l = append(l, loki.Label{Name: string(k), Value: fmtName})
		}
	}
	if tenant != "" {
		l = append(l, loki.Label{Name: loki.TenantLabel, Value: tenant})
	}
	ls.m[key] = l
	return l
}

// meta builds one entry's structured metadata in w.meta.
type meta struct {
	w     *work
	start int
}

func (m *meta) add(name, value string) {
	if value != "" {
		m.w.meta = append(m.w.meta, loki.Label{Name: name, Value: value})
	}
}

func (m *meta) addBytes(name string, b []byte) {
	if len(b) > 0 {
		m.add(name, unsafe.String(&b[0], len(b)))
	}
}

// addTime adds t in RFC 3339 with nanoseconds, formatted into the arena
// (no allocation per re-stamped line).
func (m *meta) addTime(name string, t time.Time) {
	var scratch [40]byte
	m.addBytes(name, m.w.arena.Copy(t.AppendFormat(scratch[:0], time.RFC3339Nano)))
}

func (m *meta) addInt(name string, n int64) {
	var scratch [20]byte
	m.addBytes(name, m.w.arena.Copy(strconv.AppendInt(scratch[:0], n, 10)))
}

func (m *meta) done() []loki.Label {
	return m.w.meta[m.start:len(m.w.meta):len(m.w.meta)]
}

// buildEntry adds record i to the batch with its labels and metadata.
func (p *Pipeline) buildEntry(w *work, f *fileState, i int, j integrity.Judgement) {
	r, it, ev := &w.recs[i], &w.items[i], &w.ev
	it.ts = ev.Time
	if !ev.HasTime {
		var before time.Time
		it.ts, before = p.fallbackTime(w, f, i)
		it.annots |= aTimestampFallback
		// The next line finds the same time before it: a line's own, or
		// none (zero), never a time made up for this one.
		w.lastTS, w.tsEnd = before, endOf(r)
	}
	if f.path.Problem != "" {
		it.annots |= aPathMismatch
	}
	if f.path.JobID != "" && len(ev.JobID) > 0 && string(ev.JobID) != f.path.JobID {
		it.annots |= aJobIDMismatch
	}
	if f.unplaced != "" {
		p.withdraw(f, it)
		w.deadLetter(i, dlNoTenant, f.unplaced)
		return
	}
	it.labels = p.labelSet.get(f.tenant, it.format, eventTypeValue(it), it.outcome.String(), p.versionValue(f))
	stamp, reason, outside := p.window(w, f, i)
	if outside && p.cfg.OldEntries == DeadLetter {
		p.withdraw(f, it) // it counts nothing: the response's next line ships it
		w.deadLetter(i, dlOutsideWindow, reason)
		return
	}
	if ev.Bill != 0 && it.usage.Has {
		// Only a line that is sent claims its response; after accrue, so a
		// run's own cost is compared with all it used.
		p.bill(w, r, it, ev.Bill)
	}
	m := w.startMeta()
	p.addKeys(&m, f, i, ev)
	p.addDetails(&m, f, i, ev, j)
	if outside {
		m.addTime(mdOriginalTimestamp, it.ts)
		it.ts, it.annots, it.rewritten = stamp, it.annots|aTimestampRewritten, true
	}
	m.add(string(KeyAnnotations), annotList(w, it))
	it.meta = m.done()
	if len(it.redacted) > 0 {
		redactMeta(it.meta, r.Line, it.redacted)
	}
	p.addToBatch(w, i)
}

// window tells whether Loki would refuse item i's time (see judgeTime).
// Then it returns the time to stamp the entry with under Old_Entries
// rewrite (see restamp) and the reason to dead-letter it with otherwise.
func (p *Pipeline) window(w *work, f *fileState, i int) (stamp time.Time, reason string, outside bool) {
	it := &w.items[i]
	// One clock reading per Ship; a record's index keeps re-stamped
	// entries in file order within the flush.
	now := w.now.Add(time.Duration(i))
	need, cut, why := p.judgeTime(it.labels, it.ts, now)
	switch {
	case why == timeAccepted:
		return time.Time{}, "", false
	case p.cfg.OldEntries == DeadLetter:
		return time.Time{}, why.reason(it.ts, cut), true
	}
	stamp = p.restamp(w, f, i, need)
	p.behind.admit(it.labels, stamp)
	return stamp, "", true
}

// timeRefusal is why Loki would refuse an entry for its time.
type timeRefusal int

const (
	timeAccepted timeRefusal = iota
	timeOutside              // older than Max_Entry_Age or newer than Max_Future_Skew
	timeBehind               // too far behind its stream's newest entry
)

// judgeTime judges an entry of stream labels at t, at the clock reading
// now. An entry Loki accepts counts towards its stream's newest time. One
// it would refuse gets need, the time to stamp it with instead: about now
// when too old or too new; when too far behind (cut being its stream's
// cutoff), a time no stream refuses for a while (behind.stamp), well
// behind now. It may still move its stream's newest time (window admits
// the stamp, as Loki counts the stored entry): an entry of the stream
// over Max_Behind older than the stamp, later in the flush, would be
// refused by Loki, and is re-stamped too.
func (p *Pipeline) judgeTime(labels []loki.Label, t, now time.Time) (need, cut time.Time, why timeRefusal) {
	if p.outsideWindow(t, now) {
		return now, time.Time{}, timeOutside
	}
	if ok, cut := p.behind.admit(labels, t); !ok {
		return p.behind.stamp(now, p.cfg.MaxFutureSkew), cut, timeBehind
	}
	return time.Time{}, time.Time{}, timeAccepted
}

// reason is the dead-letter reason of an entry at t refused for why.
func (why timeRefusal) reason(t, cut time.Time) string {
	if why == timeBehind {
		return behindReason(t, cut)
	}
	return outsideReason(t)
}

func (p *Pipeline) versionValue(f *fileState) string {
	if !f.hasVersion {
		return "unknown"
	}
	return strconv.FormatInt(f.schemaVersion, 10)
}

func (p *Pipeline) addToBatch(w *work, i int) {
	it, r := &w.items[i], &w.recs[i]
	line := shipped(it, r)
	e := loki.Entry{Timestamp: it.ts, Line: unsafe.String(unsafe.SliceData(line), len(line)), Metadata: it.meta, Ref: i}
	if err := w.batch.Add(it.labels, e); err != nil {
		w.deadLetter(i, dlUnencodable, err.Error())
		return
	}
	it.sent = true
}

// addKeys adds the layout's metadata keys.
func (p *Pipeline) addKeys(m *meta, f *fileState, i int, ev *format.Event) {
	it, r := &m.w.items[i], &m.w.recs[i]
	for _, k := range p.cfg.Layout.Metadata {
		switch k {
		case KeyJobID:
			if len(ev.JobID) > 0 {
				m.addBytes(string(k), ev.JobID)
			} else {
				m.add(string(k), f.path.JobID)
			}
		case KeySessionID:
			// A line without its own (a torn write) stays in its
			// session's audit trail through the file's SESSION_START.
			switch {
			case len(ev.SessionID) > 0:
				m.addBytes(string(k), ev.SessionID)
			case f.sessionID != "":
				m.add(string(k), f.sessionID)
			default:
				m.add(string(k), f.path.SessionID) // the file name's (OrbitMesh)
			}
		case KeySeq:
			if ev.HasSeq {
				m.addInt(string(k), ev.Seq)
			}
		case KeyPod:
			m.add(string(k), f.path.Pod)
		case KeyAgentID:
			// The line's own (a Claude Code subagent's lines), else the
			// session start's, else the file name's.
			switch {
			case len(ev.AgentID) > 0:
				m.addBytes(string(k), ev.AgentID)
			case f.agentID != "":
				m.add(string(k), f.agentID)
			default:
				m.add(string(k), f.path.AgentID)
			}
		case KeyModel:
			m.add(string(k), it.model)
		case KeyStepIndex:
			if ev.HasPair {
				m.addInt(string(k), ev.Pair)
			}
		case KeyInvocationID:
			m.addBytes(string(k), ev.ToolCallID)
		case KeyToolName:
			m.addBytes(string(k), ev.ToolName)
		case KeySessionStart:
			m.add(string(k), f.sessionStart)
		case KeySchemaVersion:
			m.add(string(k), p.versionValue(f))
		case KeyEventType:
			m.add(string(k), eventTypeValue(it))
		case KeyNode:
			m.add(string(k), p.cfg.Enrich.Node)
		case KeyIntegrity:
			m.add(string(k), it.outcome.String())
		case KeyFile:
			m.addBytes(string(k), r.Path)
		case KeyOffset:
			if r.HasOffset {
				m.addInt(string(k), r.Offset)
			}
		default:
			p.addSharedKey(m, k, f, it, ev)
		}
	}
}

// addSharedKey adds the keys whose meaning every format shares: run,
// format, derived state and token usage.
func (p *Pipeline) addSharedKey(m *meta, k Key, f *fileState, it *item, ev *format.Event) {
	switch k {
	case KeyRunID:
		if len(ev.RunID) > 0 {
			m.addBytes(string(k), ev.RunID)
		} else {
			m.add(string(k), f.path.RunID)
		}
	case KeyFormat:
		m.add(string(k), it.format)
	case KeyState:
		m.add(string(k), ev.State)
	case KeyRole:
		if it.outcome != integrity.Corrupt { // a corrupt line has no role
			m.add(string(k), ev.Role.String())
		}
	case KeyEndReason:
		if ev.Ends && it.outcome != integrity.Corrupt {
			m.addBytes(string(k), ev.EndReason)
		}
	case KeyTokensIn, KeyTokensOut, KeyTokensCacheRead, KeyTokensCacheWrite:
		if !it.usage.Has {
			return
		}
		n := it.usage.Input
		switch k {
		case KeyTokensOut:
			n = it.usage.Output
		case KeyTokensCacheRead:
			n = it.usage.CacheRead
		case KeyTokensCacheWrite:
			n = it.usage.CacheWrite
		}
		if n != 0 || k == KeyTokensIn || k == KeyTokensOut {
			m.addInt(string(k), n) // no cache key for a format without caches
		}
	}
}

// addDetails adds the annotation details.
func (p *Pipeline) addDetails(m *meta, f *fileState, i int, ev *format.Event, j integrity.Judgement) {
	it := &m.w.items[i]
	if it.outcome == integrity.Corrupt {
		m.add(mdCorruptReason, ev.CorruptReason)
	}
	if len(ev.Violations) > 0 {
		m.add(mdViolations, integrity.ViolationText(ev.Violations))
	}
	if it.costModel != "" {
		var scratch [32]byte
		m.addBytes(mdCostUSD, m.w.arena.Copy(formatUSD(scratch[:0], it.cost)))
		m.add(mdCostModel, it.costModel)
	}
	if it.hasStated {
		var scratch [32]byte
		m.addBytes(mdReportedCost, m.w.arena.Copy(formatUSD(scratch[:0], it.stated)))
		if it.annots&aCostDisagrees != 0 {
			m.addBytes(mdCostComputed, m.w.arena.Copy(formatUSD(scratch[:0], it.runCost)))
		}
	}
	if it.annots&aUnknownType != 0 {
		m.addBytes(mdEventType, ev.TypeName)
	}
	if f.path.Problem != "" {
		m.add(mdPathProblem, f.path.Problem)
	}
	if j.Verdict == integrity.SeqGap || j.Verdict == integrity.SeqRepeat || j.Verdict == integrity.SeqRegression {
		var scratch [48]byte
		m.addBytes(j.Verdict.String(), m.w.arena.Copy(j.Detail(scratch[:0])))
	}
	for _, n := range ev.Notes[:ev.NoteCount] {
		m.addBytes(n.Kind, n.Detail)
	}
	if len(it.redacted) > 0 {
		m.add(mdRedacted, redactedDetail(it.redacted))
	}
}

// annotList renders the annotation kinds, the format's own last, as
// "a,b,c" in the arena.
func annotList(w *work, it *item) string {
	a := it.annots
	if a == 0 && it.notes == 0 {
		return ""
	}
	var scratch [256]byte
	b := scratch[:0]
	for k := range annotCount {
		if a&(1<<k) != 0 {
			if len(b) > 0 {
				b = append(b, ',')
			}
			b = append(b, annotNames[k]...)
		}
	}
	for _, n := range it.note[:it.notes] {
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(b, n...)
	}
	c := w.arena.Copy(b)
	return unsafe.String(&c[0], len(c))
}

// formatUSD renders dollars as a plain decimal, rounded to a billionth of a
// cent (far below any token's price) so float noise does not show.
func formatUSD(b []byte, usd float64) []byte {
	return strconv.AppendFloat(b, math.Round(usd*1e11)/1e11, 'f', -1, 64)
}

// fallbackTime is the time of a line without a readable one: the time of
// the nearest line before it in its file that has one, which keeps it in
// place on its session's timeline and is the same however the file was
// cut into chunks, retried or shipped (plugin, `ship`, the finalizer).
// That line is found in the chunk, in memory of earlier chunks, or read
// back from the file. When none precedes it, the line takes the start the
// file's name states to the second (Cortex Plane's session_<ts>; a date
// alone, Codelia's, says too little), else a time kept in the ledger (see
// restamp) plus the line's offset, the base first chosen as the file's
// modification time: each such line has a time of its own, in file
// order. A record without an offset takes the chunk's previous time,
// else Fluent Bit's read time. before is the time found before the line
// (zero when none is).
func (p *Pipeline) fallbackTime(w *work, f *fileState, i int) (ts, before time.Time) {
	r := &w.recs[i]
	if !r.HasOffset || len(r.Path) == 0 {
		if !w.lastTS.IsZero() {
			return w.lastTS, w.lastTS
		}
		return r.Time, time.Time{}
	}
	known := false
	if d := r.Offset - w.tsEnd; w.tsEnd >= 0 && d >= 0 && d <= 1 {
		before, known = w.lastTS, true
	} else {
		before, known = f.timeBefore(r.Offset)
	}
	if !known && r.Offset > 0 {
		b, err := p.reader.Lookbehind(string(r.Path), r.Offset, r.Line, -1, w.judge(f.format))
		switch {
		case err == nil && b.HasTime:
			before = b.Time
		case err != nil:
			p.deps.Logger.Debugf("file=%s offset=%d: no time before a line without one: %v", r.Path, r.Offset, err)
		}
	}
	if !before.IsZero() {
		return before, before
	}
	if st := f.path.Started; !st.IsZero() && !st.Equal(st.Truncate(24*time.Hour)) && st.Before(r.Time) {
		return st, time.Time{}
	}
	// A file with no time of its own (a Claude Code stream-json capture):
	// the file's base plus the line's offset, the base first chosen as its
	// modification time, which places a capture shipped long after its
	// run with its run, not at the shipping time. Whether Loki takes that
	// time is the window's to judge, as for any line's own time.
	return p.placed(w, f, i, func() time.Time {
		need := r.Time
		if fi, err := os.Stat(string(r.Path)); err == nil && fi.ModTime().Before(need) {
			need = fi.ModTime()
		}
		return need
	}), time.Time{}
}

// endOf is the offset just past record r's line, -1 without an offset.
func endOf(r *chunk.Record) int64 {
	if !r.HasOffset {
		return -1
	}
	return r.Offset + lineLen(r) + 1
}
