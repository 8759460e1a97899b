package chunk

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/tinylib/msgp/msgp"
)

// Format is a Fluent Bit event layout.
type Format int

const (
	// FormatV2 is [[time, metadata], record] as Fluent Bit 2.1 to 4.x
	// writes it: both arrays with array32 headers (0xdd), metadata and
	// record with map32 headers (0xdf).
	FormatV2 Format = iota
	// FormatV1 is [time, record] as Fluent Bit before 2.1 wrote it: fixarray
	// and the smallest map header.
	FormatV1
	// FormatV2Direct is FormatV2 as Fluent Bit >= 5.0 writes it (the
	// direct-emit path): fixarray headers (0x92 0x92), maps still map32.
	FormatV2Direct
)

// String returns the format's name.
func (f Format) String() string {
	switch f {
	case FormatV2:
		return "v2"
	case FormatV1:
		return "v1"
	case FormatV2Direct:
		return "v2-direct"
	}
	return "Format(" + itoa(int64(f)) + ")"
}

// Field is one key/value of a record or metadata map. Value is one of
// string (msgpack str), []byte (bin), int, int64, uint64, float64, bool, nil
// or msgp.Raw (already-encoded msgpack, copied as is).
type Field struct {
	Key   string
	Value any
}

// Event is one event to encode.
type Event struct {
	// Time is encoded as an EventTime; its seconds must fit in a uint32, as
	// in Fluent Bit (flb_time_is_valid_eventtime).
	Time time.Time
	// IntTime writes integer seconds instead of an EventTime.
	IntTime bool
	// Metadata is the metadata map of the v2 formats (empty for tail).
	Metadata []Field
	// Fields is the record map, in order.
	Fields []Field
}

// AppendEvent appends ev to dst encoded as Fluent Bit encodes it in format f
// (msgpack-c's smallest encodings for strings and integers, non-negative
// integers as unsigned). It panics on an unknown Format or an unsupported
// Field.Value type: both are programming errors.
func AppendEvent(dst []byte, ev Event, f Format) []byte {
	switch f {
	case FormatV1:
		dst = append(dst, 0x92)
		dst = appendTime(dst, ev)
		dst = msgp.AppendMapHeader(dst, uint32(len(ev.Fields)))
		return appendFields(dst, ev.Fields)
	case FormatV2:
		dst = appendArray32(appendArray32(dst, 2), 2)
	case FormatV2Direct:
		dst = append(dst, 0x92, 0x92)
	default:
		panic("chunk: AppendEvent: unknown " + f.String())
	}
	dst = appendTime(dst, ev)
	dst = appendFields(appendMap32(dst, len(ev.Metadata)), ev.Metadata)
	return appendFields(appendMap32(dst, len(ev.Fields)), ev.Fields)
}

// AppendChunk appends every event of evs to dst in format f.
func AppendChunk(dst []byte, f Format, evs ...Event) []byte {
	for _, ev := range evs {
		dst = AppendEvent(dst, ev, f)
	}
	return dst
}

// TailEvent returns the event Fluent Bit's tail input produces for one line
// with Path_Key and Offset_Key set (flb_tail_file_pack_line): path, then
// offset (unsigned), then the line, with an EventTime.
func TailEvent(cfg Config, t time.Time, path string, offset int64, line []byte) Event {
	var off any = offset
	if offset >= 0 {
		off = uint64(offset)
	}
	return Event{Time: t, Fields: []Field{
		{Key: cfg.PathKey, Value: path},
		{Key: cfg.OffsetKey, Value: off},
		{Key: cfg.LogKey, Value: string(line)},
	}}
}

// appendTime writes fixext8 type 0 (flb_time_append_to_msgpack /
// append_forward_v1_timestamp) or msgpack_pack_uint64(seconds).
func appendTime(dst []byte, ev Event) []byte {
	if ev.IntTime {
		return appendInt(dst, ev.Time.Unix())
	}
	dst = append(dst, 0xd7, EventTimeExtension)
	dst = binary.BigEndian.AppendUint32(dst, uint32(ev.Time.Unix()))
	return binary.BigEndian.AppendUint32(dst, uint32(ev.Time.Nanosecond()))
}

func appendArray32(dst []byte, n uint32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, 0xdd), n)
}

func appendMap32(dst []byte, n int) []byte {
	return binary.BigEndian.AppendUint32(append(dst, 0xdf), uint32(n))
}

func appendFields(dst []byte, fields []Field) []byte {
	for _, f := range fields {
		dst = msgp.AppendString(dst, f.Key)
		dst = appendValue(dst, f.Key, f.Value)
	}
	return dst
}

// appendInt packs like msgpack-c's msgpack_pack_int64: non-negative values
// take the smallest unsigned form, negative ones the smallest signed form.
func appendInt(dst []byte, i int64) []byte {
	if i >= 0 {
		return msgp.AppendUint64(dst, uint64(i))
	}
	return msgp.AppendInt64(dst, i)
}

func appendValue(dst []byte, key string, v any) []byte {
	switch v := v.(type) {
	case string:
		return msgp.AppendString(dst, v)
	case []byte:
		return msgp.AppendBytes(dst, v)
	case int:
		return appendInt(dst, int64(v))
	case int64:
		return appendInt(dst, v)
	case uint64:
		return msgp.AppendUint64(dst, v)
	case float64:
		return msgp.AppendFloat64(dst, v)
	case bool:
		return msgp.AppendBool(dst, v)
	case nil:
		return msgp.AppendNil(dst)
	case msgp.Raw:
		return append(dst, v...)
	}
	panic(fmt.Sprintf("chunk: AppendEvent: field %q has unsupported value type %T", key, v))
}
