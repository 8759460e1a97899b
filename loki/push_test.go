package loki

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grafana/loki/pkg/push"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPushRetryableAnswers(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		cause  string
	}{
		{"429 rate limit", 429, readAnswer(t, "rate_limited.txt"), CauseRateLimited},
		{"429 stream limit", 429, readAnswer(t, "stream_limit.txt"), CauseRateLimited},
		{"500", 500, "rpc error: code = Unavailable", CauseServerError},
		{"502", 502, "bad gateway", CauseServerError},
		{"503", 503, "Ingester not ready", CauseServerError},
		{"260 ingestion blocked", StatusIngestionBlocked, readAnswer(t, "blocked.txt"), CauseIngestionBlocked},
		{"blocked with a configured 400", 400, readAnswer(t, "blocked.txt"), CauseIngestionBlocked},
		{"400 with rate-limited entries", 400, readAnswer(t, "ingester_rate_limited.txt"), CauseRateLimited},
		{"401", 401, "no org id", CauseAuth},
		{"403", 403, "forbidden", CauseAuth},
		{"404", 404, "404 page not found", CauseNotFound},
		{"408", 408, "timeout", CauseTimeout},
		{"302", 302, "moved", CauseUnexpected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLoki(t, answerWith(tt.status, tt.body))
			c, _ := newTestClient(t, f.srv.URL, nil)
			res, err := c.Push(context.Background(), fixtureBatch(t))
			var re *RetryableError
			require.True(t, errors.As(err, &re), "got %v", err)
			assert.Equal(t, tt.cause, re.Cause)
			assert.Equal(t, tt.status, re.Status)
			assert.Equal(t, truncateBody(tt.body), re.Body)
			retryable, cause := Classify(err)
			assert.True(t, retryable)
			assert.Equal(t, tt.cause, cause)
			assert.Zero(t, res.Entries)
			assert.Empty(t, res.Rejected)
			assert.Equal(t, 1.0, testutil.ToFloat64(c.m.requests.WithLabelValues(tt.cause)))
			assert.Equal(t, 1, testutil.CollectAndCount(c.m.duration))
		})
	}
}

func TestPushMapsA400ToRejectedEntries(t *testing.T) {
	f := newFakeLoki(t, answerWith(400, readAnswer(t, "mixed.txt")))
	c, _ := newTestClient(t, f.srv.URL, nil)
	res, err := c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	assert.Equal(t, []int{5, 6, 8}, refsOf(res.Rejected))
	assert.Equal(t, len(fixtureEntries)-3, res.Entries)
	assert.Equal(t, 1.0, testutil.ToFloat64(c.m.requests.WithLabelValues(OutcomePartial)))
	assert.Equal(t, 3.0, testutil.ToFloat64(c.m.rejected))
}

// splitBatch makes several requests; the second is refused with a 422.
func TestPushPermanentRequestDoesNotStopTheOthers(t *testing.T) {
	f := newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			http.Error(w, "unprocessable", http.StatusUnprocessableEntity)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.MaxRequestBytes = 2000 })
	b := splitBatch(t)
	res, err := c.Push(context.Background(), b)
	var pe *PermanentError
	require.True(t, errors.As(err, &pe), "got %v", err)
	assert.Equal(t, 422, pe.Status)
	retryable, class := Classify(err)
	assert.False(t, retryable)
	assert.Equal(t, ClassPermanent, class)

	pushes, _ := f.received()
	require.Greater(t, len(pushes), 2)
	assert.Equal(t, len(pushes), res.Requests)
	refused := entriesIn(pushes[1])
	assert.Len(t, res.Rejected, refused)
	assert.Equal(t, b.Len()-refused, res.Entries)
	for _, r := range res.Rejected {
		assert.Contains(t, r.Reason, "422")
	}
}

