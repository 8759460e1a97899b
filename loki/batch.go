package loki

import (
	"time"
)

// Entry is one log entry. Line must be the journal line byte for byte. Ref is
// the caller's index, echoed back in rejections.
type Entry struct {
	Timestamp time.Time
	Line      string
	// Metadata is the entry's structured metadata, sent in the given order.
	// Loki renames names that are not [a-zA-Z0-9_] (session.id becomes
	// session_id) when it stores them.
	Metadata []Label
	Ref      int
}

// Timestamps Loki's protobuf timestamp can carry: [0001-01-01, 10000-01-01).
var (
	minTimestamp = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTimestamp = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Batch groups entries into streams by their label set. It is reused between
// flushes (Reset) so steady state allocates nothing per entry. The strings
// given to Add (labels, lines, metadata) are kept, not copied, until Reset.
// A Batch is not safe for concurrent use.
type Batch struct {
	streams []stream       // streams in first-seen order; cap kept by Reset
	index   map[string]int // canonical label string -> position in streams
	n       int            // number of entries
	sorted  []Label        // scratch: the label set being added, sorted
	key     []byte         // scratch: its canonical string
	tenant  string         // scratch: its TenantLabel's value
	// bySlice remembers the stream of each label slice added: callers that
	// pass the same (unchanged) slice again skip sorting and keying.
	bySlice map[*Label]sliceStream
	meta    []Label
	enc     encoder
}

// pushEntry is an entry as a push request carries it (Loki's push.Entry):
// its metadata is a slice of the batch's.
type pushEntry struct {
	Timestamp          time.Time
	Line               string
	StructuredMetadata []Label
}

// stream is one label set and its entries, in the order they were added.
type stream struct {
	key     string // canonical labels string, sent as the stream's labels
	tenant  string // the stream's tenant (TenantLabel); "" for Config.TenantID
	id      string // key, then NUL and tenant when there is one: its index key
	labels  []Label
	entries []pushEntry
	sizes   []int // each entry's protobuf length (entrySize)
	refs    []int
}

// NewBatch returns an empty batch. The zero Batch is usable too.
func NewBatch() *Batch { return &Batch{} }

// Reset empties the batch and keeps its memory for the next flush.
func (b *Batch) Reset() {
	for i := range b.streams {
		s := &b.streams[i]
		clear(s.entries) // drop references to the previous lines
		s.entries, s.sizes, s.refs = s.entries[:0], s.sizes[:0], s.refs[:0]
	}
	b.streams = b.streams[:0]
	clear(b.index)
	clear(b.bySlice)
	clear(b.meta)
	b.meta = b.meta[:0]
	b.n = 0
}

// Len returns the number of entries added since the last Reset.
func (b *Batch) Len() int { return b.n }

// Refs returns the Refs of every entry, stream by stream.
func (b *Batch) Refs() []int {
	out := make([]int, 0, b.n)
	for i := range b.streams {
		out = append(out, b.streams[i].refs...)
	}
	return out
}

// Streams returns the number of distinct label sets in the batch.
func (b *Batch) Streams() int { return len(b.streams) }

// Add appends e to the stream of labels (any order; labels with an empty
// value are dropped as Loki does). The labels slice must not change until
// Reset: passing the same slice again reuses its stream without re-keying. It returns an *InputError, and adds
// nothing, for input Loki would refuse for the whole request: no label, an
// empty or non-UTF-8 label name, a duplicate label name, a non-UTF-8 value, a
// structured-metadata name Loki cannot normalise, or a zero timestamp or one
// outside [0001-01-01, 10000-01-01).
func (b *Batch) Add(labels []Label, e Entry) error {
	if err := checkEntry(e); err != nil {
		return err
	}
	i, err := b.streamOf(labels, e.Ref)
	if err != nil {
		return err
	}
	s := &b.streams[i]
	pe := pushEntry{Timestamp: e.Timestamp, Line: e.Line}
	if len(e.Metadata) > 0 {
		start := len(b.meta)
		for _, m := range e.Metadata {
			b.meta = append(b.meta, Label{Name: m.Name, Value: m.Value})
		}
		pe.StructuredMetadata = b.meta[start:len(b.meta):len(b.meta)]
	}
	s.entries = append(s.entries, pe)
	s.sizes = append(s.sizes, entrySize(&pe))
	s.refs = append(s.refs, e.Ref)
	b.n++
	return nil
}

// streamOf returns the position of the stream of labels, creating it.
func (b *Batch) streamOf(labels []Label, ref int) (int, error) {
	if len(labels) > 0 {
		if ss, ok := b.bySlice[&labels[0]]; ok && ss.n == len(labels) {
			return ss.i, nil
		}
	}
	if err := b.sortLabels(labels, ref); err != nil {
		return 0, err
	}
	b.key = appendLabelsString(b.key[:0], b.sorted)
	if b.tenant != "" {
		b.key = append(append(b.key, 0), b.tenant...) // cut off in newStream
	}
	i, ok := b.index[string(b.key)]
	if !ok {
		i = b.newStream()
	}
	if len(labels) > 0 {
		if b.bySlice == nil {
			b.bySlice = make(map[*Label]sliceStream)
		}
		b.bySlice[&labels[0]] = sliceStream{n: len(labels), i: i}
	}
	return i, nil
}

// sliceStream is the stream of a label slice of n labels.
type sliceStream struct{ n, i int }

// sortLabels copies labels without empty values into b.sorted, sorted, and
// checks them.
func (b *Batch) sortLabels(labels []Label, ref int) error {
	b.sorted, b.tenant = b.sorted[:0], ""
	for i, l := range labels {
		if l.Name == TenantLabel {
			if msg := TenantProblem(l.Value); msg != "" {
				return &InputError{Ref: ref, Field: "labels[" + itoa(i) + "].value", Msg: msg}
			}
			b.tenant = l.Value
			continue
		}
		if field, msg := checkStreamLabel(l); msg != "" {
			return &InputError{Ref: ref, Field: "labels[" + itoa(i) + "]." + field, Msg: msg}
		}
		if l.Value != "" {
			b.sorted = append(b.sorted, l)
		}
	}
	if len(b.sorted) == 0 {
		return &InputError{Ref: ref, Field: "labels", Msg: "at least one label with a value is required"}
	}
	sortLabels(b.sorted)
	for i := 1; i < len(b.sorted); i++ {
		if b.sorted[i].Name == b.sorted[i-1].Name {
			return &InputError{Ref: ref, Field: "labels", Msg: "duplicate label name " + quote(b.sorted[i].Name)}
		}
	}
	return nil
}

func checkEntry(e Entry) error {
	if e.Timestamp.IsZero() {
		return &InputError{Ref: e.Ref, Field: "timestamp", Msg: "zero timestamp"}
	}
	if e.Timestamp.Before(minTimestamp) || !e.Timestamp.Before(maxTimestamp) {
		return &InputError{Ref: e.Ref, Field: "timestamp", Msg: "outside [0001-01-01, 10000-01-01): " + e.Timestamp.String()}
	}
	for i, m := range e.Metadata {
		if msg := checkMetadataName(m.Name); msg != "" {
			return &InputError{Ref: e.Ref, Field: "metadata[" + itoa(i) + "].name", Msg: msg}
		}
	}
	return nil
}

// newStream appends a stream for b.key/b.sorted, reusing the memory of a
// stream of an earlier flush when there is one.
func (b *Batch) newStream() int {
	if b.index == nil {
		b.index = make(map[string]int)
	}
	i := len(b.streams)
	if i < cap(b.streams) {
		b.streams = b.streams[:i+1]
	} else {
		b.streams = append(b.streams, stream{})
	}
	s := &b.streams[i]
	if s.id != string(b.key) {
		s.id, s.key, s.tenant = string(b.key), string(b.key), b.tenant
		if b.tenant != "" {
			s.key = s.id[:len(s.id)-len(b.tenant)-1]
		}
		s.labels = append(s.labels[:0], b.sorted...)
	}
	b.index[s.id] = i
	return i
}
