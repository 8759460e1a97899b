package lokiproc

import (
	"bytes"
	"context"
	"io"
	"net/http"
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
