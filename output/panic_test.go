package output

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/metrics"
)

// poisonMarker makes the record hook of these tests panic.
const poisonMarker = "POISON-FOR-THE-TEST"

// injectRecordPanic makes Flush panic on every record whose line holds
// poisonMarker, for the rest of the test.
func injectRecordPanic(t *testing.T) {
	t.Helper()
	recordHook = func(r *chunk.Record) {
		if bytes.Contains(r.Line, []byte(poisonMarker)) {
			panic("injected: poisoned line")
		}
	}
	t.Cleanup(func() { recordHook = nil })
}

// captureLog sends l's lines to a buffer for the rest of the test.
func captureLog(t *testing.T, l *logger) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	l.mu.Lock()
	old := l.w
	l.w = &buf
	l.mu.Unlock()
	t.Cleanup(func() {
		l.mu.Lock()
		l.w = old
		l.mu.Unlock()
	})
	return &buf
}

// logText reads what captureLog captured so far.
func logText(l *logger, buf *bytes.Buffer) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return buf.String()
}

// journalChunk writes lines as a journal file and returns it with the
// chunk of its tail events and their offsets.
func journalChunk(t *testing.T, lines ...[]byte) (path string, data []byte, offsets []int64) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", "session_20261121T100000Z_agent-worker-1.jsonl")
	var file []byte
	var evs []chunk.Event
	for _, l := range lines {
		offsets = append(offsets, int64(len(file)))
		evs = append(evs, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, int64(len(file)), l))
		file = append(append(file, l...), '\n')
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, file, 0o644))
	return path, chunk.AppendChunk(nil, chunk.FormatV2, evs...), offsets
}

// panicInstance is an instance shipping to a fake Loki, its log captured.
func panicInstance(t *testing.T) (*Instance, *pushCounter, *bytes.Buffer, string) {
	t.Helper()
	pc := &pushCounter{}
	srv := httptest.NewServer(pc)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	dl := filepath.Join(dir, "dl.jsonl")
	inst, err := NewInstance(getter(map[string]string{"Loki_URL": srv.URL, "Ledger_Path": filepath.Join(dir, "ledger.db"),
		"Dead_Letter_Path": dl, "Metrics_Address": "off", "Node_Name": "n", "Log_Level": "error"}))
	require.NoError(t, err)
	t.Cleanup(func() { inst.Close() })
	return inst, pc, captureLog(t, inst.log), dl
}

func (p *pushCounter) has(line []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if l == string(line) {
			return true
		}
	}
	return false
}

// counts reads the series a flush panic touches.
type panicMetrics struct{ panics, deadLettered, retries float64 }

func readPanicMetrics(m *metrics.Set) panicMetrics {
	return panicMetrics{
		panics:       testutil.ToFloat64(m.Panics.WithLabelValues(string(EntryFlush))),
		deadLettered: testutil.ToFloat64(m.LinesDeadLettered.WithLabelValues(reasonPanic)),
		retries:      testutil.ToFloat64(m.Retries.WithLabelValues(causePanic)),
	}
}

