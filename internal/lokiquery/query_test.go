package lokiquery

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// tiedEntries returns n entries over two streams, groups of tie entries
// sharing a timestamp.
func tiedEntries(n, tie int) []fakeEntry {
	out := make([]fakeEntry, n)
	for i := range out {
		out[i] = fakeEntry{
			stream: []string{"a", "b"}[i%2],
			ts:     base.Add(time.Duration(i/tie) * time.Millisecond).UnixNano(),
			line:   fmt.Sprintf("line %02d", i),
		}
	}
	return out
}

func lines(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Line
	}
	return out
}

func fakeLines(es []fakeEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.line
	}
	return out
}

func TestQueryRangePaginates(t *testing.T) {
	entries := tiedEntries(30, 3)
	cases := []struct {
		limit        int
		dir          string
		wantRequests int // at least
	}{
		{limit: 4, dir: Forward, wantRequests: 8},
		{limit: 4, dir: Backward, wantRequests: 8},
		{limit: 7, dir: Forward, wantRequests: 5},
		{limit: 7, dir: "", wantRequests: 5},
		{limit: 29, dir: Backward, wantRequests: 2},
		{limit: 30, dir: Forward, wantRequests: 2},
		{limit: 1000, dir: Forward, wantRequests: 1},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s limit %d", tc.dir, tc.limit), func(t *testing.T) {
			f, srv := newFakeLoki(t, entries)
			c := &Client{URL: srv.URL}
			got, err := c.QueryRange(context.Background(), `{s=~".+"}`, base, base.Add(time.Hour), tc.limit, tc.dir)
			require.NoError(t, err)
			assert.Equal(t, fakeLines(entries), lines(got))
			assert.GreaterOrEqual(t, f.requestCount(), tc.wantRequests)
			for i, e := range got {
				assert.Equal(t, map[string]string{"n": e.Line}, e.Metadata, "entry %d", i)
				assert.Equal(t, entries[i].stream, e.Stream["s"], "entry %d", i)
			}
		})
	}
}

func TestQueryRangeTooManyAtOneTimestamp(t *testing.T) {
	for _, dir := range []string{Forward, Backward} {
		t.Run(dir, func(t *testing.T) {
			_, srv := newFakeLoki(t, tiedEntries(12, 4))
			c := &Client{URL: srv.URL}
			_, err := c.QueryRange(context.Background(), `{s="a"}`, base, base.Add(time.Hour), 3, dir)
			var pe *PaginationError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, 3, pe.Limit)
			assert.False(t, pe.Retryable())
		})
	}
}

func TestQueryRangeBoundsInclusive(t *testing.T) {
	start, end := base, base.Add(time.Second)
	_, srv := newFakeLoki(t, []fakeEntry{
		{stream: "a", ts: start.UnixNano() - 1, line: "before"},
		{stream: "a", ts: start.UnixNano(), line: "at start"},
		{stream: "a", ts: end.UnixNano(), line: "at end"},
		{stream: "a", ts: end.UnixNano() + 1, line: "after"},
	})
	c := &Client{URL: srv.URL}
	for _, dir := range []string{Forward, Backward} {
		got, err := c.QueryRange(context.Background(), `{s="a"}`, start, end, 2, dir)
		require.NoError(t, err, dir)
		assert.Equal(t, []string{"at start", "at end"}, lines(got), dir)
	}
}

func TestQueryRangeSendsHeadersAndParams(t *testing.T) {
	f, srv := newFakeLoki(t, nil)
	c, err := New(Config{URL: srv.URL + "/", TenantID: "team-a"})
	require.NoError(t, err)
	_, err = c.QueryRange(context.Background(), `{job="x"} |= "a b"`, base, base.Add(time.Minute), 10, Backward)
	require.NoError(t, err)
	r := f.lastRequest()
	assert.Equal(t, "/loki/api/v1/query_range", r.URL.Path)
	assert.Equal(t, CategorizeLabels, r.Header.Get(EncodingFlagsHeader))
	assert.Equal(t, "team-a", r.Header.Get(TenantHeader))
	q := r.URL.Query()
	assert.Equal(t, `{job="x"} |= "a b"`, q.Get("query"))
	assert.Equal(t, "2026-01-02T03:04:05Z", q.Get("start"))
	assert.Equal(t, "2026-01-02T03:05:05.000000001Z", q.Get("end"))
	assert.Equal(t, "10", q.Get("limit"))
	assert.Equal(t, Backward, q.Get("direction"))
}

