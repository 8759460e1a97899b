package chunk

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const benchRecords = 1000

// journalLine returns a ~400-byte JSONL agent-journal line.
func journalLine(i int) []byte {
	var b strings.Builder
	b.WriteString(`{"ts":"2026-01-01T00:00:`)
	b.WriteString(strconv.Itoa(10 + i%50))
	b.WriteString(`.123456Z","session":"0b7e9d2c-5f1a-4c3e-9a8b-2d6f4e1c7a90","seq":`)
	b.WriteString(strconv.Itoa(i))
	b.WriteString(`,"type":"tool_call","tool":"bash","input":{"command":"go test ./... -run TestX -count=1"},"output":"`)
	for b.Len() < 396 {
		b.WriteString("ok  pkg 0.01s; ")
	}
	b.WriteString(`"}`)
	return []byte(b.String())
}

// benchChunk is a realistic chunk: 1000 tail records of ~400-byte JSON lines
// with path and offset, in Fluent Bit 2.1-4.x layout.
func benchChunk() []byte {
	cfg := DefaultConfig()
	var data []byte
	var off int64
	for i := 0; i < benchRecords; i++ {
		line := journalLine(i)
		ev := TailEvent(cfg, time.Unix(1767225600+int64(i), int64(i)), "/var/log/agents/session-0b7e9d2c.jsonl", off, line)
		data = AppendEvent(data, ev, FormatV2)
		off += int64(len(line)) + 1
	}
	return data
}

func BenchmarkDecode(b *testing.B) {
	data := benchChunk()
	d, err := NewDecoder(DefaultConfig())
	require.NoError(b, err)
	var lineBytes int
	fn := func(r *Record) error { lineBytes += len(r.Line); return nil }
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Decode(data, fn); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRecords), "ns/record")
	if lineBytes == 0 {
		b.Fatal("no lines decoded")
	}
}

// TestDecodeZeroAllocs asserts the steady state: no allocation at all per
// chunk, hence 0 per record.
func TestDecodeZeroAllocs(t *testing.T) {
	data := benchChunk()
	require.Greater(t, len(data), benchRecords*400)
	d, err := NewDecoder(DefaultConfig())
	require.NoError(t, err)
	var n int
	var offsets int64
	fn := func(r *Record) error {
		n++
		if r.Problem != "" || !r.HasOffset || len(r.Line) < 390 {
			t.Errorf("record %d unusable: %q", r.Index, r.Problem)
		}
		offsets += r.Offset
		return nil
	}
	allocs := testing.AllocsPerRun(20, func() {
		if err := d.Decode(data, fn); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "allocations per chunk of %d records", benchRecords)
	assert.Equal(t, 21*benchRecords, n, "AllocsPerRun runs once to warm up, then 20 times")
	assert.Positive(t, offsets)
}