// TestFlushPanicRetriesThenDeadLetters: a chunk whose flush panics is
// answered Retry, its log line naming the tag, the file and the offset of
// the record at fault, until it has panicked panicsBeforeDeadLetter times;
// then it is in the dead-letter file whole and answered OK. Other chunks
// ship meanwhile and afterwards, and the panics are counted.
func TestFlushPanicRetriesThenDeadLetters(t *testing.T) {
	injectRecordPanic(t)
	inst, pc, logBuf, dlPath := panicInstance(t)
	before := readPanicMetrics(inst.metrics)

	good := cortex.Lines(1, 6)
	poisoned := append(append([][]byte{}, good[:2]...), []byte(`{"type":"TOOL_CALL","note":"`+poisonMarker+`"}`))
	poisonPath, poison, offsets := journalChunk(t, poisoned...)
	_, okChunk, _ := journalChunk(t, good[2:4]...)
	_, lastChunk, _ := journalChunk(t, good[4:]...)

	for n := 1; n < panicsBeforeDeadLetter; n++ {
		require.Equal(t, Retry, inst.Flush(poison, "sessions.poison"), "panic %d", n)
		require.Equal(t, OK, inst.Flush(okChunk, "sessions.ok"), "a healthy chunk ships between the retries")
	}
	log := logText(inst.log, logBuf)
	assert.Contains(t, log, "flush panicked tag=sessions.poison while decoding record 2")
	assert.Contains(t, log, fmt.Sprintf("file=%q offset=%d", poisonPath, offsets[2]), "the file and offset of the record at fault")
	assert.Contains(t, log, "injected: poisoned line")
	assert.Contains(t, log, "panic_test.go", "the stack")
	assert.Contains(t, log, fmt.Sprintf("panic 1 of %d", panicsBeforeDeadLetter))
	assert.Empty(t, readDeadLetters(t, dlPath), "nothing dead-lettered before the bound")

	require.Equal(t, OK, inst.Flush(poison, "sessions.poison"), "the last panic dead-letters the chunk")
	dls := readDeadLetters(t, dlPath)
	require.Len(t, dls, 1)
	assert.Equal(t, "panic", dls[0]["stage"])
	assert.Equal(t, "sessions.poison", dls[0]["tag"])
	assert.Equal(t, poisonPath, dls[0]["file"], "under the chunk's first record")
	assert.EqualValues(t, 0, dls[0]["offset"])
	assert.Contains(t, dls[0]["reason"], "injected: poisoned line")
	raw, err := base64.StdEncoding.DecodeString(dls[0]["line"].(string))
	require.NoError(t, err)
	assert.Equal(t, poison, raw, "the raw chunk, whole")
	assert.Zero(t, inst.panics.Len(), "a dead-lettered chunk is forgotten")

	require.Equal(t, OK, inst.Flush(lastChunk, "sessions.ok"), "the instance goes on shipping")
	for _, l := range good[2:] {
		assert.True(t, pc.has(l), "shipped: %s", l)
	}
	assert.False(t, pc.has(good[0]), "the poisoned chunk's lines are in the dead-letter file, not in Loki")
	after := readPanicMetrics(inst.metrics)
	assert.Equal(t, float64(panicsBeforeDeadLetter), after.panics-before.panics, "panics_total{entry=flush}")
	assert.Equal(t, 1.0, after.deadLettered-before.deadLettered, `lines_dead_lettered_total{reason="panic"}: one per chunk`)
	assert.Equal(t, float64(panicsBeforeDeadLetter-1), after.retries-before.retries, `retries_total{cause="panic"}`)
}

// TestFlushPanicWithoutDeadLetterRetries: when the chunk that reached the
// bound cannot be dead-lettered, the flush answers Retry (the chunk is
// kept) and dead-letters it on the next attempt once the file is writable.
func TestFlushPanicWithoutDeadLetterRetries(t *testing.T) {
	injectRecordPanic(t)
	inst, _, logBuf, dlPath := panicInstance(t)
	_, poison, _ := journalChunk(t, []byte(poisonMarker))
	for range panicsBeforeDeadLetter - 1 {
		require.Equal(t, Retry, inst.Flush(poison, "t"))
	}
	// A directory where the dead-letter file was: the writer cannot reopen it.
	require.NoError(t, os.Remove(dlPath))
	require.NoError(t, os.Mkdir(dlPath, 0o755))
	assert.Equal(t, Retry, inst.Flush(poison, "t"), "not dead-lettered: retried")
	assert.Contains(t, logText(inst.log, logBuf), "cannot dead-letter the chunk")

	require.NoError(t, os.Remove(dlPath))
	assert.Equal(t, OK, inst.Flush(poison, "t"))
	assert.Len(t, readDeadLetters(t, dlPath), 1)
}

// TestFlushPanicIsPerChunk: panics of different chunks (other bytes, or
// the same bytes under another tag) are counted apart.
func TestFlushPanicIsPerChunk(t *testing.T) {
	injectRecordPanic(t)
	inst, _, _, dlPath := panicInstance(t)
	_, a, _ := journalChunk(t, []byte(poisonMarker+" a"))
	_, b, _ := journalChunk(t, []byte(poisonMarker+" b"))
	for range panicsBeforeDeadLetter - 1 {
		require.Equal(t, Retry, inst.Flush(a, "t"))
		require.Equal(t, Retry, inst.Flush(b, "t"))
		require.Equal(t, Retry, inst.Flush(a, "other"))
	}
	assert.Empty(t, readDeadLetters(t, dlPath))
	assert.Equal(t, 3, inst.panics.Len())
}

