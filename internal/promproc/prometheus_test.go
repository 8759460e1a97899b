package promproc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endpoint serves one counter whose value the test sets.
type endpoint struct {
	value atomic.Int64
	addr  string
}

func serveCounter(t *testing.T) *endpoint {
	t.Helper()
	e := &endpoint{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "# TYPE demo_events_total counter\ndemo_events_total{kind=\"a\"} %d\n", e.value.Load())
	}), ReadHeaderTimeout: time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	e.addr = ln.Addr().String()
	return e
}

// TestScrapesAndAnswersExactly is the premise of the dashboard tests: a
// counter scraped at 0 before anything happens, and an instant query
// evaluated at the timestamp of a scrape after the last increment, give
// increase() and rate() without extrapolation: increase == the count,
// rate × window == the count.
func TestScrapesAndAnswersExactly(t *testing.T) {
	e := serveCounter(t)
	p := ForTest(t, Config{ScrapeInterval: 200 * time.Millisecond, Targets: []Target{{Job: "demo", Addr: e.addr}}})
	ctx := context.Background()
	first, err := p.WaitScrape(ctx, "demo", time.Now(), 20*time.Second)
	require.NoError(t, err)
	e.value.Store(7)
	time.Sleep(300 * time.Millisecond)
	e.value.Store(12)
	done := time.Now()
	last, err := p.WaitScrape(ctx, "demo", done, 20*time.Second)
	require.NoError(t, err)
	require.True(t, last.After(first))

	inc, err := p.Query(ctx, `increase(demo_events_total[1m])`, last)
	require.NoError(t, err)
	require.Len(t, inc, 1)
	assert.Equal(t, 12.0, inc[0].Value)
	assert.Equal(t, map[string]string{"instance": e.addr, "job": "demo", "kind": "a"}, inc[0].Metric)
	rate, err := p.Query(ctx, `rate(demo_events_total[1m])`, last)
	require.NoError(t, err)
	require.Len(t, rate, 1)
	assert.InDelta(t, 12.0, rate[0].Value*60, 1e-9)

	vals, err := p.LabelValues(ctx, "kind", "demo_events_total", first.Add(-time.Minute), last)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, vals)
}

func TestQueryErrorsSayWhy(t *testing.T) {
	p := ForTest(t, Config{})
	_, err := p.Query(context.Background(), `sum(`, time.Now())
	var qe *QueryError
	require.ErrorAs(t, err, &qe)
	assert.Equal(t, http.StatusBadRequest, qe.Status)
	assert.Contains(t, qe.Error(), "bad_data")
	assert.Contains(t, qe.Error(), `"sum("`)
}

func TestStopIsIdempotentAndRemovesTempDir(t *testing.T) {
	p, err := Start(context.Background(), Config{})
	if err != nil {
		var bnf *BinaryNotFoundError
		if errors.As(err, &bnf) && os.Getenv(EnvCI) != "true" {
			t.Skip("prometheus not installed")
		}
		require.NoError(t, err)
	}
	require.NoError(t, p.Stop())
	require.NoError(t, p.Stop())
	assert.True(t, p.Exited())
	_, statErr := os.Stat(p.Dir)
	assert.True(t, os.IsNotExist(statErr), "temp dir removed")
	assert.True(t, strings.HasPrefix(p.URL, "http://127.0.0.1:"))
}
