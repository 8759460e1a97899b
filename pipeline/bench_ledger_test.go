package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/pricing"
)

// BenchmarkFlushLedger is BenchmarkFlush with what the plugin adds around
// it in production: a real journal file and ledger, so each flush also
// takes the file's shipping lock, reads what the ledger holds for it and
// the file's identity, checks on disk that the file still holds the last
// line, and records the ranges (an fsynced SQLite commit, most of the
// difference). The ledger forgets the file between flushes (untimed), so
// every flush ships all of it.
func BenchmarkFlushLedger(b *testing.B) {
	const n = 1000
	dir := b.TempDir()
	path := filepath.Join(dir, "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", "session_20261121T100000Z_agent-worker-1.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	var file, data []byte
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for _, l := range cortex.Lines(1, n) {
		data = chunk.AppendEvent(data, chunk.TailEvent(chunk.DefaultConfig(), at, path, int64(len(file)), l), chunk.FormatV2)
		file = append(append(file, l...), '\n')
	}
	if err := os.WriteFile(path, file, 0o644); err != nil {
		b.Fatal(err)
	}
	l, err := ledger.Open(ledger.Config{Path: filepath.Join(dir, "ledger.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	cfg := DefaultConfig()
	cfg.MaxEntryAge = 10 * 365 * 24 * time.Hour
	cfg.Enrich.Static = map[string]string{"service_name": "agent-sessions"}
	p, err := New(cfg, Deps{Pusher: &encodePusher{}, DeadLetters: discardLetters{}, Metrics: metrics.New(), Prices: pricing.Default(), Ledger: l})
	if err != nil {
		b.Fatal(err)
	}
	dec, _ := chunk.NewDecoder(chunk.DefaultConfig())
	recs := make([]chunk.Record, 0, n)
	ctx := context.Background()
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if err := l.Forget(ctx, path); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		recs = recs[:0]
		if err := dec.Decode(data, func(r *chunk.Record) error { recs = append(recs, *r); return nil }); err != nil {
			b.Fatal(err)
		}
		res, err := p.Ship(ctx, recs, "bench")
		if err != nil || res.Shipped != n {
			b.Fatalf("shipped %d of %d: %v", res.Shipped, n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
}
