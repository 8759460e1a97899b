package chunk

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"
)

func TestDecodeFormats(t *testing.T) {
	evs := tailEvents(3)
	for _, f := range []Format{FormatV2, FormatV2Direct, FormatV1} {
		for _, intTime := range []bool{false, true} {
			name := f.String() + "/eventtime"
			if intTime {
				name = f.String() + "/inttime"
			}
			t.Run(name, func(t *testing.T) {
				var data []byte
				var want []view
				var off int64
				for i, ev := range evs {
					ev.IntTime = intTime
					data = AppendEvent(data, ev, f)
					tm := ev.Time
					if intTime {
						tm = tm.Truncate(time.Second)
					}
					line := ev.Fields[2].Value.(string)
					want = append(want, ok(i, tm, "/var/log/agent/s1.jsonl", off, line))
					off += int64(len(line)) + 1
				}
				got, err := decodeAll(t, DefaultConfig(), data)
				require.NoError(t, err)
				assert.Equal(t, want, got)
			})
		}
	}
}

// rec is a one-event V2 chunk with the given record fields at time t0.
func rec(fields ...Field) []byte {
	return AppendEvent(nil, Event{Time: t0, Fields: fields}, FormatV2)
}

// v1 assembles a [time, record] event from encoded parts.
func v1(timeRaw, recordRaw []byte) []byte {
	return append(append([]byte{0x92}, timeRaw...), recordRaw...)
}