// TestPush413SplitsTheRequest: a proxy in front of Loki that takes at most
// 3 entries a request answers 413 to the larger ones: they are sent again
// in halves, every entry is stored, none is rejected.
func TestPush413SplitsTheRequest(t *testing.T) {
	var f *fakeLoki
	f = newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		entries := entriesIn(f.pushes[n])
		f.mu.Unlock()
		if entries > 3 {
			http.Error(w, "<html>413 Request Entity Too Large</html>", http.StatusRequestEntityTooLarge)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := newTestClient(t, f.srv.URL, nil)
	b := fixtureBatch(t)
	res, err := c.Push(context.Background(), b)
	require.NoError(t, err)
	assert.Empty(t, res.Rejected)
	assert.Equal(t, b.Len(), res.Entries)
	pushes, _ := f.received()
	stored := 0
	for _, p := range pushes {
		if n := entriesIn(p); n <= 3 {
			stored += n
		}
	}
	assert.Equal(t, b.Len(), stored, "each entry stored once")
	assert.Positive(t, testutil.ToFloat64(c.m.requests.WithLabelValues(OutcomeSplit)))
}

// TestPush413OfOneEntryRejectsIt: an entry too large on its own for what
// answers 413 is refused for good (the dead-letter file keeps it); the
// others are stored.
func TestPush413OfOneEntryRejectsIt(t *testing.T) {
	var f *fakeLoki
	f = newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		p := f.pushes[n]
		f.mu.Unlock()
		for _, s := range p.Streams {
			for _, e := range s.Entries {
				if len(e.Line) > 0 && e.Line == fixtureEntries[4].line {
					http.Error(w, "too large", http.StatusRequestEntityTooLarge)
					return
				}
			}
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := newTestClient(t, f.srv.URL, nil)
	b := fixtureBatch(t)
	res, err := c.Push(context.Background(), b)
	var pe *PermanentError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, []int{4}, refsOf(res.Rejected))
	assert.Equal(t, b.Len()-1, res.Entries)
}

func TestPushStopsAtTheFirstRetryableAnswer(t *testing.T) {
	f := newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.MaxRequestBytes = 2000 })
	res, err := c.Push(context.Background(), splitBatch(t))
	retryable, cause := Classify(err)
	assert.True(t, retryable)
	assert.Equal(t, CauseServerError, cause)
	pushes, _ := f.received()
	assert.Len(t, pushes, 2, "no request after the failed one")
	assert.Equal(t, 2, res.Requests)
	assert.Equal(t, entriesIn(pushes[0]), res.Entries)
}

func TestPushSplitsBySizeAndKeepsOrder(t *testing.T) {
	f := newFakeLoki(t, nil)
	c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.MaxRequestBytes = 1500 })
	b := splitBatch(t)
	res, err := c.Push(context.Background(), b)
	require.NoError(t, err)
	pushes, _ := f.received()
	assert.Equal(t, len(pushes), res.Requests)
	assert.Greater(t, len(pushes), 3)
	assert.Equal(t, b.Len(), res.Entries)
	perStream := map[string][]string{}
	total := 0
	for _, p := range pushes {
		assert.LessOrEqual(t, p.Size(), 1500)
		for _, s := range p.Streams {
			for _, e := range s.Entries {
				perStream[s.Labels] = append(perStream[s.Labels], e.Line)
				total++
			}
		}
	}
	assert.Equal(t, b.Len(), total)
	require.Len(t, perStream, 3)
	for key, lines := range perStream {
		require.Len(t, lines, 40)
		for i := 1; i < len(lines); i++ {
			assert.Less(t, lines[i-1], lines[i], key)
		}
	}
}

func TestPushTimeouts(t *testing.T) {
	slow := func(_ int, _ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done(): // the client gave up
		case <-time.After(5 * time.Second):
		}
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	t.Cleanup(cancelShort)
	tests := []struct {
		name    string
		ctx     context.Context
		timeout time.Duration
		cause   string
	}{
		{"Config.Timeout", context.Background(), 100 * time.Millisecond, CauseTimeout},
		{"caller deadline", short, 10 * time.Second, CauseTimeout},
		{"caller cancel", cancelled, 10 * time.Second, CauseCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLoki(t, slow)
			c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.Timeout = tt.timeout })
			start := time.Now()
			_, err := c.Push(tt.ctx, fixtureBatch(t))
			assert.Less(t, time.Since(start), 3*time.Second)
			retryable, cause := Classify(err)
			assert.True(t, retryable)
			assert.Equal(t, tt.cause, cause, "%v", err)
		})
	}
}

