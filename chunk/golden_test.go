package chunk

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"
)

var update = flag.Bool("update", false, "rewrite the golden chunks in testdata/")

const goldenPath = "/var/log/agents/session-7f3a.jsonl"

// goldenLines are three journal lines: short JSON, long JSON (str16 header)
// and non-ASCII; the offsets are the lines' starts in the file.
var goldenLines = []string{
	`{"ts":"2026-01-01T00:00:00.123Z","type":"session_start","agent":"coder"}`,
	`{"ts":"2026-01-01T00:00:01Z","type":"tool_call","tool":"bash","input":"` + strings.Repeat("ls -la; ", 40) + `"}`,
	`{"ts":"2026-01-01T00:00:02Z","type":"message","text":"héllo ✓"}`,
}

func goldenTail(intTime bool) ([]Event, []view) {
	var evs []Event
	var want []view
	var off int64
	for i, line := range goldenLines {
		tm := time.Unix(1767225600+int64(i), 250000000*int64(i)).UTC()
		ev := TailEvent(DefaultConfig(), tm, goldenPath, off, []byte(line))
		ev.IntTime = intTime
		if intTime {
			tm = tm.Truncate(time.Second)
		}
		evs = append(evs, ev)
		want = append(want, ok(i, tm, goldenPath, off, line))
		off += int64(len(line)) + 1
	}
	return evs, want
}

// goldenMixed has group markers, unusable records and unknown keys.
func goldenMixed() ([]Event, []view) {
	tm := time.Unix(1767225600, 5).UTC()
	evs := []Event{
		{Time: time.Unix(math.MaxUint32, 0), Metadata: []Field{{"schema", "otlp"}}, Fields: []Field{{"resource", msgp.Raw{0x80}}}},
		{Time: tm, Fields: []Field{{"file", goldenPath}, {"offset", uint64(0)}, {"log", "ok"}}},
		{Time: tm, Fields: []Field{{"file", goldenPath}, {"offset", uint64(3)}}},
		{Time: tm, Fields: []Field{{"log", int64(42)}, {"offset", uint64(7)}}},
		{Time: tm, Fields: []Field{{"log", "x"}, {"offset", "7"}}},
		{Time: tm, Metadata: []Field{{"k", "v"}}, Fields: []Field{
			{"kubernetes", msgp.Raw{0x81, 0xa3, 'p', 'o', 'd', 0xa1, 'p'}}, {"log", []byte("bin line")}, {"stream", "stdout"},
		}},
		{Time: time.Unix(math.MaxUint32-1, 0)},
	}
	want := []view{
		ok(1, tm, goldenPath, 0, "ok"),
		{Time: tm, Path: goldenPath, Offset: 3, HasOffset: true, Problem: `missing log key "log"`, Index: 2},
		{Time: tm, PathNil: true, Offset: 7, HasOffset: true, Problem: "log value is msgpack int, not string", Index: 3},
		{Time: tm, Line: "x", PathNil: true, Problem: "offset value is not an integer (msgpack str)", Index: 4},
		{Time: tm, Line: "bin line", PathNil: true, Index: 5},
	}
	return evs, want
}

type goldenCase struct {
	file   string
	format Format
	events []Event
	want   []view
}

func goldenCases() []goldenCase {
	tail, tailWant := goldenTail(false)
	tailInt, tailIntWant := goldenTail(true)
	mixed, mixedWant := goldenMixed()
	return []goldenCase{
		{"tail_v2.msgpack", FormatV2, tail, tailWant},
		{"tail_v2_direct.msgpack", FormatV2Direct, tail, tailWant},
		{"tail_v1.msgpack", FormatV1, tail, tailWant},
		{"tail_v2_inttime.msgpack", FormatV2, tailInt, tailIntWant},
		{"tail_v1_inttime.msgpack", FormatV1, tailInt, tailIntWant},
		{"mixed_v2.msgpack", FormatV2, mixed, mixedWant},
	}
}

// TestGolden compares the encoder's output with testdata byte for byte
// (run with -update to rewrite) and decodes the stored bytes.
func TestGolden(t *testing.T) {
	for _, gc := range goldenCases() {
		t.Run(gc.file, func(t *testing.T) {
			path := filepath.Join("testdata", gc.file)
			encoded := AppendChunk(nil, gc.format, gc.events...)
			if *update {
				require.NoError(t, os.WriteFile(path, encoded, 0o644))
			}
			stored, err := os.ReadFile(path)
			require.NoError(t, err, "run `go test ./chunk/ -run TestGolden -update` to create it")
			require.Equal(t, encoded, stored, "encoder output differs from %s", path)

			got, err := decodeAll(t, DefaultConfig(), stored)
			require.NoError(t, err)
			assert.Equal(t, gc.want, got)
		})
	}
}
