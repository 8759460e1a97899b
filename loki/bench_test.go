package loki

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchInput is 1000 journal-like entries of ~400 bytes over 4 streams, with
// two structured-metadata pairs each, built before the clock starts.
type benchInput struct {
	labels  [][]Label
	entries []Entry
	bytes   int
}

func newBenchInput() benchInput {
	var in benchInput
	for s := range 4 {
		in.labels = append(in.labels, []Label{
			{"source", "journal"}, {"agent", "agent-" + strconv.Itoa(s)}, {"host", "node-1"},
		})
	}
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 12)
	for i := range 1000 {
		line := fmt.Sprintf(`{"seq":%d,"type":"assistant","session":"5f0c2b","ts":"2026-03-01T10:00:00Z","text":%q}`, i, pad)
		in.entries = append(in.entries, Entry{
			Timestamp: fixtureBase.Add(time.Duration(i) * time.Millisecond),
			Line:      line,
			Metadata:  []Label{{"session_id", "5f0c2b"}, {"seq", strconv.Itoa(i)}},
			Ref:       i,
		})
		in.bytes += len(line)
	}
	return in
}

// encodeAll fills b from in and encodes every request of MaxRequestBytes.
func encodeAll(b *Batch, in benchInput) (int, error) {
	b.Reset()
	for i := range in.entries {
		if err := b.Add(in.labels[i%len(in.labels)], in.entries[i]); err != nil {
			return 0, err
		}
	}
	n := 0
	for _, r := range b.plan(DefaultMaxRequestBytes, true) {
		_, comp, err := b.encode(r)
		if err != nil {
			return 0, err
		}
		n += len(comp)
	}
	return n, nil
}

func BenchmarkEncode(b *testing.B) {
	in := newBenchInput()
	batch := NewBatch()
	if _, err := encodeAll(batch, in); err != nil { // warm the buffers
		b.Fatal(err)
	}
	b.SetBytes(int64(in.bytes))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := encodeAll(batch, in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEncodeSteadyStateAllocs pins the benchmark's allocation budget: once
// the batch's buffers have grown, a flush allocates nothing.
func TestEncodeSteadyStateAllocs(t *testing.T) {
	in := newBenchInput()
	batch := NewBatch()
	_, err := encodeAll(batch, in)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := encodeAll(batch, in); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "allocations per flush of %d entries", len(in.entries))
}