func TestPushNetworkFailures(t *testing.T) {
	reset := func(_ int, w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with RST
		}
		_ = conn.Close()
	}
	half := func(_ int, w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		_, _ = buf.WriteString("HTTP/1.1 400 Bad Request\r\nContent-Length: 1000\r\n\r\nentry for stream")
		_ = buf.Flush()
		_ = conn.Close()
	}
	closed := newFakeLoki(t, nil)
	closedURL := closed.srv.URL
	closed.srv.Close()
	tests := []struct {
		name   string
		url    func() string
		status int
	}{
		{"connection reset", func() string { return newFakeLoki(t, reset).srv.URL }, 0},
		{"answer cut short", func() string { return newFakeLoki(t, half).srv.URL }, 400},
		{"connection refused", func() string { return closedURL }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestClient(t, tt.url(), nil)
			res, err := c.Push(context.Background(), fixtureBatch(t))
			var re *RetryableError
			require.True(t, errors.As(err, &re), "got %v", err)
			assert.Equal(t, CauseNetwork, re.Cause, "%v", err)
			assert.Equal(t, tt.status, re.Status)
			assert.NotNil(t, re.Err)
			assert.Zero(t, res.Entries)
		})
	}
}

func entriesIn(req push.PushRequest) int {
	n := 0
	for _, s := range req.Streams {
		n += len(s.Entries)
	}
	return n
}

// TestPushTrustsAnIngester400ThatCountsWhatItNames: an ingester's answer
// that names every entry it counts is complete: the others are stored and
// nothing is sent again (Loki would store them twice).
func TestPushTrustsAnIngester400ThatCountsWhatItNames(t *testing.T) {
	f := newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 0 {
			http.Error(w, readAnswer(t, "ingester_too_far_behind.txt"), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.MultiStreamRequests = false })
	res, err := c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, sortedRefs(res.Rejected))
	assert.Equal(t, len(fixtureEntries)-2, res.Entries)
	assert.Equal(t, 3, res.Requests, "one a stream, none sent again")
	assert.Equal(t, 0.0, testutil.ToFloat64(c.m.uncertain))
}

// TestPushConfirmsWhatAnAnswerMayHide: an ingester answer for a request
// of several streams speaks for the last one only; one that received
// fewer entries than were sent hides the distributor's refusals.
func TestPushConfirmsWhatAnAnswerMayHide(t *testing.T) {
	answer := readAnswer(t, "ingester_too_far_behind.txt")
	for name, tc := range map[string]struct {
		multi  bool
		answer string
	}{
		"several streams":   {true, answer},
		"fewer entries got": {false, strings.Replace(answer, "out of 4", "out of 3", 1)},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
				if n == 0 {
					http.Error(w, tc.answer, http.StatusBadRequest)
					return
				}
				w.WriteHeader(http.StatusNoContent)
			})
			c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.MultiStreamRequests = tc.multi })
			res, err := c.Push(context.Background(), fixtureBatch(t))
			require.NoError(t, err)
			assert.Equal(t, []int{0, 1}, sortedRefs(res.Rejected))
			assert.Positive(t, testutil.ToFloat64(c.m.uncertain), "the unnamed entries are sent again")
		})
	}
}

