package pipeline

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"github.com/journalship/journalship/ledger"
	"github.com/stretchr/testify/require"
)

// modelLoki applies Loki's ingester too-far-behind rule (one hour, per
// stream, in arrival order) and answers 204 whatever it refused, as a
// sharded stream's refusal in a shard other than the last one is answered
// (pkg/ingester/instance.go Push overwrites appendErr per stream). It
// records what it refused.
type modelLoki struct {
	mu      sync.Mutex
	newest  map[string]time.Time
	refused []string
	stored  int
	// hold, when set, is called before a request is applied.
	hold func(pr *push.PushRequest)
	srv  *httptest.Server
}

func newModelLoki(t *testing.T) *modelLoki {
	m := &modelLoki{newest: map[string]time.Time{}}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		raw, err := snappy.Decode(nil, body)
		require.NoError(t, err)
		var pr push.PushRequest
		require.NoError(t, pr.Unmarshal(raw))
		if m.hold != nil {
			m.hold(&pr)
		}
		m.mu.Lock()
		for _, s := range pr.Streams {
			for _, e := range s.Entries {
				n := m.newest[s.Labels]
				if !n.IsZero() && n.Add(-time.Hour).After(e.Timestamp) {
					md := map[string]string{}
					for _, l := range e.StructuredMetadata {
						md[l.Name] = l.Value
					}
					m.refused = append(m.refused, s.Labels+" "+e.Timestamp.UTC().Format(time.RFC3339Nano)+
						" newest "+n.UTC().Format(time.RFC3339Nano)+" file "+filepath.Base(md["file"])+" off "+md["byte_offset"])
					continue
				}
				m.stored++
				if e.Timestamp.After(n) {
					m.newest[s.Labels] = e.Timestamp
				}
			}
		}
		m.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

// requireNoneRefused fails the test, listing them, when the model Loki
// refused any entry.
func (m *modelLoki) requireNoneRefused(t *testing.T, msg string) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.refused {
		t.Logf("refused: %s", r)
	}
	require.Empty(t, m.refused, msg)
}

func newModelPipe(t *testing.T, m *modelLoki, l *ledger.Ledger, now func() time.Time) *Pipeline {
	t.Helper()
	p, _ := pipeOn(t, m.srv.URL, 5*time.Second, l, func(c *Config) { c.Now = now }, nil, nil)
	return p
}

