package lokiquery

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// fixtureBytes is fixture for table literals built outside a test.
func fixtureBytes(name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return b
}

func trimmed(s string) string { return strings.TrimSpace(s) }

func ns(n int64) time.Time { return time.Unix(0, n).UTC() }

func TestDecodeStreamsRecorded(t *testing.T) {
	h1 := map[string]string{"host": "h1", "job": "journal"}
	h2 := map[string]string{"host": "h2", "job": "journal"}
	userLine := "{\"type\":\"user\",\"level\":\"info\",\"text\":\"héllo <b>&</b>\\n\\\"q\\\"\"}"
	asstLine := `{"type":"assistant","level":"warn","text":"🚀"}`
	cases := []struct {
		file string
		want []Entry
	}{
		{
			file: "query_range_streams.json",
			want: []Entry{
				{Time: ns(1795314320000000000), Line: userLine, Stream: h1, Metadata: map[string]string{"event_type": "user", "session_id": "s-1"}},
				{Time: ns(1795314320001000000), Line: asstLine, Stream: h1, Metadata: map[string]string{"event_type": "assistant", "session_id": "s-1"}},
				{Time: ns(1795314320001000000), Line: "same timestamp, no metadata", Stream: h1},
				{Time: ns(1795314320002000000), Line: "bad utf8: \uFFFD\uFFFD end", Stream: h2, Metadata: map[string]string{"session_id": "s-2"}},
			},
		},
		{
			file: "query_range_parsed.json",
			want: []Entry{
				{
					Time: ns(1795314320000000000), Line: userLine, Stream: h1,
					Metadata: map[string]string{"event_type": "user", "session_id": "s-1", "level": "info", "type": "user"},
					Parsed:   map[string]string{"level": "info", "type": "user"},
				},
				{
					Time: ns(1795314320001000000), Line: "same timestamp, no metadata", Stream: h1,
					Metadata: map[string]string{"__error__": "JSONParserErr"},
					Parsed:   map[string]string{"__error__": "JSONParserErr"},
				},
				{
					Time: ns(1795314320001000000), Line: asstLine, Stream: h1,
					Metadata: map[string]string{"event_type": "assistant", "session_id": "s-1", "level": "warn", "type": "assistant"},
					Parsed:   map[string]string{"level": "warn", "type": "assistant"},
				},
			},
		},
		{
			// Without the categorize-labels header Loki folds metadata into
			// the stream labels; there is no third element.
			file: "query_range_uncategorized.json",
			want: []Entry{
				{Time: ns(1795314320001000000), Line: asstLine, Stream: map[string]string{"event_type": "assistant", "host": "h1", "job": "journal", "session_id": "s-1"}},
				{Time: ns(1795314320000000000), Line: userLine, Stream: map[string]string{"event_type": "user", "host": "h1", "job": "journal", "session_id": "s-1"}},
				{Time: ns(1795314320001000000), Line: "same timestamp, no metadata", Stream: h1},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			got, err := decodeStreams("QueryRange", fixture(t, tc.file))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDecodeSamplesRecorded(t *testing.T) {
	cases := []struct {
		file string
		want []Sample
	}{
		{
			file: "query_vector.json",
			want: []Sample{
				{Metric: map[string]string{"host": "h1"}, Time: time.Unix(1795314380, 0).UTC(), Value: 3},
				{Metric: map[string]string{"host": "h2"}, Time: time.Unix(1795314380, 0).UTC(), Value: 1},
			},
		},
		{
			file: "query_scalar.json",
			want: []Sample{{Metric: map[string]string{}, Time: time.UnixMilli(5980204850173000).UTC(), Value: 2.5}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			got, err := decodeSamples("Instant", fixture(t, tc.file))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDecodeResultTypeMismatch(t *testing.T) {
	_, err := decodeStreams("QueryRange", fixture(t, "query_range_matrix.json"))
	var rt *ResultTypeError
	require.ErrorAs(t, err, &rt)
	assert.Equal(t, ResultMatrix, rt.Got)
	assert.False(t, rt.Retryable())

	_, err = decodeSamples("Instant", fixture(t, "query_range_streams.json"))
	require.ErrorAs(t, err, &rt)
	assert.Equal(t, ResultStreams, rt.Got)
}

func TestDecodeStringsRecorded(t *testing.T) {
	cases := []struct {
		file string
		want []string
	}{
		{"label_values.json", []string{"h1", "h2"}},
		{"label_values_empty.json", nil},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			got, err := decodeStrings("LabelValues", fixture(t, tc.file))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDecodeLabelsForms(t *testing.T) {
	cases := []struct {
		name       string
		raw        string
		wantMeta   map[string]string
		wantParsed map[string]string
	}{
		{"empty object", `{}`, nil, nil},
		{"categorized metadata", `{"structuredMetadata":{"a":"1"}}`, map[string]string{"a": "1"}, nil},
		{"categorized both", `{"structuredMetadata":{"a":"1"},"parsed":{"b":"2"}}`, map[string]string{"a": "1", "b": "2"}, map[string]string{"b": "2"}},
		{"flat push form", `{"trace_id":"abc","x":"line\nbreak"}`, map[string]string{"trace_id": "abc", "x": "line\nbreak"}, nil},
		{"flat label literally named parsed", `{"parsed":"yes"}`, map[string]string{"parsed": "yes"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			meta, parsed, err := decodeLabels([]byte(tc.raw))
			require.NoError(t, err)
			assert.Equal(t, tc.wantMeta, meta)
			assert.Equal(t, tc.wantParsed, parsed)
		})
	}
}

func TestDecodeMalformed(t *testing.T) {
	streams := func(values string) string {
		return `{"status":"success","data":{"resultType":"streams","result":[{"stream":{"a":"b"},"values":[` + values + `]}]}}`
	}
	cases := []struct {
		name      string
		body      string
		samples   bool
		wantWhere string
	}{
		{"not json", `<html>`, false, "body"},
		{"error status", `{"status":"error","data":{}}`, false, "status"},
		{"result not array", `{"status":"success","data":{"resultType":"streams","result":{}}}`, false, "data.result"},
		{"one element", streams(`["1"]`), false, "data.result[0].values[0]"},
		{"four elements", streams(`["1","a",{},{}]`), false, "data.result[0].values[0]"},
		{"numeric timestamp", streams(`[1,"a"]`), false, "data.result[0].values[0]"},
		{"bad timestamp", streams(`["1","a"],["x1","b"]`), false, "data.result[0].values[1]"},
		{"line not string", streams(`["1",2]`), false, "data.result[0].values[0]"},
		{"metadata not object", streams(`["1","a","m"]`), false, "data.result[0].values[0]"},
		{"metadata value not string", streams(`["1","a",{"structuredMetadata":{"k":1}}]`), false, "data.result[0].values[0]"},
		{"vector value not string", `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}}`, true, "data.result[0].value"},
		{"vector value not number", `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"x"]}]}}`, true, "data.result[0].value"},
		{"scalar short", `{"status":"success","data":{"resultType":"scalar","result":[1]}}`, true, "data.result"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.samples {
				_, err = decodeSamples("Instant", []byte(tc.body))
			} else {
				_, err = decodeStreams("QueryRange", []byte(tc.body))
			}
			var de *DecodeError
			require.True(t, errors.As(err, &de), "want *DecodeError, got %v", err)
			assert.Equal(t, tc.wantWhere, de.Where)
			assert.False(t, de.Retryable())
			assert.Contains(t, de.Error(), tc.wantWhere)
		})
	}
}

func TestDecodeSpecialFloats(t *testing.T) {
	body := `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"1"},"value":[1.5,"NaN"]},{"value":[2,"+Inf"]}]}}`
	got, err := decodeSamples("Instant", []byte(body))
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.True(t, got[0].Value != got[0].Value, "NaN")
	assert.Equal(t, time.UnixMilli(1500).UTC(), got[0].Time)
	assert.Equal(t, map[string]string{}, got[1].Metric)
	assert.Greater(t, got[1].Value, 1e308)
}