func TestClientHTTPErrors(t *testing.T) {
	cases := []struct {
		status        int
		body          string
		wantRetryable bool
	}{
		{http.StatusBadRequest, string(fixtureBytes("error_parse.txt")), false},
		{http.StatusBadRequest, string(fixtureBytes("error_instant_log_query.txt")), false},
		{http.StatusNotFound, "404 page not found", false},
		{http.StatusTooManyRequests, "too many outstanding requests", true},
		{http.StatusServiceUnavailable, "not ready", true},
		{http.StatusInternalServerError, "boom", true},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, tc.body, tc.status)
			}))
			defer srv.Close()
			c := &Client{URL: srv.URL}
			_, err := c.Instant(context.Background(), `{a="b"}`, base)
			var he *HTTPError
			require.ErrorAs(t, err, &he)
			assert.Equal(t, tc.status, he.Status)
			assert.Equal(t, trimmed(tc.body), he.Body)
			assert.Equal(t, tc.wantRetryable, he.Retryable())
			assert.Equal(t, "Instant", he.Op)
		})
	}
}

func TestClientTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c := &Client{URL: srv.URL}
	_, err := c.LabelValues(context.Background(), "job", base, base)
	var te *TransportError
	require.ErrorAs(t, err, &te)
	assert.True(t, te.Retryable())
}

func TestArgErrors(t *testing.T) {
	c := &Client{URL: "http://127.0.0.1:1"}
	ctx := context.Background()
	cases := []struct {
		name    string
		call    func() error
		wantArg string
	}{
		{"empty query", func() error { _, err := c.QueryRange(ctx, " ", base, base, 1, ""); return err }, "query"},
		{"end before start", func() error { _, err := c.QueryRange(ctx, "{a=\"b\"}", base, base.Add(-1), 1, ""); return err }, "end"},
		{"zero limit", func() error { _, err := c.QueryRange(ctx, "{a=\"b\"}", base, base, 0, ""); return err }, "limit"},
		{"bad direction", func() error { _, err := c.QueryRange(ctx, "{a=\"b\"}", base, base, 1, "up"); return err }, "direction"},
		{"instant empty query", func() error { _, err := c.Instant(ctx, "", base); return err }, "query"},
		{"label empty name", func() error { _, err := c.LabelValues(ctx, "", base, base); return err }, "name"},
		{"label end before start", func() error { _, err := c.LabelValues(ctx, "a", base, base.Add(-1)); return err }, "end"},
		{"wait negative want", func() error { _, err := c.WaitFor(ctx, "{a=\"b\"}", base, base, -1, time.Second); return err }, "want"},
		{"wait zero timeout", func() error { _, err := c.WaitFor(ctx, "{a=\"b\"}", base, base, 1, 0); return err }, "timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ae *ArgError
			require.ErrorAs(t, tc.call(), &ae)
			assert.Equal(t, tc.wantArg, ae.Arg)
			assert.False(t, ae.Retryable())
		})
	}
}

