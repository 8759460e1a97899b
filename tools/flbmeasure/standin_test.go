package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protoBody is a snappy-compressed push of two streams holding three
// entries, as journalship and grafana-loki's plugin send them.
func protoBody(t *testing.T) []byte {
	t.Helper()
	at := time.Unix(1700000000, 0)
	req := push.PushRequest{Streams: []push.Stream{
		{Labels: `{service_name="agent-sessions"}`, Entries: []push.Entry{
			{Timestamp: at, Line: `{"type":"SESSION_START"}`,
				StructuredMetadata: push.LabelsAdapter{{Name: "seq", Value: "0"}}},
			{Timestamp: at.Add(time.Millisecond), Line: `{"type":"SESSION_END"}`},
		}},
		{Labels: `{service_name="other"}`, Entries: []push.Entry{{Timestamp: at, Line: "x"}}},
	}}
	raw, err := req.Marshal()
	require.NoError(t, err)
	return snappy.Encode(nil, raw)
}

// jsonBody is a push in Loki's JSON form, as Fluent Bit's C output sends it.
const jsonBody = `{"streams":[{"stream":{"service_name":"agent-sessions"},"values":[` +
	`["1700000000000000000","{\"log\":\"a\",\"file\":\"/f\",\"offset\":0}"],` +
	`["1700000000000000001","{\"log\":\"b\"}",{"seq":"1"}]]},` +
	`{"stream":{"service_name":"x"},"values":[["1700000000000000002","c"]]}]}`

func TestDecodePush(t *testing.T) {
	pb := protoBody(t)
	st, err := decodePush("application/x-protobuf", "", pb)
	require.NoError(t, err)
	assert.Equal(t, int64(3), st.entries)
	raw, _ := snappy.Decode(nil, pb)
	assert.Equal(t, int64(len(raw)), st.raw)

	st, err = decodePush("application/json", "", []byte(jsonBody))
	require.NoError(t, err)
	assert.Equal(t, pushStats{raw: int64(len(jsonBody)), entries: 3}, st)

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(jsonBody))
	require.NoError(t, zw.Close())
	st, err = decodePush("application/json", "gzip", gz.Bytes())
	require.NoError(t, err)
	assert.Equal(t, int64(3), st.entries)

	_, err = decodePush("application/x-protobuf", "", []byte("not snappy"))
	assert.Error(t, err)
	_, err = decodePush("application/json", "", []byte("{"))
	assert.Error(t, err)
}

func TestStandInCounts(t *testing.T) {
	s, err := startStandIn()
	require.NoError(t, err)
	defer s.close()
	pb := protoBody(t)
	for _, b := range []struct {
		ct   string
		body []byte
	}{{"application/x-protobuf", pb}, {"application/json", []byte(jsonBody)}} {
		resp, err := http.Post(s.url()+pushPath, b.ct, bytes.NewReader(b.body))
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	}
	// The stand-in answers before it counts: wait for the second count.
	c, lastErr, changed := s.snapshot()
	for c.Requests < 2 {
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatalf("counted %d requests of 2", c.Requests)
		}
		c, lastErr, changed = s.snapshot()
	}
	require.NoError(t, lastErr)
	assert.Equal(t, counts{Requests: 2, Bytes: int64(len(pb) + len(jsonBody)), Raw: c.Raw, Entries: 6}, c)
}