func openLedger(t *testing.T) *ledger.Ledger {
	l, err := ledger.Open(ledger.Config{Path: filepath.Join(t.TempDir(), "ledger.db")})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// writeShifted writes the golden journal with its 10:00 times replaced by
// hhmm (e.g. "08:00") as another session of the job.
func writeShifted(t *testing.T, root string, data []byte, hhmm, name string) (string, []byte) {
	t.Helper()
	d := []byte(strings.ReplaceAll(string(data), "2026-11-21T10:00:", "2026-11-21T"+hhmm+":"))
	path := filepath.Join(root, goldenJob, name)
	require.NoError(t, os.WriteFile(path, d, 0o644))
	return path, d
}

// TestConcurrentFlushesSendNothingBehind: two Fluent Bit workers
// (Workers 2, as shipped) flush concurrently into the same streams. Worker
// A re-stamps backfilled lines, then its request is slower than worker
// B's, which carries newer live lines of the same streams. Stamped at the
// stream's cutoff, A's entries would be refused as too far behind (in a
// sharded stream behind a 204, the ledger recording them as shipped);
// stamped at a time no stream refuses, they are stored.
func TestConcurrentFlushesSendNothingBehind(t *testing.T) {
	ctx := context.Background()
	m := newModelLoki(t)
	l := openLedger(t)
	p := newModelPipe(t, m, l, func() time.Time { return testNow })
	root, path, data := journalAt(t)
	_, err := p.Ship(ctx, tailRecords(path, data, testNow), "t") // newest 10:00:15
	require.NoError(t, err)

	pathA, dataA := writeShifted(t, root, data, "07:00", "session_20261121T070000Z_agent-worker-7.jsonl") // backfill
	// B's file must not share A's lock stripe (one in 256 names of the
	// temp dir do): B would wait for A, which waits for B.
	worker := 8
	for ledger.LockOrder(filepath.Join(root, goldenJob, fmt.Sprintf("session_20261121T100100Z_agent-worker-%d.jsonl", worker))) == ledger.LockOrder(pathA) {
		worker++
	}
	pathB, dataB := writeShifted(t, root, data, "10:01", fmt.Sprintf("session_20261121T100100Z_agent-worker-%d.jsonl", worker)) // live

	released := make(chan struct{})
	var once sync.Once
	m.hold = func(pr *push.PushRequest) {
		for _, s := range pr.Streams {
			for _, e := range s.Entries {
				for _, md := range e.StructuredMetadata {
					if md.Name == "file" && md.Value == pathA {
						<-released // A's request is the slower one
						return
					}
				}
			}
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := p.Ship(ctx, tailRecords(pathA, dataA, testNow), "a")
		require.NoError(t, err)
	}()
	// B judges after A did (A is blocked in its push) and pushes first.
	time.Sleep(300 * time.Millisecond)
	_, err = p.Ship(ctx, tailRecords(pathB, dataB, testNow), "b")
	require.NoError(t, err)
	once.Do(func() { close(released) })
	wg.Wait()

	m.requireNoneRefused(t, "entries Loki refused as too far behind were sent (and answered 204 in a sharded stream)")
}

// TestAnotherProcessUnderOurCeilingIsSeen: process A publishes its
// stream ceiling (newest + 5 min). Process B (the finalizer, `ship`)
// sends entries newer than A's newest but under that ceiling; A, which
// judges by its own exact newest time, must still learn of them (B raises
// the ceiling when within half the slack of it), or an entry 58 minutes
// behind A's newest would be sent and refused.
func TestAnotherProcessUnderOurCeilingIsSeen(t *testing.T) {
	ctx := context.Background()
	m := newModelLoki(t)
	l := openLedger(t)
	a := newModelPipe(t, m, l, func() time.Time { return testNow })
	b := newModelPipe(t, m, l, func() time.Time { return testNow })
	root, path, data := journalAt(t)
	_, err := a.Ship(ctx, tailRecords(path, data, testNow), "a") // A: newest 10:00:15, ceiling 10:05:15
	require.NoError(t, err)

	pathB, dataB := writeShifted(t, root, data, "10:04", "session_20261121T100400Z_agent-worker-8.jsonl")
	_, err = b.Ship(ctx, tailRecords(pathB, dataB, testNow), "b") // B: newest 10:04:15 < ceiling
	require.NoError(t, err)

	pathA, dataA := writeShifted(t, root, data, "09:02", "session_20261121T090200Z_agent-worker-9.jsonl")
	a.behind.read = time.Time{} // due for a refresh
	_, err = a.Ship(ctx, tailRecords(pathA, dataA, testNow), "a")
	require.NoError(t, err)

	m.requireNoneRefused(t, "entries Loki refused as too far behind were sent")
}

// TestSyntheticEntriesAreNeverBehind: the finalizer's side-file entries
// share the journal's streams (Kind is the event type): one two hours
// behind its stream's newest entry is re-stamped, not sent as it is.
func TestSyntheticEntriesAreNeverBehind(t *testing.T) {
	ctx := context.Background()
	m := newModelLoki(t)
	l := openLedger(t)
	p := newModelPipe(t, m, l, func() time.Time { return testNow })
	_, path, data := journalAt(t)
	_, err := p.Ship(ctx, tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	err = p.ShipSynthetic(ctx, []Synthetic{{Path: path, Kind: "LLM_RESPONSE", Time: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC),
		Line: []byte(`{"from":"a side file"}`)}})
	require.NoError(t, err)
	m.requireNoneRefused(t, "a synthetic entry Loki refuses as too far behind was sent")
}
