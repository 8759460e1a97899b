package lokiproc

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grafana/loki/pkg/push"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/childproc"
	"github.com/journalship/journalship/internal/lokiquery"
)

// These tests run the real Loki binary (`make loki`); see ForTest.

func TestLokiRoundTripWithStructuredMetadata(t *testing.T) {
	l := ForTest(t, Config{})
	t.Logf("loki ready in %s at %s", l.Ready, l.URL)
	base := time.Now().Add(-time.Minute).Truncate(time.Second).UTC()
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"héllo \"world\"\n<b>&amp;</b>"}}`,
		"tab\tseparated  trailing spaces  ",
		`{"type":"assistant","uuid":"6f1c","emoji":"🚀","nul_escape":"\u0000"}`,
	}
	var entries []push.Entry
	for i, line := range lines {
		entries = append(entries, push.Entry{
			Timestamp:          base.Add(time.Duration(i) * time.Millisecond),
			Line:               line,
			StructuredMetadata: meta("session_id", "s-1", "event_index", string(rune('0'+i))),
		})
	}
	// A replayed journal can be days old: the default config accepts it
	// and queries still reach the ingester.
	old := base.Add(-10 * 24 * time.Hour)
	res := pushStreams(t, l.URL,
		push.Stream{Labels: `{job="lokiproc-test", host="h1"}`, Entries: entries},
		push.Stream{Labels: `{job="lokiproc-old"}`, Entries: []push.Entry{{Timestamp: old, Line: "ten days old", StructuredMetadata: meta("k", "v")}}},
	)
	require.Equal(t, http.StatusNoContent, res.Status, res.Body)

	q := &lokiquery.Client{URL: l.URL}
	ctx := context.Background()
	got, err := q.WaitFor(ctx, `{job="lokiproc-test"}`, base.Add(-time.Second), time.Now(), len(lines), 20*time.Second)
	require.NoError(t, err)
	require.Len(t, got, len(lines))
	for i, e := range got {
		assert.Equal(t, lines[i], e.Line, "line %d byte-exact", i)
		assert.True(t, base.Add(time.Duration(i)*time.Millisecond).Equal(e.Time), "time %d: %s", i, e.Time)
		assert.Equal(t, map[string]string{"session_id": "s-1", "event_index": string(rune('0' + i))}, e.Metadata, "metadata %d", i)
		assert.Equal(t, map[string]string{"job": "lokiproc-test", "host": "h1"}, e.Stream, "stream %d", i)
	}

	oldGot, err := q.QueryRange(ctx, `{job="lokiproc-old"}`, old, old, 10, lokiquery.Forward)
	require.NoError(t, err)
	require.Len(t, oldGot, 1)
	assert.Equal(t, "ten days old", oldGot[0].Line)
	assert.Equal(t, map[string]string{"k": "v"}, oldGot[0].Metadata)

	samples, err := q.Instant(ctx, `sum(count_over_time({job="lokiproc-test"}[1h]))`, time.Now())
	require.NoError(t, err)
	require.Len(t, samples, 1)
	assert.Equal(t, float64(len(lines)), samples[0].Value)

	byMeta, err := q.Instant(ctx, `sum by (event_index) (count_over_time({job="lokiproc-test"} | session_id="s-1" [1h]))`, time.Now())
	require.NoError(t, err)
	require.Len(t, byMeta, len(lines))
	for i, s := range byMeta {
		assert.Equal(t, map[string]string{"event_index": string(rune('0' + i))}, s.Metric)
		assert.Equal(t, 1.0, s.Value)
	}
}

// TestLokiRejections provokes real 400s with Config.Limits and checks that
// Loki keeps the valid entries of the rejected request. The 400 bodies are
// logged on purpose: code that classifies Loki answers needs their text.
func TestLokiRejections(t *testing.T) {
	now := time.Now().UTC()
	cases := []struct {
		name     string
		limits   map[string]any
		bad      []push.Entry
		wantBody string
	}{
		{
			name:     "line too long",
			limits:   map[string]any{"max_line_size": "1KB"},
			bad:      []push.Entry{{Timestamp: now.Add(-time.Second), Line: strings.Repeat("x", 2000)}},
			wantBody: "max entry size '1024' bytes exceeded for stream '{job=\"reject\"}' while adding an entry with length '2000' bytes",
		},
		{
			name:   "two lines too long",
			limits: map[string]any{"max_line_size": "1KB"},
			bad: []push.Entry{
				{Timestamp: now.Add(-time.Second), Line: strings.Repeat("x", 2000)},
				{Timestamp: now.Add(-time.Second / 2), Line: strings.Repeat("y", 3000)},
			},
			wantBody: "1 errors like: max entry size '1024' bytes exceeded",
		},
		{
			// unordered writes still refuse an entry older than the newest
			// of its stream by more than max_chunk_age/2 (1h)
			name:     "too far behind",
			limits:   nil,
			bad:      []push.Entry{{Timestamp: now.Add(-2 * time.Hour), Line: "two hours behind"}},
			wantBody: "too far behind",
		},
		{
			name:     "too old",
			limits:   map[string]any{"reject_old_samples": true, "reject_old_samples_max_age": "1h"},
			bad:      []push.Entry{{Timestamp: now.Add(-2 * time.Hour), Line: "two hours old"}},
			wantBody: "timestamp too old",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := ForTest(t, Config{Limits: tc.limits})
			good := []push.Entry{
				{Timestamp: now.Add(-3 * time.Second), Line: "short one", StructuredMetadata: meta("n", "1")},
				{Timestamp: now.Add(-2 * time.Second), Line: "short two", StructuredMetadata: meta("n", "2")},
			}
			entries := append([]push.Entry{good[0]}, tc.bad...)
			stream := push.Stream{Labels: `{job="reject"}`, Entries: append(entries, good[1])}
			res := pushStreams(t, l.URL, stream)
			t.Logf("HTTP %d body: %q", res.Status, res.Body)
			require.Equal(t, http.StatusBadRequest, res.Status)
			assert.Contains(t, res.Body, tc.wantBody)

			q := &lokiquery.Client{URL: l.URL}
			got, err := q.WaitFor(context.Background(), `{job="reject"}`, now.Add(-3*time.Hour), now, 2, 20*time.Second)
			require.NoError(t, err)
			lines := make([]string, len(got))
			for i, e := range got {
				lines[i] = e.Line
			}
			assert.Equal(t, []string{"short one", "short two"}, lines)
		})
	}
}

func TestStopRemovesTempDirOnly(t *testing.T) {
	l := ForTest(t, Config{}) // skips without bin/loki (fails in CI)
	assert.Equal(t, childproc.Addr(l.Ports[1]), l.GRPCAddr)
	assert.Equal(t, filepath.Join(l.Dir, "loki.yaml"), l.ConfigPath)
	require.FileExists(t, l.LogPath)
	require.NoError(t, l.Stop())
	assert.True(t, l.Exited())
	assert.NoDirExists(t, l.Dir)
	assert.NoError(t, l.Stop(), "second Stop is a no-op")

	kept := t.TempDir()
	l, err := Start(context.Background(), Config{Dir: kept})
	require.NoError(t, err)
	require.NoError(t, l.Stop())
	assert.Equal(t, filepath.Join(kept, "loki.log"), l.LogPath, "a caller's Dir is kept")
	log, err := os.ReadFile(l.LogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "Loki started")
}
