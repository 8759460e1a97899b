package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/deadletter"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/loki"
	"github.com/journalship/journalship/metrics"
	"github.com/stretchr/testify/require"
)

// capture decodes the push requests the real client sends, for golden
// files. It answers 204 unless told to fail.
type capture struct {
	mu     sync.Mutex
	reqs   []push.PushRequest
	status int
	// statusFor, when set, answers request n (from 0) instead of status.
	statusFor func(n int) int
	n         int
	srv       *httptest.Server
}

func newCapture(t *testing.T) *capture {
	c := &capture{status: http.StatusNoContent}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		raw, err := snappy.Decode(nil, body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var pr push.PushRequest
		if err := pr.Unmarshal(raw); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		c.mu.Lock()
		status := c.status
		if c.statusFor != nil {
			status = c.statusFor(c.n)
		}
		c.n++
		if status/100 == 2 {
			c.reqs = append(c.reqs, pr)
		}
		c.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *capture) setStatus(s int) {
	c.mu.Lock()
	c.status = s
	c.mu.Unlock()
}

// entries returns every captured entry with its stream labels.
func (c *capture) entries() []capturedEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []capturedEntry
	for _, r := range c.reqs {
		for _, s := range r.Streams {
			for _, e := range s.Entries {
				md := map[string]string{}
				for _, m := range e.StructuredMetadata {
					md[m.Name] = m.Value
				}
				out = append(out, capturedEntry{labels: s.Labels, ts: e.Timestamp, line: e.Line, md: md})
			}
		}
	}
	return out
}

type capturedEntry struct {
	labels string
	ts     time.Time
	line   string
	md     map[string]string
}

// render prints entries readably, ordered by file offset, with root
// replaced so that golden files do not depend on the temp dir.
func render(es []capturedEntry, root string) string {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].md["file"] != es[j].md["file"] {
			return es[i].md["file"] < es[j].md["file"]
		}
		return len(es[i].md["byte_offset"]) < len(es[j].md["byte_offset"]) ||
			len(es[i].md["byte_offset"]) == len(es[j].md["byte_offset"]) && es[i].md["byte_offset"] < es[j].md["byte_offset"]
	})
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%s %s\n  %s\n", e.ts.UTC().Format(time.RFC3339Nano), e.labels, e.line)
		keys := make([]string, 0, len(e.md))
		for k := range e.md {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s=%s\n", k, strings.ReplaceAll(e.md[k], root, "<root>"))
		}
	}
	return b.String()
}

const goldenJob = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"

// journalAt copies testdata/journal.jsonl to a path with the seed's naming.
func journalAt(t *testing.T) (root, path string, data []byte) {
	t.Helper()
	data, err := os.ReadFile("testdata/journal.jsonl")
	require.NoError(t, err)
	root = t.TempDir()
	path = filepath.Join(root, goldenJob, "session_20261121T100000Z_agent-worker-1.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return root, path, data
}

// tailRecords splits data as Fluent Bit's tail input does.
func tailRecords(path string, data []byte, at time.Time) []chunk.Record {
	var recs []chunk.Record
	off := 0
	for {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return recs
		}
		line := bytes.TrimSuffix(data[off:off+i], []byte("\r"))
		if len(line) > 0 {
			recs = append(recs, chunk.Record{Time: at, Line: line, Path: []byte(path), Offset: int64(off), HasOffset: true, Index: len(recs)})
		}
		off += i + 1
	}
}

type env struct {
	pipe    *Pipeline
	cap     *capture
	ledger  *ledger.Ledger
	dlPath  string
	metrics *metrics.Set
}

var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newEnv(t *testing.T, mutate func(*Config)) *env {
	t.Helper()
	return newEnvPriced(t, mutate, nil)
}

// newEnvPriced is newEnv with a price table.
func newEnvPriced(t *testing.T, mutate func(*Config), prices Pricer) *env {
	t.Helper()
	c := newCapture(t)
	dir := t.TempDir()
	l, err := ledger.Open(ledger.Config{Path: filepath.Join(dir, "ledger.db")})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	m := metrics.New()
	p, dlPath := pipeOn(t, c.srv.URL, 2*time.Second, l, mutate, prices, m)
	return &env{pipe: p, cap: c, ledger: l, dlPath: dlPath, metrics: m}
}

// pipeOn is a test pipeline shipping to the Loki at url (each push given
// timeout), on ledger l, with its own dead-letter file (returned).
func pipeOn(t *testing.T, url string, timeout time.Duration, l Ledger, mutate func(*Config), prices Pricer, m *metrics.Set) (*Pipeline, string) {
	t.Helper()
	lc := loki.DefaultConfig()
	lc.URL = url
	lc.Timeout = timeout
	client, err := loki.New(lc, nil)
	require.NoError(t, err)
	dl, err := deadletter.Open(deadletter.Config{Path: filepath.Join(t.TempDir(), "dl.jsonl"), Sync: true})
	require.NoError(t, err)
	t.Cleanup(func() { dl.Close() })
	cfg := DefaultConfig()
	cfg.Enrich.Node = "node-a"
	cfg.Enrich.Static = map[string]string{"service_name": "agent-sessions"}
	cfg.Now = func() time.Time { return testNow }
	if mutate != nil {
		mutate(&cfg)
	}
	p, err := New(cfg, Deps{Pusher: client, Ledger: l, DeadLetters: dl, Metrics: m, Prices: prices})
	require.NoError(t, err)
	return p, dl.Path()
}

func (e *env) deadLetters(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(e.dlPath)
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