// TestPushConfirmsAShardsAnswer: a sharded stream's answer hides the other
// shards' refusals: the entries it does not name are sent again, counted
// as uncertain, until an answer settles them.
func TestPushConfirmsAShardsAnswer(t *testing.T) {
	answers := []string{readAnswer(t, "ingester_truncated.txt"), readAnswer(t, "mixed.txt")}
	f := newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n < len(answers) {
			http.Error(w, answers[n], http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := newTestClient(t, f.srv.URL, nil)
	res, err := c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	// The shard named 7; the entries sent again showed the distributor's
	// refusals 5, 6 and 8.
	assert.Equal(t, []int{5, 6, 7, 8}, sortedRefs(res.Rejected))
	assert.Equal(t, len(fixtureEntries)-4, res.Entries)
	pushes, _ := f.received()
	require.Len(t, pushes, 2)
	assert.Equal(t, len(fixtureEntries)-1, entriesIn(pushes[1]))
	assert.Equal(t, float64(len(fixtureEntries)-1), testutil.ToFloat64(c.m.uncertain))
}

// An ingester that keeps refusing one more entry of a shard is asked
// maxConfirmations times, then its last answer is taken as complete.
func TestPushConfirmationsAreBounded(t *testing.T) {
	f := newFakeLoki(t, nil)
	f.answer = func(n int, w http.ResponseWriter, _ *http.Request) {
		pushes, _ := f.received()
		s := pushes[n].Streams[0]
		e := s.Entries[0]
		body := fmt.Sprintf("entry with timestamp %s ignored, reason: 'entry out of order',\nuser 'fake', total ignored: 1 out of %d for stream: %s",
			e.Timestamp.String(), len(s.Entries), strings.Replace(s.Labels, "{", `{__stream_shard__="0", `, 1))
		http.Error(w, body, http.StatusBadRequest)
	}
	c, _ := newTestClient(t, f.srv.URL, nil)
	res, err := c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	assert.Equal(t, 1+maxConfirmations, res.Requests)
	assert.Equal(t, []int{0, 1, 2, 3}, sortedRefs(res.Rejected))
	assert.Equal(t, len(fixtureEntries)-4, res.Entries)
}

// TestPushEmpty400IsRetried: a 400 that names no line (a proxy's, or a
// tenant problem) is retried, not a reason to dead-letter every line.
func TestPushEmpty400IsRetried(t *testing.T) {
	f := newFakeLoki(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadRequest) })
	c, _ := newTestClient(t, f.srv.URL, nil)
	res, err := c.Push(context.Background(), fixtureBatch(t))
	var re *RetryableError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, CauseRequestRefused, re.Cause)
	assert.Contains(t, re.Body, "without a reason")
	assert.Empty(t, res.Rejected)
	assert.Zero(t, res.Entries)
}

func sortedRefs(rs []Rejection) []int {
	refs := refsOf(rs)
	sort.Ints(refs)
	return refs
}

// TestPush429OverTheRateSplitsTheRequest: a tenant whose ingestion rate
// and burst are below one request's bytes answers 429 to it forever: the
// same entries go again in halves, and a half the limiter then refuses
// for want of tokens is left for the retry, nothing rejected.
func TestPush429OverTheRateSplitsTheRequest(t *testing.T) {
	var f *fakeLoki
	var mu sync.Mutex
	tokens := 1
	f = newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		entries := entriesIn(f.pushes[n])
		f.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		if entries > 3 || tokens == 0 {
			http.Error(w, fmt.Sprintf("Ingestion rate limit exceeded for user fake (limit: 100 bytes/sec) while attempting to ingest '%d' lines totaling '%d' bytes, reduce log volume or contact your Loki administrator to see if the limit can be increased", entries, 200*entries), http.StatusTooManyRequests)
			return
		}
		tokens--
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := newTestClient(t, f.srv.URL, nil)
	b := fixtureBatch(t)
	res, err := c.Push(context.Background(), b)
	var re *RetryableError
	require.ErrorAs(t, err, &re, "the limiter's bucket is empty after one half: the rest is retried")
	assert.Empty(t, res.Rejected)
	assert.Positive(t, res.Entries, "the half the limiter took is stored")
	assert.Less(t, res.Entries, b.Len())
	assert.Positive(t, testutil.ToFloat64(c.m.requests.WithLabelValues(OutcomeSplit)))
}

// TestPush429WithinTheRateIsRetried: a 429 for a request within the rate
// (the tenant is busy) is retried whole, not split.
func TestPush429WithinTheRateIsRetried(t *testing.T) {
	f := newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Ingestion rate limit exceeded for user fake (limit: 4194304 bytes/sec) while attempting to ingest '10' lines totaling '4000' bytes, reduce log volume or contact your Loki administrator to see if the limit can be increased", http.StatusTooManyRequests)
	})
	c, _ := newTestClient(t, f.srv.URL, nil)
	_, err := c.Push(context.Background(), fixtureBatch(t))
	var re *RetryableError
	require.ErrorAs(t, err, &re)
	pushes, _ := f.received()
	assert.Len(t, pushes, 1)
	assert.Zero(t, testutil.ToFloat64(c.m.requests.WithLabelValues(OutcomeSplit)))
}