func TestDecodeRecords(t *testing.T) {
	p, o, l := Field{"file", "/p"}, Field{"offset", uint64(9)}, Field{"log", "x"}
	base := view{Time: t0, Line: "x", Path: "/p", Offset: 9, HasOffset: true}
	with := func(change func(*view)) view { v := base; change(&v); return v }
	custom := Config{LogKey: "message", PathKey: "path", OffsetKey: "pos"}
	et0 := appendTime(nil, Event{Time: t0})
	logX := unhex(t, "81 a3 'log' a1 'x'")
	onlyX := view{Time: t0, Line: "x", PathNil: true}
	tests := []struct {
		name string
		cfg  Config
		data []byte
		want []view
	}{
		{"complete", DefaultConfig(), rec(p, o, l), []view{base}},
		{"any key order", DefaultConfig(), rec(l, o, p), []view{base}},
		{"missing log", DefaultConfig(), rec(p, o), []view{with(func(v *view) { v.Line, v.Problem = "", `missing log key "log"` })}},
		{"empty record map", DefaultConfig(), rec(), []view{{Time: t0, PathNil: true, Problem: `missing log key "log"`}}},
		{"missing path is not a problem", DefaultConfig(), rec(o, l), []view{with(func(v *view) { v.Path, v.PathNil = "", true })}},
		{"missing offset is not a problem", DefaultConfig(), rec(p, l), []view{with(func(v *view) { v.Offset, v.HasOffset = 0, false })}},
		{"empty line", DefaultConfig(), rec(p, o, Field{"log", ""}), []view{with(func(v *view) { v.Line = "" })}},
		{"log bin", DefaultConfig(), rec(p, o, Field{"log", []byte("x")}), []view{base}},
		{"path bin", DefaultConfig(), rec(Field{"file", []byte("/p")}, o, l), []view{base}},
		{"log int", DefaultConfig(), rec(p, o, Field{"log", int64(3)}), []view{with(func(v *view) { v.Line, v.Problem = "", "log value is msgpack int, not string" })}},
		{"log nil", DefaultConfig(), rec(p, o, Field{"log", nil}), []view{with(func(v *view) { v.Line, v.Problem = "", "log value is msgpack nil, not string" })}},
		{"log map", DefaultConfig(), rec(p, o, Field{"log", msgp.Raw{0x81, 0xa1, 'a', 0x01}}), []view{with(func(v *view) { v.Line, v.Problem = "", "log value is msgpack map, not string" })}},
		{"path int", DefaultConfig(), rec(Field{"file", int64(1)}, o, l), []view{with(func(v *view) { v.Path, v.PathNil, v.Problem = "", true, "path value is msgpack int, not string" })}},
		{"offset str", DefaultConfig(), rec(p, Field{"offset", "9"}, l), []view{with(func(v *view) {
			v.Offset, v.HasOffset, v.Problem = 0, false, "offset value is not an integer (msgpack str)"
		})}},
		{"offset float", DefaultConfig(), rec(p, Field{"offset", 9.0}, l), []view{with(func(v *view) {
			v.Offset, v.HasOffset, v.Problem = 0, false, "offset value is not an integer (msgpack float64)"
		})}},
		{"offset negative", DefaultConfig(), rec(p, Field{"offset", int64(-5)}, l), []view{with(func(v *view) { v.Offset, v.HasOffset, v.Problem = 0, false, "offset value -5 is negative" })}},
		{"offset overflows int64", DefaultConfig(), rec(p, Field{"offset", uint64(math.MaxUint64)}, l), []view{with(func(v *view) {
			v.Offset, v.HasOffset, v.Problem = 0, false, "offset value 18446744073709551615 overflows int64"
		})}},
		{"offset max int64 as uint64", DefaultConfig(), rec(p, Field{"offset", uint64(math.MaxInt64)}, l), []view{with(func(v *view) { v.Offset = math.MaxInt64 })}},
		{"offset int8", DefaultConfig(), rec(p, Field{"offset", msgp.Raw{0xd0, 0x09}}, l), []view{base}},
		{"offset int64", DefaultConfig(), rec(p, Field{"offset", msgp.Raw{0xd3, 0, 0, 0, 0, 0, 0, 0, 0x09}}, l), []view{base}},
		{"offset uint16", DefaultConfig(), rec(p, Field{"offset", msgp.Raw{0xcd, 0, 0x09}}, l), []view{base}},
		{"log problem reported before offset problem", DefaultConfig(), rec(p, Field{"offset", "x"}), []view{with(func(v *view) {
			v.Line, v.Offset, v.HasOffset, v.Problem = "", 0, false, `missing log key "log"`
		})}},
		{"unknown keys of every type skipped", DefaultConfig(), rec(
			Field{"a", msgp.Raw{0x82, 0xa1, 'k', 0x92, 0x01, 0xc0, 0xa1, 'm', 0x80}}, // nested map/array
			p, Field{"b", []byte{1, 2}}, o, Field{"c", 1.5}, Field{"d", true}, Field{"e", nil},
			Field{"f", msgp.Raw{0xd6, 0x05, 1, 2, 3, 4}}, l, Field{"g", "tail"}), []view{base}},
		{"duplicate key: last wins", DefaultConfig(), rec(Field{"log", "old"}, p, Field{"offset", uint64(1)}, o, l), []view{base}},
		{"duplicate key: bad last wins", DefaultConfig(), rec(p, o, l, Field{"log", int64(1)}), []view{with(func(v *view) { v.Line, v.Problem = "", "log value is msgpack int, not string" })}},
		{"duplicate key: good last clears problem", DefaultConfig(), rec(p, Field{"offset", "x"}, o, l), []view{base}},
		{"custom keys", custom, rec(Field{"path", "/p"}, Field{"pos", uint64(9)}, Field{"log", "not me"}, Field{"message", "x"}), []view{base}},
		{"custom keys missing", custom, rec(p, o, l), []view{{Time: t0, PathNil: true, Problem: `missing log key "message"`}}},
		{"metadata skipped", DefaultConfig(), AppendEvent(nil, Event{Time: t0, Metadata: []Field{{"log", "meta"}, {"n", msgp.Raw{0x91, 0x80}}}, Fields: []Field{p, o, l}}, FormatV2), []view{base}},
		{"non-string key skipped", DefaultConfig(), v1(et0, unhex(t, "83 01 02 c0 a1 'z' a3 'log' a1 'x'")), []view{onlyX}},
		{"bin key", DefaultConfig(), v1(et0, unhex(t, "81 c4 03 'log' a1 'x'")), []view{onlyX}},
		{"record not a map", DefaultConfig(), v1(et0, unhex(t, "a1 'x'")), []view{{Time: t0, PathNil: true, Problem: "record is msgpack str, not map"}}},
		{"record is nil", DefaultConfig(), v1(et0, []byte{0xc0}), []view{{Time: t0, PathNil: true, Problem: "record is msgpack nil, not map"}}},
		{"EventTime as ext8", DefaultConfig(), v1(unhex(t, "c7 08 00 6955b900 075bcd15"), logX), []view{onlyX}},
		{"float64 time", DefaultConfig(), v1(msgp.AppendFloat64(nil, 1767225600.25), logX), []view{{Time: time.Unix(1767225600, 25e7).UTC(), Line: "x", PathNil: true}}},
		{"float32 time", DefaultConfig(), v1(msgp.AppendFloat32(nil, 1.5), logX), []view{{Time: time.Unix(1, 5e8).UTC(), Line: "x", PathNil: true}}},
		{"negative int time", DefaultConfig(), v1([]byte{0xff}, logX), []view{{Time: time.Unix(-1, 0).UTC(), Line: "x", PathNil: true}}},
		{"uint64 int time", DefaultConfig(), v1(unhex(t, "cf 000000006955b900"), logX), []view{{Time: t0.Truncate(time.Second), Line: "x", PathNil: true}}},
		{"empty chunk", DefaultConfig(), []byte{}, nil},
		{"nil chunk", DefaultConfig(), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeAll(t, tt.cfg, tt.data)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeGroupMarkersSkipped(t *testing.T) {
	evs := tailEvents(2)
	start := Event{Time: time.Unix(math.MaxUint32, 0), Metadata: []Field{{"schema", "otlp"}}, Fields: []Field{{"resource", msgp.Raw{0x80}}}}
	end := Event{Time: time.Unix(math.MaxUint32-1, 0)}
	data := AppendChunk(nil, FormatV2, start, evs[0], end, evs[1])
	got, err := decodeAll(t, DefaultConfig(), data)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, []int{1, 3}, []int{got[0].Index, got[1].Index}, "markers count in Index")
	assert.Equal(t, `{"n":1,"msg":"hello"}`, got[1].Line)

	// 0xFFFFFFFF seconds with nanoseconds is an ordinary (far future) time.
	notMarker := Event{Time: time.Unix(math.MaxUint32, 1), Fields: []Field{{"log", "x"}}}
	got, err = decodeAll(t, DefaultConfig(), AppendEvent(nil, notMarker, FormatV2))
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, time.Unix(math.MaxUint32, 1).UTC(), got[0].Time)
}

func TestDecodeStructuralErrors(t *testing.T) {
	good := AppendChunk(nil, FormatV2, tailEvents(2)...)
	et := "d7 00 6955b900 075bcd15"
	logX := " 81 a3 'log' a1 'x'"
	tests := []struct {
		name       string
		broken     string
		wantReason string
		wantShort  bool // errors.Is(err, msgp.ErrShortBytes)
		at         int  // where the break was detected, relative to the event
	}{
		{"not an array", "a1 'x'", "event is msgpack str, want array", false, 0},
		{"map instead of array", "81 a3 'log' a1 'x'", "event is msgpack map, want array", false, 0},
		{"invalid byte", "c1", "event is invalid byte 0xc1, want array", false, 0},
		{"arity 3", "93 01" + logX + " 01", "event array has 3 elements, want 2", false, 0},
		{"arity 1", "91 01", "event array has 1 elements, want 2", false, 0},
		{"arity 0", "90", "event array has 0 elements, want 2", false, 0},
		{"header arity 1", "92 91 " + et + logX, "event header array has 1 elements, want 2 (time, metadata)", false, 1},
		{"header arity 3", "92 93 " + et + " 80 80" + logX, "event header array has 3 elements, want 2 (time, metadata)", false, 1},
		{"time str", "92 a1 'x'" + logX, "time is msgpack str, want EventTime (ext 0), integer or float", false, 1},
		{"time nil in header", "92 92 c0 80" + logX, "time is msgpack nil, want EventTime (ext 0), integer or float", false, 2},
		{"time array in v1 position", "92 92 92 01 02 80" + logX, "time is msgpack array, want EventTime", false, 2},
		{"time ext 5", "92 d7 05 6955b900 075bcd15" + logX, "bad time: msgp: error decoding extension: wanted type 0; got type 5", false, 1},
		{"time msgpack timestamp ext -1", "92 d6 ff 6955b900" + logX, "bad time", false, 1},
		{"EventTime of 4 bytes", "92 d6 00 6955b900" + logX, "bad time: EventTime payload is not 8 bytes", false, 1},
		{"EventTime of 0 bytes", "92 c7 00 00" + logX, "bad time: EventTime payload is not 8 bytes", false, 1},
		{"time NaN", "92 cb 7ff8000000000001" + logX, "time float is not a usable number of seconds", false, 1},
		{"time +Inf", "92 cb 7ff0000000000000" + logX, "time float is not a usable number of seconds", false, 1},
		{"time uint64 overflow", "92 cf ffffffffffffffff" + logX, "time integer 18446744073709551615 overflows int64", false, 1},
		{"truncated after array header", "92", "truncated before time", false, 1},
		{"truncated in EventTime", "92 d7 00 6955", "truncated in time", true, 1},
		{"truncated before record", "92 01", "truncated in record", true, 2},
		{"metadata invalid", "92 92 " + et + " c1" + logX, "bad metadata", false, 12},
		{"truncated in metadata", "92 92 " + et + " 81 a1", "truncated in metadata", true, 12},
		{"record invalid", "92 01 c1", "bad record", false, 2},
		{"truncated in record key", "92 01 82 a3 'log' a1 'x' a4 'fi'", "truncated in record map", true, 9},
		{"truncated in record value", "92 01 82 a3 'log' a1 'x' a4 'file' a5 '/x'", "truncated in path value", true, 14},
		{"truncated in log value", "92 01 81 a3 'log' d9 ff 'x'", "truncated in log value", true, 7},
		{"truncated in offset value", "92 01 81 a6 'offset' ce 0000", "truncated in offset value", true, 10},
		{"truncated in unknown value", "92 01 82 a3 'log' a1 'x' a1 'z' 92 01", "truncated in record map", true, 11},
		{"truncated in non-string key", "92 01 81 92 01", "truncated in record map", true, 3},
		{"invalid byte in unknown value", "92 01 81 a1 'z' c1", "bad record map", false, 5},
		{"invalid byte in offset value", "92 01 81 a6 'offset' c1", "bad offset value", false, 10},
		{"invalid byte in log value", "92 01 81 a3 'log' c1", "bad log value", false, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := append(append([]byte{}, good...), unhex(t, tt.broken)...)
			got, err := decodeAll(t, DefaultConfig(), data)
			require.Error(t, err)
			assert.Len(t, got, 2, "the good events before the break are delivered")

			var de *DecodeError
			require.True(t, errors.As(err, &de), "want *DecodeError, got %T: %v", err, err)
			assert.Equal(t, 2, de.Index)
			assert.Equal(t, len(good), de.Start)
			assert.Contains(t, de.Reason, tt.wantReason)
			assert.True(t, de.Permanent())
			assert.True(t, strings.HasSuffix(de.Reason, fmt.Sprintf(" (at byte %d)", len(good)+tt.at)), de.Reason)
			assert.True(t, strings.HasPrefix(de.Error(), fmt.Sprintf("chunk: event 2 at byte %d: ", len(good))), de.Error())
			assert.Equal(t, tt.wantShort, errors.Is(err, msgp.ErrShortBytes))
		})
	}
}

