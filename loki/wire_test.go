package loki

import (
	"strings"
	"testing"
	"time"

	"github.com/grafana/loki/pkg/push"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEncodeWritesWhatGogoWrites: the request bytes encode writes are
// exactly push.PushRequest.Marshal's for the same streams, for every split.
func TestEncodeWritesWhatGogoWrites(t *testing.T) {
	var b Batch
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.UTC)
	for i := range 300 {
		labels := []Label{{"service_name", "agent-sessions"}, {"event_type", []string{"A", "B", "C"}[i%3]}}
		md := []Label{{"job_id", "j"}, {"seq", strings.Repeat("7", i%5+1)}}
		if i%7 == 0 {
			md = nil
		}
		if i%17 == 0 {
			md = append(md, Label{"empty", ""}, Label{"long", strings.Repeat("v", 200)})
		}
		ts := t0.Add(time.Duration(i) * time.Second)
		switch i % 11 {
		case 3:
			ts = ts.Truncate(time.Second) // no nanos field
		case 5:
			ts = time.Date(1960, 1, 2, 3, 4, 5, 6, time.UTC) // negative seconds: ten-byte varint
		case 7:
			ts = time.Unix(0, 42) // no seconds field
		}
		line := strings.Repeat("x", 50+i)
		if i%23 == 0 {
			line = strings.Repeat("y", 300) // a two-byte length
		}
		require.NoError(t, b.Add(labels, Entry{Timestamp: ts, Line: line, Metadata: md, Ref: i}))
	}
	for _, multi := range []bool{true, false} {
		for _, limit := range []int{MinMaxRequestBytes, 8 << 10, DefaultMaxRequestBytes} {
			for _, r := range b.plan(limit, multi) {
				var want push.PushRequest
				for _, sg := range b.enc.segs[r.first:r.end] {
					s := &b.streams[sg.s]
					want.Streams = append(want.Streams, push.Stream{Labels: s.key, Entries: gogoEntries(s.entries[sg.lo:sg.hi])})
				}
				wantRaw, err := want.Marshal()
				require.NoError(t, err)
				raw, _, err := b.encode(r)
				require.NoError(t, err)
				assert.Equal(t, wantRaw, raw, "multi=%v limit=%d", multi, limit)
			}
		}
	}
}

// gogoEntries converts entries to Loki's own type, for its Marshal.
func gogoEntries(es []pushEntry) []push.Entry {
	out := make([]push.Entry, len(es))
	for i, e := range es {
		out[i] = push.Entry{Timestamp: e.Timestamp, Line: e.Line}
		for _, m := range e.StructuredMetadata {
			out[i].StructuredMetadata = append(out[i].StructuredMetadata, push.LabelAdapter{Name: m.Name, Value: m.Value})
		}
	}
	return out
}
