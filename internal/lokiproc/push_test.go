package lokiproc

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"github.com/stretchr/testify/require"
)

// pushResult is Loki's answer to one push request.
type pushResult struct {
	Status int
	Body   string
}

// pushStreams sends streams to Loki's push API as snappy-compressed
// protobuf, the way the journalship plugin does, and returns the answer.
func pushStreams(t *testing.T, baseURL string, streams ...push.Stream) pushResult {
	t.Helper()
	raw, err := (&push.PushRequest{Streams: streams}).Marshal()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/loki/api/v1/push", bytes.NewReader(snappy.Encode(nil, raw)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return pushResult{Status: resp.StatusCode, Body: string(body)}
}

// meta builds structured metadata from name, value pairs.
func meta(kv ...string) push.LabelsAdapter {
	out := make(push.LabelsAdapter, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, push.LabelAdapter{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

// TestMultiStreamRequestHidesAnEarlierStreamsRefusal: why journalship
// sends one stream per request (loki.Config.MultiStreamRequests). An
// ingester keeps only the last stream's error of a request: a stream over
// its per-stream rate limit is refused with 429 when it is last, and the
// same refusal is answered 204 when a stream that fits comes after it.
func TestMultiStreamRequestHidesAnEarlierStreamsRefusal(t *testing.T) {
	l := ForTest(t, Config{Limits: map[string]any{"per_stream_rate_limit": "10KB", "per_stream_rate_limit_burst": "20KB",
		"shard_streams": map[string]any{"enabled": false}}})
	now := time.Now()
	line := strings.Repeat("x", 1000)
	stream := func(job string, n int) push.Stream {
		s := push.Stream{Labels: `{job="` + job + `"}`}
		for i := range n {
			s.Entries = append(s.Entries, push.Entry{Timestamp: now.Add(time.Duration(i) * time.Millisecond), Line: line})
		}
		return s
	}
	last := pushStreams(t, l.URL, stream("fits", 2), stream("over-last", 60))
	require.Equal(t, http.StatusTooManyRequests, last.Status, last.Body)
	require.Contains(t, last.Body, "Per stream rate limit exceeded")
	hidden := pushStreams(t, l.URL, stream("over-first", 60), stream("fits-after", 2))
	require.Equal(t, http.StatusNoContent, hidden.Status, "the first stream's refusal is not reported: %s", hidden.Body)
}
