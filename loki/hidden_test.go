package loki_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/loki"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIngester400HidingDistributorRefusalsIsConfirmed, against the real
// Loki: its distributor returns the ingester's error when there is one,
// dropping its own validation errors (pkg/distributor/distributor.go:
// `case err := <-tracker.err: return nil, err`). A request with a line
// the distributor refuses (too long here) and one the ingester refuses
// (too far behind) is answered with the ingester's 400 alone; it says the
// ingester received fewer entries than were sent, so the client sends
// the unnamed ones again and learns of the too-long line, never taking it
// for stored.
func TestIngester400HidingDistributorRefusalsIsConfirmed(t *testing.T) {
	l := lokiproc.ForTest(t, lokiproc.Config{Limits: map[string]any{"max_line_size": "1KB"}})
	cfg := loki.DefaultConfig()
	cfg.URL = l.URL
	c, err := loki.New(cfg, nil)
	require.NoError(t, err)
	now := time.Now().UTC().Truncate(time.Millisecond)
	labels := []loki.Label{{Name: "job", Value: "hidden"}}
	b := loki.NewBatch()
	require.NoError(t, b.Add(labels, loki.Entry{Timestamp: now.Add(-3 * time.Second), Line: "newest", Ref: 0}))
	require.NoError(t, b.Add(labels, loki.Entry{Timestamp: now.Add(-2 * time.Hour), Line: "two hours behind", Ref: 1}))
	require.NoError(t, b.Add(labels, loki.Entry{Timestamp: now.Add(-2 * time.Second), Line: strings.Repeat("x", 2000), Ref: 2}))
	require.NoError(t, b.Add(labels, loki.Entry{Timestamp: now.Add(-1 * time.Second), Line: "after", Ref: 3}))
	res, err := c.Push(context.Background(), b)
	t.Logf("err=%v res=%+v", err, res)
	q := &lokiquery.Client{URL: l.URL}
	got, qerr := q.WaitFor(context.Background(), `{job="hidden"}`, now.Add(-3*time.Hour), now.Add(time.Minute), 2, 20*time.Second)
	require.NoError(t, qerr)
	var lines []string
	for _, e := range got {
		lines = append(lines, e.Line[:min(len(e.Line), 20)])
	}
	t.Logf("stored: %q", lines)
	refused := map[int]bool{}
	for _, rj := range res.Rejected {
		refused[rj.Ref] = true
	}
	require.NoError(t, err)
	assert.True(t, refused[1], "the line too far behind is refused")
	assert.True(t, refused[2], "the too-long line (not stored: %q) is refused, not taken for stored", lines)
	assert.ElementsMatch(t, []string{"newest", "after"}, lines)
}