func TestDecodeStopsOnCallbackError(t *testing.T) {
	data := AppendChunk(nil, FormatV2, tailEvents(5)...)
	d, err := NewDecoder(DefaultConfig())
	require.NoError(t, err)
	stop := errors.New("sink full")
	var calls int
	err = d.Decode(data, func(r *Record) error {
		calls++
		if r.Index == 1 {
			return stop
		}
		return nil
	})
	assert.Same(t, stop, err)
	assert.Equal(t, 2, calls)
}

func TestDecodeSlicesPointIntoChunk(t *testing.T) {
	evs := tailEvents(4)
	var data []byte
	var starts []int
	for _, ev := range evs {
		starts = append(starts, len(data))
		data = AppendEvent(data, ev, FormatV2)
	}
	d, err := NewDecoder(DefaultConfig())
	require.NoError(t, err)
	var first *Record
	var gotStarts []int
	err = d.Decode(data, func(r *Record) error {
		if first == nil {
			first = r
		}
		assert.Same(t, first, r, "the Record is reused")
		assert.True(t, within(data, r.Line) && within(data, r.Path), "zero copy")
		assert.Equal(t, len(r.Line), cap(r.Line), "Line is capped")
		assert.Equal(t, len(r.Path), cap(r.Path), "Path is capped")
		gotStarts = append(gotStarts, r.Start)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, starts, gotStarts)
}

func TestDecoderReuseDoesNotLeakState(t *testing.T) {
	d, err := NewDecoder(DefaultConfig())
	require.NoError(t, err)
	assert.Equal(t, DefaultConfig(), d.Config())
	full := rec(Field{"file", "/p"}, Field{"offset", uint64(9)}, Field{"log", "x"})
	bare := rec(Field{"log", "y"})
	var got []view
	for _, data := range [][]byte{full, bare} {
		require.NoError(t, d.Decode(data, func(r *Record) error { got = append(got, viewOf(r)); return nil }))
	}
	assert.Equal(t, []view{
		{Time: t0, Line: "x", Path: "/p", Offset: 9, HasOffset: true},
		{Time: t0, Line: "y", PathNil: true},
	}, got)
}
