package loki

import (
	"encoding/binary"
	"time"
)

// The push request is written here by hand, forward, in one pass: gogo's
// generated code writes backward and needs every message's size first, so
// each entry was sized when planned and sized again, with its timestamp
// converted twice, when written. An entry's size is computed once, in Add;
// the bytes are exactly push.PushRequest.Marshal's (TestEncodeWritesWhatGogoWrites).

// Protobuf tags (field number << 3 | wire type) of the messages written.
const (
	tagStreams   = 1<<3 | 2 // PushRequest.streams
	tagLabels    = 1<<3 | 2 // Stream.labels
	tagEntries   = 2<<3 | 2 // Stream.entries
	tagTimestamp = 1<<3 | 2 // Entry.timestamp
	tagLine      = 2<<3 | 2 // Entry.line
	tagMetadata  = 3<<3 | 2 // Entry.structuredMetadata
	tagName      = 1<<3 | 2 // LabelPair.name
	tagValue     = 2<<3 | 2 // LabelPair.value
	tagSeconds   = 1<<3 | 0 // google.protobuf.Timestamp.seconds
	tagNanos     = 2<<3 | 0 // google.protobuf.Timestamp.nanos
)

// timestampSize is the length of t's google.protobuf.Timestamp message.
func timestampSize(t time.Time) int {
	n := 0
	if s := t.Unix(); s != 0 {
		n += 1 + sov(uint64(s))
	}
	if ns := t.Nanosecond(); ns != 0 {
		n += 1 + sov(uint64(ns))
	}
	return n
}

// optional is the size of a proto3 string field holding s: nothing when
// s is empty.
func optional(s string) int {
	if s == "" {
		return 0
	}
	return field(len(s))
}

// pairSize is the length of a LabelPair message.
func pairSize(l Label) int { return optional(l.Name) + optional(l.Value) }

// entrySize is the length of e's Entry message.
func entrySize(e *pushEntry) int {
	n := field(timestampSize(e.Timestamp)) + optional(e.Line)
	for _, m := range e.StructuredMetadata {
		n += field(pairSize(m))
	}
	return n
}

// appendString appends a string field, nothing when s is empty.
func appendString(b []byte, tag byte, s string) []byte {
	if s == "" {
		return b
	}
	return append(binary.AppendUvarint(append(b, tag), uint64(len(s))), s...)
}

// appendStream appends a PushRequest.streams field: labels and entries
// [lo, hi) of s, size bytes long.
func appendStream(b []byte, s *stream, lo, hi, size int) []byte {
	b = binary.AppendUvarint(append(b, tagStreams), uint64(size))
	b = appendString(b, tagLabels, s.key)
	for i := lo; i < hi; i++ {
		b = appendEntry(binary.AppendUvarint(append(b, tagEntries), uint64(s.sizes[i])), &s.entries[i])
	}
	return b
}

// appendEntry appends e's Entry message.
func appendEntry(b []byte, e *pushEntry) []byte {
	b = binary.AppendUvarint(append(b, tagTimestamp), uint64(timestampSize(e.Timestamp)))
	if s := e.Timestamp.Unix(); s != 0 {
		b = binary.AppendUvarint(append(b, tagSeconds), uint64(s))
	}
	if ns := e.Timestamp.Nanosecond(); ns != 0 {
		b = binary.AppendUvarint(append(b, tagNanos), uint64(ns))
	}
	b = appendString(b, tagLine, e.Line)
	for _, m := range e.StructuredMetadata {
		b = binary.AppendUvarint(append(b, tagMetadata), uint64(pairSize(m)))
		b = appendString(appendString(b, tagName, m.Name), tagValue, m.Value)
	}
	return b
}
