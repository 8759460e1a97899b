package loki

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/klauspost/compress/s2"
)

// segment is the entries [lo, hi) of stream s inside one request; size is
// the length of its protobuf Stream message.
type segment struct{ s, lo, hi, size int }

// request is segs[first:end] of the plan, size bytes of protobuf.
type request struct {
	first, end, size, entries int
	tenant                    string // of every stream of the request
}

// encoder holds the buffers reused from one push to the next.
type encoder struct {
	segs []segment
	reqs []request
	raw  []byte // protobuf of the current request
	comp []byte // snappy of raw
}

// sov is the length of the protobuf varint encoding of x.
func sov(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// field is the size of a length-delimited protobuf field with n bytes.
func field(n int) int { return 1 + sov(uint64(n)) + n }

// plan splits the batch into requests of at most limit bytes of protobuf
// (push.PushRequest, Format empty, Stream.Hash zero). Streams keep their
// order, entries keep their order within a stream; a stream spanning two
// requests appears once in each. An entry larger than limit on its own gets
// a request of its own. Unless multi is set, each request carries one
// stream (see Config.MultiStreamRequests).
func (b *Batch) plan(limit int, multi bool) []request {
	e := &b.enc
	e.segs, e.reqs = e.segs[:0], e.reqs[:0]
	cur := request{}
	for si := range b.streams {
		s := &b.streams[si]
		if (!multi || s.tenant != cur.tenant) && cur.entries > 0 {
			cur.end = len(e.segs)
			e.reqs = append(e.reqs, cur)
			cur = request{first: len(e.segs)}
		}
		cur.tenant = s.tenant
		head := field(len(s.key))
		lo, segSize := 0, head
		for ei := range s.entries {
			ec := field(s.sizes[ei])
			if cur.size+field(segSize+ec) > limit && (cur.entries > 0 || ei > lo) {
				if ei > lo {
					e.segs = append(e.segs, segment{si, lo, ei, segSize})
					cur.size += field(segSize)
					cur.entries += ei - lo
				}
				cur.end = len(e.segs)
				e.reqs = append(e.reqs, cur)
				cur = request{first: len(e.segs), tenant: s.tenant}
				lo, segSize = ei, head
			}
			segSize += ec
		}
		if len(s.entries) > lo {
			e.segs = append(e.segs, segment{si, lo, len(s.entries), segSize})
			cur.size += field(segSize)
			cur.entries += len(s.entries) - lo
		}
	}
	if cur.entries > 0 {
		cur.end = len(e.segs)
		e.reqs = append(e.reqs, cur)
	}
	return e.reqs
}

// encode marshals request r of the last plan and compresses it. The returned
// slices are owned by the batch and valid until the next encode or Reset.
// It writes the sizes the plan computed (see wire.go).
func (b *Batch) encode(r request) (raw, compressed []byte, err error) {
	e := &b.enc
	if cap(e.raw) < r.size {
		e.raw = make([]byte, 0, r.size)
	}
	e.raw = e.raw[:0]
	for _, sg := range e.segs[r.first:r.end] {
		e.raw = appendStream(e.raw, &b.streams[sg.s], sg.lo, sg.hi, sg.size)
	}
	n := len(e.raw)
	if n != r.size {
		return nil, nil, fmt.Errorf("loki: marshal push request: planned %d bytes, wrote %d", r.size, n)
	}
	if m := s2.MaxEncodedLen(n); cap(e.comp) < m {
		e.comp = make([]byte, m)
	}
	// s2's snappy-compatible encoder writes standard snappy blocks (what
	// Loki decodes) a good deal faster than golang/snappy.
	e.comp = s2.EncodeSnappy(e.comp[:cap(e.comp)], e.raw)
	return e.raw, e.comp, nil
}

// Encode plans the batch as Push does and calls fn with each request's
// snappy-compressed protobuf body, exactly as it would be sent. The body is
// valid only during the call. It lets benchmarks and tools measure or store
// what Push would send without a Loki.
func (b *Batch) Encode(limit int, multi bool, fn func(compressed []byte) error) error {
	for _, r := range b.plan(limit, multi) {
		_, comp, err := b.encode(r)
		if err != nil {
			return err
		}
		if err := fn(comp); err != nil {
			return err
		}
	}
	return nil
}

// requestRefs calls f for every entry of request r in wire order, with its
// stream and position.
func (b *Batch) requestEntries(r request, f func(s *stream, i int)) {
	for _, sg := range b.enc.segs[r.first:r.end] {
		s := &b.streams[sg.s]
		for i := sg.lo; i < sg.hi; i++ {
			f(s, i)
		}
	}
}

// subBatch returns a new batch of the entries of request r of the last
// plan, with their labels, metadata and refs.
func (b *Batch) subBatch(r request) *Batch {
	out := NewBatch()
	b.requestEntries(r, func(s *stream, i int) { out.copyEntry(s, i) })
	return out
}

// copyEntry adds entry i of stream s (of another batch) to b, with its
// labels, metadata and ref.
func (b *Batch) copyEntry(s *stream, i int) {
	e := &s.entries[i]
	md := make([]Label, len(e.StructuredMetadata))
	for j, l := range e.StructuredMetadata {
		md[j] = Label(l)
	}
	labels := s.labels
	if s.tenant != "" {
		labels = append(slices.Clip(labels), Label{Name: TenantLabel, Value: s.tenant})
	}
	// The labels and entry were accepted by Add before: no error.
	_ = b.Add(labels, Entry{Timestamp: e.Timestamp, Line: e.Line, Metadata: md, Ref: s.refs[i]})
}
