package chunk

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"
)

// unhex decodes a hex string with spaces and 'quoted' ASCII runs, e.g.
// "a4 'file'".
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	var out []byte
	for i, part := range strings.Split(s, "'") {
		if i%2 == 1 {
			out = append(out, part...)
			continue
		}
		b, err := hex.DecodeString(strings.ReplaceAll(part, " ", ""))
		require.NoError(t, err, "bad hex %q", part)
		out = append(out, b...)
	}
	return out
}

// TestAppendEventLayout pins the bytes against Fluent Bit's encoders (see
// the package doc for the functions they come from).
func TestAppendEventLayout(t *testing.T) {
	tm := time.Unix(0x01020304, 0x05060708)
	ev := TailEvent(DefaultConfig(), tm, "/a", 5, []byte("hi"))
	body := "a4 'file' a2 '/a' a6 'offset' 05 a3 'log' a2 'hi'"
	et := "d7 00 01020304 05060708"
	tests := []struct {
		name   string
		format Format
		intT   bool
		want   string
	}{
		{"v2 (2.1 to 4.x)", FormatV2, false, "dd 00000002 dd 00000002 " + et + " df 00000000 df 00000003 " + body},
		{"v2 direct (5.x)", FormatV2Direct, false, "92 92 " + et + " df 00000000 df 00000003 " + body},
		{"v1 (before 2.1)", FormatV1, false, "92 " + et + " 83 " + body},
		{"v2 int time", FormatV2, true, "dd 00000002 dd 00000002 ce 01020304 df 00000000 df 00000003 " + body},
		{"v1 int time", FormatV1, true, "92 ce 01020304 83 " + body},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ev
			e.IntTime = tt.intT
			got := AppendEvent(nil, e, tt.format)
			assert.Equal(t, hex.EncodeToString(unhex(t, tt.want)), hex.EncodeToString(got))
		})
	}
}

// TestAppendValueForms checks msgpack-c's choice of the smallest form
// (pack_template.h): unsigned forms for non-negative integers, str8 exists.
func TestAppendValueForms(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string // hex of the header (for str/bin) or of the whole value
	}{
		{"uint 0", uint64(0), "00"},
		{"uint 127", uint64(127), "7f"},
		{"uint 128", uint64(128), "cc80"},
		{"uint 255", uint64(255), "ccff"},
		{"uint 256", uint64(256), "cd0100"},
		{"uint 65535", uint64(65535), "cdffff"},
		{"uint 65536", uint64(65536), "ce00010000"},
		{"uint 2^32-1", uint64(1<<32 - 1), "ceffffffff"},
		{"uint 2^32", uint64(1 << 32), "cf0000000100000000"},
		{"int 200 is unsigned", int64(200), "ccc8"},
		{"int 40000 is unsigned", 40000, "cd9c40"},
		{"int -1", int64(-1), "ff"},
		{"int -32", int64(-32), "e0"},
		{"int -33", int64(-33), "d0df"},
		{"int -128", int64(-128), "d080"},
		{"int -129", int64(-129), "d1ff7f"},
		{"int -40000", int64(-40000), "d2ffff63c0"},
		{"float", 1.5, "cb3ff8000000000000"},
		{"bool", true, "c3"},
		{"nil", nil, "c0"},
		{"raw", msgp.Raw{0x91, 0x01}, "9101"},
		{"str 0", "", "a0"},
		{"str 31", strings.Repeat("x", 31), "bf"},
		{"str 32", strings.Repeat("x", 32), "d920"},
		{"str 255", strings.Repeat("x", 255), "d9ff"},
		{"str 256", strings.Repeat("x", 256), "da0100"},
		{"str 65536", strings.Repeat("x", 65536), "db00010000"},
		{"bin 3", []byte("abc"), "c403"},
		{"bin 256", bytes.Repeat([]byte("x"), 256), "c50100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := appendValue(nil, "k", tt.value)
			want, err := hex.DecodeString(tt.want)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(got), len(want))
			assert.Equal(t, tt.want, hex.EncodeToString(got[:len(want)]))
			rest, err := msgp.Skip(got)
			require.NoError(t, err)
			assert.Empty(t, rest, "value must be exactly one msgpack object")
		})
	}
}

func TestAppendEventMetadataAndChunk(t *testing.T) {
	ev := Event{Time: time.Unix(1, 2), Metadata: []Field{{"m", int64(1)}}, Fields: []Field{{"log", "x"}}}
	got := AppendChunk([]byte{0xaa}, FormatV2Direct, ev, ev)
	one := unhex(t, "92 92 d7 00 00000001 00000002 df 00000001 a1 'm' 01 df 00000001 a3 'log' a1 'x'")
	assert.Equal(t, append(append([]byte{0xaa}, one...), one...), got)
}

func TestTailEvent(t *testing.T) {
	cfg := Config{LogKey: "message", PathKey: "path", OffsetKey: "pos"}
	ev := TailEvent(cfg, t0, "/p", 7, []byte("line"))
	assert.Equal(t, Event{Time: t0, Fields: []Field{
		{"path", "/p"}, {"pos", uint64(7)}, {"message", "line"},
	}}, ev)
	neg := TailEvent(cfg, t0, "/p", -3, nil)
	assert.Equal(t, int64(-3), neg.Fields[1].Value, "a negative offset stays signed")
}

func TestAppendEventPanicsOnProgrammingErrors(t *testing.T) {
	assert.PanicsWithValue(t, `chunk: AppendEvent: field "k" has unsupported value type int32`, func() {
		AppendEvent(nil, Event{Fields: []Field{{"k", int32(1)}}}, FormatV2)
	})
	assert.PanicsWithValue(t, "chunk: AppendEvent: unknown Format(9)", func() {
		AppendEvent(nil, Event{}, Format(9))
	})
}

func TestFormatString(t *testing.T) {
	assert.Equal(t, "v2", FormatV2.String())
	assert.Equal(t, "v1", FormatV1.String())
	assert.Equal(t, "v2-direct", FormatV2Direct.String())
}
