package ledger

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
)

// BenchmarkRecord records one segment per call, each adjacent to the last,
// so every call merges into the file's single stored range: the steady
// state of a shipper following one journal. Each call is one transaction
// with an fsync of the WAL (synchronous=FULL), which dominates.
func BenchmarkRecord(b *testing.B) {
	l := openTest(b)
	ctx := context.Background()
	var off int64
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Record(ctx, []Segment{seg("/j/bench.jsonl", off, off+4096, 16)}); err != nil {
			b.Fatal(err)
		}
		off += 4096
	}
}

// BenchmarkRecordParallel records one segment per call from 16 goroutines
// per CPU, each following its own file: concurrent calls share
// transactions (group commit), so one fsync serves many calls.
func BenchmarkRecordParallel(b *testing.B) {
	l := openTest(b)
	ctx := context.Background()
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		path := fmt.Sprintf("/j/bench-%d.jsonl", next.Add(1))
		var off int64
		for pb.Next() {
			if err := l.Record(ctx, []Segment{seg(path, off, off+4096, 16)}); err != nil {
				b.Error(err)
				return
			}
			off += 4096
		}
	})
}