// TestNewInstancePanicFailsCleanly: a panic while building an instance is
// an error (a *PanicError), counted, and the
// instance's resources are released (here: its metrics endpoint).
func TestNewInstancePanicFailsCleanly(t *testing.T) {
	initHook = func(Getter) { panic("injected: init") }
	t.Cleanup(func() { initHook = nil })
	settings := func() map[string]string {
		dir := t.TempDir()
		return map[string]string{"Loki_URL": "http://127.0.0.1:1", "Ledger_Path": filepath.Join(dir, "ledger.db"),
			"Dead_Letter_Path": filepath.Join(dir, "dl.jsonl"), "Metrics_Address": "off", "Log_Level": "error"}
	}

	// First: a leaked instance would keep the process set, and its
	// endpoint, for the later subtests.
	t.Run("released", func(t *testing.T) {
		s := settings()
		s["Metrics_Address"] = freeAddr(t)
		_, err := NewInstance(getter(s))
		require.Error(t, err)
		l, err := net.Listen("tcp", s["Metrics_Address"])
		require.NoError(t, err, "the metrics endpoint the instance had started is stopped")
		l.Close()
	})

	t.Run("counted", func(t *testing.T) {
		held, err := metrics.Acquire(metrics.Config{}) // keeps the process set to read it
		require.NoError(t, err)
		defer metrics.Release()
		before := testutil.ToFloat64(held.Panics.WithLabelValues(string(EntryInit)))
		inst, err := NewInstance(getter(settings()))
		assert.Nil(t, inst)
		var pe *PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, EntryInit, pe.Entry)
		assert.Contains(t, err.Error(), "injected: init")
		assert.Equal(t, before+1, testutil.ToFloat64(held.Panics.WithLabelValues(string(EntryInit))))
	})
}

// TestGuard: a panic in a guarded entry point returns the entry's failure
// code, logged with its stack and counted; without a panic fn's result is
// returned.
func TestGuard(t *testing.T) {
	held, err := metrics.Acquire(metrics.Config{})
	require.NoError(t, err)
	defer metrics.Release()
	logBuf := captureLog(t, processLog)
	before := testutil.ToFloat64(held.Panics.WithLabelValues(string(EntryUnregister)))

	assert.Equal(t, OK, Guard(EntryFlush, Retry, func() int { return OK }))
	assert.Equal(t, Error, Guard(EntryUnregister, Error, func() int {
		var m map[string]int
		m["x"] = 1 // a runtime error
		return OK
	}))
	log := logText(processLog, logBuf)
	assert.Contains(t, log, "unregister panicked: assignment to entry in nil map")
	assert.Contains(t, log, "TestGuard", "the stack")
	assert.Equal(t, before+1, testutil.ToFloat64(held.Panics.WithLabelValues(string(EntryUnregister))))
}

// TestPanicMetricsPreset: every series a panic touches exists at 0 once an
// instance is open.
func TestPanicMetricsPreset(t *testing.T) {
	addr := freeAddr(t)
	pricedInstance(t, map[string]string{"Metrics_Address": addr})
	body := scrape(t, "http://"+addr+"/metrics")
	for _, e := range entries {
		assert.Contains(t, body, fmt.Sprintf(`journalship_panics_total{entry=%q} 0`, e))
	}
	assert.Contains(t, body, `journalship_lines_dead_lettered_total{reason="panic"} 0`)
	assert.Contains(t, body, `journalship_retries_total{cause="panic"} 0`)
}

// scrape returns the page at url.
func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// TestFlushSpotDescribe names the records a flush was on when it panicked.
func TestFlushSpotDescribe(t *testing.T) {
	a := chunk.Record{Path: []byte("/j/a.jsonl"), Offset: 10, HasOffset: true, Index: 0}
	b := chunk.Record{Path: []byte("/j/a.jsonl"), Offset: 90, HasOffset: true, Index: 1}
	noOffset := chunk.Record{Path: []byte("/j/b.jsonl"), Index: 2}
	cases := []struct {
		spot flushSpot
		want string
	}{
		{flushSpot{decoding: true, recs: []chunk.Record{a}, cur: &b}, `while decoding record 1 (file="/j/a.jsonl" offset=90)`},
		{flushSpot{decoding: true, recs: []chunk.Record{a, b}}, "while decoding, after 2 records"},
		{flushSpot{recs: []chunk.Record{a, b}}, `while shipping its 2 records, first file="/j/a.jsonl" offset=10, last file="/j/a.jsonl" offset=90`},
		{flushSpot{recs: []chunk.Record{noOffset}}, `while shipping its one record (file="/j/b.jsonl" offset=unknown)`},
		{flushSpot{}, "in a chunk of no records"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tc.spot.describe())
	}
}

// TestPanicErrorUnwraps: a runtime error passed to panic stays reachable.
func TestPanicErrorUnwraps(t *testing.T) {
	cause := errors.New("cause")
	err := error(&PanicError{Entry: EntryExit, Value: cause})
	assert.ErrorIs(t, err, cause)
	assert.True(t, strings.HasPrefix(err.Error(), "exit panicked: cause"))
}
