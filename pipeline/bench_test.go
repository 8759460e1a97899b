package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/deadletter"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/claudecode"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/internal/sample/kinds"
	"github.com/journalship/journalship/loki"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/pricing"
)

// encodePusher encodes and compresses a batch exactly as Push would send
// it, without a network: the benchmark measures the plugin's own work.
type encodePusher struct{ sent int }

func (p *encodePusher) Push(_ context.Context, b *loki.Batch) (loki.Result, error) {
	err := b.Encode(loki.DefaultMaxRequestBytes, false, func(c []byte) error {
		p.sent += len(c)
		return nil
	})
	return loki.Result{Entries: b.Len()}, err
}

type discardLetters struct{}

func (discardLetters) Write([]deadletter.Entry) error { return nil }

// BenchmarkFlush runs one Fluent Bit chunk of 1000 realistic tail records
// (about 430 KB of journal) through the whole in-process path per op:
// chunk decode → validate → continuity → enrich → protobuf → snappy.
func BenchmarkFlush(b *testing.B) {
	const n = 1000
	lines := cortex.Lines(1, n)
	path := filepath.Join("/data/sessions/01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", "session_20261121T100000Z_agent-worker-1.jsonl")
	var data []byte
	var off int64
	bytes := 0
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for _, l := range lines {
		data = chunk.AppendEvent(data, chunk.TailEvent(chunk.DefaultConfig(), at, path, off, l), chunk.FormatV2)
		off += int64(len(l)) + 1
		bytes += len(l)
	}
	benchFlush(b, data, bytes, n)
}

// BenchmarkFlushClaudeCode is BenchmarkFlush for Claude Code transcripts:
// the generator's sessions (main and subagent transcripts, about 1000
// lines of 0.3–10 KB), each file from its start, in one chunk.
func BenchmarkFlushClaudeCode(b *testing.B) {
	c, err := claudecode.Generate(claudecode.DefaultConfig())
	benchCorpus(b, c, err, "/data/claude/projects")
}

// BenchmarkFlushFormats is BenchmarkFlush for every registered format's
// generator (its Kind's Fixture, every fault scenario), written to disk
// first with its side files (a state may read them when it starts): the
// first whole files of about 1000 lines, each from its start, in one
// chunk.
func BenchmarkFlushFormats(b *testing.B) {
	for _, k := range kinds.All() {
		b.Run("format="+k.Format, func(b *testing.B) {
			c, err := k.Fixture()
			benchCorpus(b, c, err, "")
		})
	}
}

// benchCorpus ships the first whole files of a generated corpus (about
// 1000 lines) per op, as if under root; root "" writes the corpus, side
// files included, under a temporary directory first, for the formats
// whose state reads files beside the journal.
func benchCorpus(b *testing.B, c *sample.Corpus, err error, root string) {
	if err != nil {
		b.Fatal(err)
	}
	if root == "" {
		root = b.TempDir()
		if err := c.WriteTo(root); err != nil {
			b.Fatal(err)
		}
	}
	data, bytes, n := corpusChunk(c.Files, root, 1000)
	benchFlush(b, data, bytes, n)
}

// corpusChunk is one Fluent Bit chunk of the files' lines under root, as
// tail reads them, whole files until about max records: its data, the
// bytes of journal and the number of records.
func corpusChunk(files []sample.File, root string, max int) (data []byte, bytes, n int) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for _, f := range files {
		path := filepath.Join(root, f.Rel)
		for _, l := range f.Lines {
			data = chunk.AppendEvent(data, chunk.TailEvent(chunk.DefaultConfig(), at, path, l.Offset, []byte(l.Text)), chunk.FormatV2)
			bytes += len(l.Text)
			n++
		}
		if n >= max {
			break
		}
	}
	return data, bytes, n
}

// benchFlush ships the chunk data of n records (bytes of journal) per op
// and reports per-record figures.
//
// It runs twice: with secret redaction (the default) and without, whose
// difference is what redaction costs.
func benchFlush(b *testing.B, data []byte, bytes, n int) {
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("redact=%t", on), func(b *testing.B) { benchFlushWith(b, data, bytes, n, on) })
	}
}

func benchFlushWith(b *testing.B, data []byte, bytes, n int, redact bool) {
	cfg := DefaultConfig()
	cfg.Redact.Enabled = redact
	// The samples are stamped on fixed days, and every op ships the same
	// lines again, which Loki would refuse as too old or too far behind
	// their streams' newest entries: widen the window and turn the
	// behind check off, so that the benchmark measures the common path
	// (lines Loki accepts), not the re-stamping one.
	cfg.MaxEntryAge = 10 * 365 * 24 * time.Hour
	cfg.MaxBehind = 0
	cfg.Enrich.Static = map[string]string{"service_name": "agent-sessions"}
	p, err := New(cfg, Deps{Pusher: &encodePusher{}, DeadLetters: discardLetters{}, Metrics: metrics.New(), Prices: pricing.Default()})
	if err != nil {
		b.Fatal(err)
	}
	dec, _ := chunk.NewDecoder(chunk.DefaultConfig())
	recs := make([]chunk.Record, 0, n)
	flush := func() {
		recs = recs[:0]
		if err := dec.Decode(data, func(r *chunk.Record) error { recs = append(recs, *r); return nil }); err != nil {
			b.Fatal(err)
		}
		if _, err := p.Ship(context.Background(), recs, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	flush() // warm the pools
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		flush()
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	records := float64(b.N * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/records, "ns/record")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/records, "allocs/record")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/records, "B/record")
}