func TestInstantAndLabelValuesRequests(t *testing.T) {
	var last *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		last = r
		switch r.URL.Path {
		case "/loki/api/v1/query":
			_, _ = w.Write(fixtureBytes("query_vector.json"))
		case "/loki/api/v1/label/service name/values":
			_, _ = w.Write(fixtureBytes("label_values.json"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := &Client{URL: srv.URL}
	ctx := context.Background()

	samples, err := c.Instant(ctx, `sum by (host) (count_over_time({job="journal"}[5m]))`, base)
	require.NoError(t, err)
	assert.Len(t, samples, 2)
	assert.Equal(t, "2026-01-02T03:04:05Z", last.URL.Query().Get("time"))
	assert.Equal(t, CategorizeLabels, last.Header.Get(EncodingFlagsHeader))

	vals, err := c.LabelValues(ctx, "service name", base, base.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, []string{"h1", "h2"}, vals)
	assert.Equal(t, "/loki/api/v1/label/service%20name/values", last.URL.EscapedPath())
	assert.Equal(t, "2026-01-02T04:04:05.000000001Z", last.URL.Query().Get("end"))
}

func TestWaitFor(t *testing.T) {
	ctx := context.Background()
	q, start, end := `{s=~".+"}`, base, base.Add(time.Hour)

	t.Run("entries arrive", func(t *testing.T) {
		f, srv := newFakeLoki(t, tiedEntries(2, 1))
		c := &Client{URL: srv.URL}
		go func() {
			time.Sleep(3 * WaitPoll)
			f.set(tiedEntries(5, 1))
		}()
		got, err := c.WaitFor(ctx, q, start, end, 5, 10*time.Second)
		require.NoError(t, err)
		assert.Len(t, got, 5)
		assert.GreaterOrEqual(t, f.requestCount(), 2)
	})
	t.Run("timeout reports what was seen", func(t *testing.T) {
		_, srv := newFakeLoki(t, tiedEntries(2, 1))
		c := &Client{URL: srv.URL}
		got, err := c.WaitFor(ctx, q, start, end, 3, 700*time.Millisecond)
		var we *WaitTimeoutError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, 2, we.Got)
		assert.Equal(t, 3, we.Want)
		assert.True(t, we.Retryable())
		assert.Len(t, got, 2)
	})
	t.Run("permanent error returns at once", func(t *testing.T) {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			calls.Add(1)
			http.Error(w, "parse error", http.StatusBadRequest)
		}))
		defer srv.Close()
		c := &Client{URL: srv.URL}
		_, err := c.WaitFor(ctx, q, start, end, 1, 10*time.Second)
		var he *HTTPError
		require.ErrorAs(t, err, &he)
		assert.Equal(t, int32(1), calls.Load())
	})
	t.Run("retryable errors are polled through", func(t *testing.T) {
		f, _ := newFakeLoki(t, tiedEntries(1, 1))
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) <= 2 {
				http.Error(w, "Ingester not ready", http.StatusServiceUnavailable)
				return
			}
			f.serve(w, r)
		}))
		defer srv.Close()
		c := &Client{URL: srv.URL}
		got, err := c.WaitFor(ctx, q, start, end, 1, 10*time.Second)
		require.NoError(t, err)
		assert.Len(t, got, 1)
		assert.Equal(t, int32(3), calls.Load())
	})
	t.Run("timeout keeps the last error", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Ingester not ready", http.StatusServiceUnavailable)
		}))
		defer srv.Close()
		c := &Client{URL: srv.URL}
		_, err := c.WaitFor(ctx, q, start, end, 1, 500*time.Millisecond)
		var we *WaitTimeoutError
		require.ErrorAs(t, err, &we)
		var he *HTTPError
		require.ErrorAs(t, err, &he, "Last is unwrapped")
		assert.Equal(t, http.StatusServiceUnavailable, he.Status)
	})
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name    string
		cfg     Config
		wantArg string
	}{
		{"ok", Config{URL: "http://127.0.0.1:3100", Timeout: time.Second}, ""},
		{"https ok", Config{URL: "https://loki.example/", Timeout: time.Second}, ""},
		{"empty url", Config{Timeout: time.Second}, "Config.URL"},
		{"no scheme", Config{URL: "127.0.0.1:3100", Timeout: time.Second}, "Config.URL"},
		{"no host", Config{URL: "http://", Timeout: time.Second}, "Config.URL"},
		{"bad url", Config{URL: "http://[::1", Timeout: time.Second}, "Config.URL"},
		{"zero timeout", Config{URL: "http://a"}, "Config.Timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.wantArg == "" {
				require.NoError(t, err)
				return
			}
			var ae *ArgError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.wantArg, ae.Arg)
		})
	}
	c, err := New(Config{URL: "http://127.0.0.1:3100"})
	require.NoError(t, err, "New fills the default timeout")
	assert.Equal(t, DefaultConfig().Timeout, c.HTTP.Timeout)
}
