package output

import (
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnrepresentableEventTimeIsNotAPoisonChunk (found by FuzzFlush): an
// event whose integer time is far beyond year 9999 (here ~187 billion
// years, read from a broken chunk) and whose record must be dead-lettered.
// The dead-letter entry carries the event time, encoding/json refuses to
// marshal it, the dead-letter write fails and Flush returns Retry, every
// time: with Retry_Limit no_limits Fluent Bit retries the chunk forever,
// and the undecodable rest is appended to the dead-letter file again on
// each attempt. Expected: OK, with the record dead-lettered.
func TestUnrepresentableEventTimeIsNotAPoisonChunk(t *testing.T) {
	dir := t.TempDir()
	pc := &pushCounter{}
	srv := httptest.NewServer(pc)
	t.Cleanup(srv.Close)
	dlPath := filepath.Join(dir, "dl.jsonl")
	inst, err := NewInstance(getter(map[string]string{
		"Loki_URL": srv.URL, "Ledger_Path": filepath.Join(dir, "ledger.db"), "Dead_Letter_Path": dlPath,
		"Metrics_Address": "off", "Node_Name": "node-a", "Log_Level": "error",
	}))
	require.NoError(t, err)
	t.Cleanup(func() { inst.Close() })

	cases := map[string][]byte{
		// The fuzzer's input: [uint64 time, <not a map>] then garbage.
		"fuzzer input": []byte("\x92\xcfROR\",\"timestamp\":\"2026-11-22T03:17:11.291Z\",\"job_id\":\"01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789\",\"session_id\":\"01956a3b-8000-7000-8000-000000000001\",\"seq\":5}"),
		// A well-formed v1 chunk: one event, integer time 2^62 seconds,
		// a record without the log key (dead-lettered at decode).
		"well-formed chunk": chunk.AppendChunk(nil, chunk.FormatV1, chunk.Event{IntTime: true,
			Time: time.Unix(1<<62, 0), Fields: []chunk.Field{{Key: "file", Value: "/x.jsonl"}}}),
	}
	undecodable := inst.metrics.LinesDeadLettered.WithLabelValues(reasonUndecodableChunk)
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			for attempt := range 3 {
				assert.Equal(t, OK, inst.Flush(data, "t"), "attempt %d", attempt)
			}
		})
	}
	assert.Equal(t, 3.0, testutil.ToFloat64(undecodable), "the fuzzer's chunk is undecodable after its first event, each attempt counted")
}
