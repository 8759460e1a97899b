package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/claudecode"
	"github.com/journalship/journalship/internal/sample/cortex"
)

// BenchmarkPlugin drives the built .so through the C host the way Fluent
// Bit does, to show the cost that BenchmarkFlush does not see: chunks of
// up to 2 MB of tail records (Fluent Bit's chunk size) from many journals
// on disk, each read whole as tail reads a small file and out of the page
// cache as tail leaves it, a ledger on disk and a local stand-in for Loki
// that answers at once. One op ships the
// whole corpus through a fresh instance. It reports the host's CPU per
// line above a run that only starts and stops the plugin (cpu-ns/line,
// of which system time sys-ns/line: file opens, reads and fsyncs vary
// most from machine to machine),
// requests per 1,000 lines, bytes sent per line, and the plugin's Go
// allocations and garbage collections per line (from its debug log).
func BenchmarkPlugin(b *testing.B) {
	for _, c := range []struct {
		name string
		gen  func() (*sample.Corpus, error)
	}{
		{"cortex", func() (*sample.Corpus, error) {
			cfg := cortex.DefaultConfig()
			cfg.Jobs, cfg.Start = 400, time.Now().Add(-90*time.Minute).UTC()
			return cortex.Generate(cfg)
		}},
		{"claude-code", func() (*sample.Corpus, error) {
			cfg := claudecode.DefaultConfig()
			cfg.Sessions = 160
			return claudecode.Generate(cfg)
		}},
	} {
		corpus, err := c.gen()
		if err != nil {
			b.Fatal(err)
		}
		// With secret redaction (the default) and without: the
		// difference is what redaction costs.
		for _, redact := range []string{"on", "off"} {
			b.Run(c.name+"/redact="+redact, func(b *testing.B) { benchPlugin(b, corpus, redact) })
		}
	}
}

// benchPlugin is BenchmarkPlugin for one corpus.
func benchPlugin(b *testing.B, c *sample.Corpus, redact string) {
	root := filepath.Join(b.TempDir(), "journals")
	if err := c.WriteTo(root); err != nil {
		b.Fatal(err)
	}
	data, lines, bytes := c.Chunks(root, 2<<20, time.Now().UTC())
	chunks := make([]string, len(data))
	for i, d := range data {
		chunks[i] = writeBytes(b, d)
	}
	loki := newStandIn(b)
	idle := idleCPU(b, pluginScript(b, loki.url, root, nil, redact))
	var cpu hostCPU
	var rt runtimeStats
	b.SetBytes(int64(bytes))
	b.ResetTimer()
	for range b.N {
		dropPages(b, root)
		c, stats := runPlugin(b, pluginScript(b, loki.url, root, chunks, redact))
		cpu.user += c.user - idle.user
		cpu.sys += c.sys - idle.sys
		rt.add(stats)
	}
	b.StopTimer()
	n := float64(b.N * lines)
	if got := loki.entries.Load(); got != int64(b.N*lines) {
		b.Fatalf("the stand-in received %d entries, want %d", got, b.N*lines)
	}
	b.ReportMetric(float64((cpu.user+cpu.sys).Nanoseconds())/n, "cpu-ns/line")
	b.ReportMetric(float64(cpu.sys.Nanoseconds())/n, "sys-ns/line")
	b.ReportMetric(float64(loki.requests.Load())*1000/n, "requests/1000lines")
	b.ReportMetric(float64(loki.bytes.Load())/n, "sent-B/line")
	b.ReportMetric(float64(rt.mallocs)/n, "go-allocs/line")
	b.ReportMetric(float64(rt.allocated)/n, "go-B/line")
	b.ReportMetric(float64(rt.gcs)*1000/n, "gc/1000lines")
}

// idleCPU is the least CPU, user and system each, of three runs of a
// script that only starts and stops the plugin. The kernel splits a
// process's time between user and system by sampling, so one run's split
// can put more in system time than a whole op's: subtracted from an op,
// its system time came out negative.
func idleCPU(b *testing.B, script string) hostCPU {
	idle, _ := runPlugin(b, script)
	for range 2 {
		c, _ := runPlugin(b, script)
		idle.user, idle.sys = min(idle.user, c.user), min(idle.sys, c.sys)
	}
	return idle
}

// pluginScript is a host script that starts an instance shipping to url
// with a fresh ledger and dead-letter file on disk, flushes the chunks in
// order and stops it; redact is Redact_Secrets.
func pluginScript(b *testing.B, url, root string, chunks []string, redact string) string {
	dir := b.TempDir()
	var s strings.Builder
	s.WriteString(instanceScript("a", "Loki_URL", url,
		"Ledger_Path", filepath.Join(dir, "ledger.db"), "Dead_Letter_Path", filepath.Join(dir, "dl.jsonl"),
		"Metrics_Address", "off", "Log_Level", "debug", "Max_Entry_Age", "87600h", "Max_Behind", "0",
		"Format_Roots", "claude-code="+root, "Redact_Secrets", redact))
	s.WriteString("init a expect 1\n")
	for _, c := range chunks {
		fmt.Fprintf(&s, "flush a %s bench expect 1\n", c)
	}
	s.WriteString("exit a expect 1\n")
	return s.String()
}

// hostCPU is the host's CPU time of one run, user and system.
type hostCPU struct{ user, sys time.Duration }

// runPlugin runs the host on script and returns its CPU time and the
// plugin's runtime figures.
func runPlugin(b *testing.B, script string) (hostCPU, runtimeStats) {
	b.Helper()
	res := runHostWith(quiet{b}, hostRun{Script: script, Timeout: 10 * time.Minute})
	if res.Err != nil {
		b.Fatal(res.Err)
	}
	return hostCPU{res.User, res.Sys}, parseRuntime(b, res.Stderr)
}

// quiet is a testing.TB that does not log the host's stderr (its debug
// log), which the benchmark reads instead.
type quiet struct{ testing.TB }

func (quiet) Logf(string, ...any) {}

// runtimeStats are the plugin's Go runtime figures of one run.
type runtimeStats struct{ mallocs, allocated, gcs int64 }

func (r *runtimeStats) add(o runtimeStats) {
	r.mallocs, r.allocated, r.gcs = r.mallocs+o.mallocs, r.allocated+o.allocated, r.gcs+o.gcs
}

var runtimeRe = regexp.MustCompile(`runtime: mallocs=(\d+) bytes_allocated=(\d+) gc_cycles=(\d+)`)

// parseRuntime reads the runtime line the plugin logs at exit.
func parseRuntime(b *testing.B, stderr string) runtimeStats {
	m := runtimeRe.FindStringSubmatch(stderr)
	if m == nil {
		b.Fatalf("no runtime line in the plugin's log:\n%s", stderr)
	}
	n := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	return runtimeStats{mallocs: n(m[1]), allocated: n(m[2]), gcs: n(m[3])}
}

// standIn is a local Loki that answers every push at once and counts the
// requests, their bytes and the entries in them.
type standIn struct {
	url                      string
	requests, bytes, entries atomic.Int64
}

func newStandIn(b *testing.B) *standIn {
	s := &standIn{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		raw, err := snappy.Decode(nil, body)
		var pr push.PushRequest
		if err == nil {
			err = pr.Unmarshal(raw)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.requests.Add(1)
		s.bytes.Add(int64(len(body)))
		for _, st := range pr.Streams {
			s.entries.Add(int64(len(st.Entries)))
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}
