package retention

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/ledger"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

// t0 is the fake "now" of the scenario tests.
var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// finMode is what the fake finalizer does with a file.
type finMode int

const (
	finAccount     finMode = iota // record [0,size) and mark the file finished
	finNothing                    // leave it (still being written)
	finFail                       // fail as with Loki down
	finAppendAfter                // account, then append a line (a writer woke up)
)

// fakeFinalizer stands for finalize.Finalizer: it accounts for files in a
// real ledger as the real one does once Loki has every line.
type fakeFinalizer struct {
	l      *ledger.Ledger
	mu     sync.Mutex
	modes  map[string]finMode
	calls  []string
	before func(path string) // called first, when set
}

func (f *fakeFinalizer) File(ctx context.Context, path string) (finalize.Outcome, error) {
	if f.before != nil {
		f.before(path)
	}
	f.mu.Lock()
	f.calls = append(f.calls, path)
	mode := f.modes[filepath.Base(path)]
	f.mu.Unlock()
	switch mode {
	case finNothing:
		return finalize.Outcome{Path: path, Why: "still being written"}, nil
	case finFail:
		return finalize.Outcome{Path: path}, errors.New("loki: connection refused")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return finalize.Outcome{}, err
	}
	if err := account(ctx, f.l, path, data); err != nil {
		return finalize.Outcome{}, err
	}
	if mode == finAppendAfter {
		fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return finalize.Outcome{}, err
		}
		defer fh.Close()
		info, err := fh.Stat()
		if err != nil {
			return finalize.Outcome{}, err
		}
		if _, err = fh.WriteString(`{"type":"ERROR","timestamp":"2026-03-10T12:00:00.000Z"}` + "\n"); err != nil {
			return finalize.Outcome{}, err
		}
		// The old mtime kept (a copy with rsync -t, a clock step back):
		// only the size tells the file grew, and it must.
		return finalize.Outcome{Path: path, Finished: true}, os.Chtimes(path, info.ModTime(), info.ModTime())
	}
	return finalize.Outcome{Path: path, Finished: true, Why: "session ended"}, nil
}

// account records data's complete lines as shipped and marks the file
// finished at its size (the partial tail, if any, as marked).
func account(ctx context.Context, l *ledger.Ledger, path string, data []byte) error {
	tail := int64(bytes.LastIndexByte(data, '\n') + 1)
	if tail > 0 {
		if err := l.Record(ctx, []ledger.Segment{{Path: path, Start: 0, End: tail, Lines: bytes.Count(data, []byte("\n")), FirstSeq: -1, LastSeq: -1}}); err != nil {
			return err
		}
	}
	return l.MarkFinished(ctx, path, "", int64(len(data)), tail)
}

func (f *fakeFinalizer) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// fakeStatus answers per job directory name.
type fakeStatus struct {
	states map[string]format.GroupState
	errs   map[string]error
}

func (s fakeStatus) Group(_ context.Context, jobDir string) (format.GroupState, error) {
	name := filepath.Base(jobDir)
	if err := s.errs[name]; err != nil {
		return format.GroupState{}, err
	}
	return s.states[name], nil
}

type env struct {
	t      *testing.T
	root   string
	outer  string // a directory outside the root
	ledger *ledger.Ledger
	fin    *fakeFinalizer
	now    time.Time
	log    *bytes.Buffer
	cfg    Config
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	l, err := ledger.Open(ledger.Config{Path: filepath.Join(dir, "ledger.db")})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	e := &env{t: t, root: filepath.Join(dir, "sessions"), outer: filepath.Join(dir, "outside"), ledger: l,
		fin: &fakeFinalizer{l: l, modes: map[string]finMode{}}, now: t0, log: &bytes.Buffer{}}
	require.NoError(t, os.MkdirAll(e.root, 0o755))
	require.NoError(t, os.MkdirAll(e.outer, 0o755))
	e.cfg = DefaultConfig()
	e.cfg.Root, e.cfg.Log = e.root, e.log
	e.cfg.Now = func() time.Time { return e.now }
	return e
}

// line renders one journal event at time at.
func line(typ string, at time.Time, extra string) string {
	s := `{"type":"` + typ + `","timestamp":"` + at.UTC().Format("2006-01-02T15:04:05.000Z") + `","job_id":"j","session_id":"s","seq":0`
	if extra != "" {
		s += "," + extra
	}
	return s + "}\n"
}

// session is a session file that started at start and, when reason is not
// "", ended with it at end.
func session(start, end time.Time, reason string) string {
	s := line("SESSION_START", start, `"agent_id":"a"`) + line("LLM_REQUEST", start.Add(time.Second), "")
	if reason != "" {
		s += line("SESSION_END", end, `"reason":"`+reason+`"`)
	}
	return s
}

// write writes root/job/name with content and mtime.
func (e *env) write(job, name, content string, mtime time.Time) string {
	e.t.Helper()
	p := filepath.Join(e.root, job, name)
	require.NoError(e.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(e.t, os.WriteFile(p, []byte(content), 0o644))
	require.NoError(e.t, os.Chtimes(p, mtime, mtime))
	return p
}

// shipped records path as fully accounted for in the ledger now.
func (e *env) shipped(path string) {
	e.t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(e.t, err)
	require.NoError(e.t, account(context.Background(), e.ledger, path, data))
}

func (e *env) agent(status format.GroupStatus) *Agent {
	e.t.Helper()
	var fin Finalizer = e.fin
	if e.cfg.DryRun {
		fin = nil
	}
	a, err := New(e.cfg, status, fin, e.ledger, nil)
	require.NoError(e.t, err)
	return a
}

func (e *env) sweep(status format.GroupStatus) *Report {
	e.t.Helper()
	r, err := e.agent(status).Sweep(context.Background())
	require.NoError(e.t, err)
	return r
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// decision returns the report's decision for path.
func decision(t *testing.T, r *Report, path string) Decision {
	t.Helper()
	for _, d := range r.Decisions {
		if d.Path == path {
			return d
		}
	}
	t.Fatalf("no decision for %s in %+v", path, r.Decisions)
	return Decision{}
}

func testutilValue(m *Metrics, source string) float64 {
	return testutil.ToFloat64(m.StatusErrors.WithLabelValues(source))
}
