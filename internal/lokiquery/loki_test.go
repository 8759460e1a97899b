package lokiquery

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/lokiproc"
)

// TestAgainstRealLoki checks pagination, bounds and label values against
// the real Loki binary (`make loki`).
func TestAgainstRealLoki(t *testing.T) {
	l := lokiproc.ForTest(t, lokiproc.Config{})
	start := time.Now().Add(-time.Hour).Truncate(time.Second).UTC()
	var streams []push.Stream
	var want []string
	for _, host := range []string{"h1", "h2", "h3"} {
		st := push.Stream{Labels: fmt.Sprintf(`{job="page", host=%q}`, host)}
		for i := range 20 {
			// timestamps tie within a stream (pairs) and across streams
			ts := start.Add(time.Duration(i/2) * time.Second)
			line := fmt.Sprintf("%s-%02d", host, i)
			st.Entries = append(st.Entries, push.Entry{Timestamp: ts, Line: line, StructuredMetadata: push.LabelsAdapter{{Name: "i", Value: fmt.Sprint(i)}}})
			want = append(want, fmt.Sprintf("%d|%s", ts.UnixNano(), line))
		}
		streams = append(streams, st)
	}
	pushProto(t, l.URL, streams)
	end := start.Add(9 * time.Second) // the last pair of each stream is exactly at end

	pages := &countingTransport{}
	c := &Client{URL: l.URL, HTTP: &http.Client{Transport: pages}}
	ctx := context.Background()
	_, err := c.WaitFor(ctx, `{job="page"}`, start, end, len(want), 20*time.Second)
	require.NoError(t, err)

	for _, tc := range []struct {
		dir       string
		limit     int
		wantPages int64 // at least
	}{{Forward, 7, 9}, {Backward, 7, 9}, {Forward, 1000, 1}, {Backward, 10, 6}} {
		t.Run(fmt.Sprintf("%s %d", tc.dir, tc.limit), func(t *testing.T) {
			before := pages.n.Load()
			got, err := c.QueryRange(ctx, `{job="page"}`, start, end, tc.limit, tc.dir)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, pages.n.Load()-before, tc.wantPages)
			keys := make([]string, len(got))
			for i, e := range got {
				keys[i] = fmt.Sprintf("%d|%s", e.Time.UnixNano(), e.Line)
			}
			assert.ElementsMatch(t, want, keys)
			for i := 1; i < len(got); i++ {
				assert.LessOrEqual(t, compareEntries(got[i-1], got[i]), 0, "sorted at %d", i)
			}
			assert.Len(t, got, 60)
		})
	}

	t.Run("end is inclusive, start is inclusive", func(t *testing.T) {
		at := start.Add(9 * time.Second)
		got, err := c.QueryRange(ctx, `{job="page", host="h1"}`, at, at, 10, Forward)
		require.NoError(t, err)
		assert.Equal(t, []string{"h1-18", "h1-19"}, lines(got))
	})

	t.Run("label values", func(t *testing.T) {
		vals, err := c.LabelValues(ctx, "host", start, end)
		require.NoError(t, err)
		assert.Equal(t, []string{"h1", "h2", "h3"}, vals)
	})

	t.Run("metric query is refused by QueryRange", func(t *testing.T) {
		_, err := c.QueryRange(ctx, `count_over_time({job="page"}[1m])`, start, end, 10, Forward)
		var rt *ResultTypeError
		require.ErrorAs(t, err, &rt)
	})

	t.Run("bad query is a permanent 400", func(t *testing.T) {
		_, err := c.QueryRange(ctx, `{job="page"`, start, end, 10, Forward)
		var he *HTTPError
		require.ErrorAs(t, err, &he)
		assert.Equal(t, http.StatusBadRequest, he.Status)
		assert.False(t, he.Retryable())
		t.Logf("400 body: %q", he.Body)
	})
}

// countingTransport counts the requests it forwards.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

func pushProto(t *testing.T, url string, streams []push.Stream) {
	t.Helper()
	raw, err := (&push.PushRequest{Streams: streams}).Marshal()
	require.NoError(t, err)
	resp, err := http.Post(url+"/loki/api/v1/push", "application/x-protobuf", bytes.NewReader(snappy.Encode(nil, raw)))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
}
