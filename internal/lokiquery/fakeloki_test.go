package lokiquery

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// fakeEntry is one entry held by fakeLoki.
type fakeEntry struct {
	stream string // value of label "s"
	ts     int64
	line   string
}

// fakeLoki serves /loki/api/v1/query_range over a fixed entry set with
// Loki's paging semantics: start inclusive, end exclusive, at most limit
// entries in direction order, returned as categorize-labels streams.
type fakeLoki struct {
	mu       sync.Mutex
	entries  []fakeEntry
	requests []*http.Request
}

func newFakeLoki(t *testing.T, entries []fakeEntry) (*fakeLoki, *httptest.Server) {
	f := &fakeLoki{entries: entries}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeLoki) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	entries := slices.Clone(f.entries)
	f.mu.Unlock()
	q := r.URL.Query()
	start, err1 := time.Parse(time.RFC3339Nano, q.Get("start"))
	end, err2 := time.Parse(time.RFC3339Nano, q.Get("end"))
	limit, err3 := strconv.Atoi(q.Get("limit"))
	if err1 != nil || err2 != nil || err3 != nil {
		http.Error(w, "bad params", http.StatusBadRequest)
		return
	}
	var in []fakeEntry
	for _, e := range entries {
		if e.ts >= start.UnixNano() && e.ts < end.UnixNano() {
			in = append(in, e)
		}
	}
	slices.SortFunc(in, func(a, b fakeEntry) int {
		return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.stream, b.stream), cmp.Compare(a.line, b.line))
	})
	if q.Get("direction") == Backward {
		slices.Reverse(in)
	}
	if len(in) > limit {
		in = in[:limit]
	}
	writeStreams(w, in)
}

func writeStreams(w http.ResponseWriter, in []fakeEntry) {
	type stream struct {
		Stream map[string]string `json:"stream"`
		Values [][]any           `json:"values"`
	}
	byStream := map[string]*stream{}
	var order []string
	for _, e := range in {
		s, ok := byStream[e.stream]
		if !ok {
			s = &stream{Stream: map[string]string{"s": e.stream}}
			byStream[e.stream] = s
			order = append(order, e.stream)
		}
		md := map[string]any{"structuredMetadata": map[string]string{"n": e.line}}
		s.Values = append(s.Values, []any{strconv.FormatInt(e.ts, 10), e.line, md})
	}
	result := make([]*stream, 0, len(order))
	for _, k := range order {
		result = append(result, byStream[k])
	}
	body := map[string]any{"status": "success", "data": map[string]any{"resultType": "streams", "result": result}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func (f *fakeLoki) set(entries []fakeEntry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.entries = entries
}

func (f *fakeLoki) requestCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeLoki) lastRequest() *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[len(f.requests)-1]
}
