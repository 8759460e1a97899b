package output

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/sample/cortex"
)

// BenchmarkInstanceFlush is e2e's BenchmarkPlugin in process, for
// profiling (-cpuprofile, -memprofile) what the .so does per chunk
// without cgo, in a process that has run for a while: Cortex Plane
// journals on disk in 2 MB chunks through one instance with a ledger on
// disk, to a stand-in Loki answering at once. One op ships the whole
// corpus again (the ledger forgets it in between).
func BenchmarkInstanceFlush(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	cfg := cortex.DefaultConfig()
	cfg.Jobs, cfg.Start = 400, time.Now().Add(-90*time.Minute).UTC()
	c, err := cortex.Generate(cfg)
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	if err := c.WriteTo(root); err != nil {
		b.Fatal(err)
	}
	chunks, lines, _ := c.Chunks(root, 2<<20, time.Now().UTC())
	dir := b.TempDir()
	settings := map[string]string{"loki_url": srv.URL, "ledger_path": filepath.Join(dir, "ledger.db"),
		"dead_letter_path": filepath.Join(dir, "dl.jsonl"), "metrics_address": "off", "log_level": "error",
		"max_entry_age": "87600h", "max_behind": "0"}
	inst, err := NewInstance(func(k string) string { return settings[strings.ToLower(k)] })
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close()
	ship := func() {
		for _, ch := range chunks {
			if rc := inst.Flush(ch, "bench"); rc != OK {
				b.Fatalf("flush: rc %d", rc)
			}
		}
	}
	ship() // a long-running process: its pools, lock files and file states are warm
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for _, f := range c.Files { // ship it all again
			if err := inst.Ledger().Forget(context.Background(), filepath.Join(root, f.Rel)); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		ship()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}
