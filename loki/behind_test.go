package loki

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/grafana/loki/pkg/push"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ingesterAnswer answers a one-stream request as Loki 3's ingester does
// (pkg/ingester/stream.go: validateEntries, errorForFailedEntries) for a
// stream whose newest entry is at newest: entries more than window behind
// the running newest are refused, the first ten named, all counted.
func ingesterAnswer(s push.Stream, newest time.Time, window time.Duration) (string, []int) {
	var lines []string
	var refused []int
	for k, e := range s.Entries {
		cutoff := newest.Add(-window)
		if cutoff.After(e.Timestamp) {
			refused = append(refused, k)
			if len(lines) < 10 {
				lines = append(lines, fmt.Sprintf("entry with timestamp %s ignored, reason: 'entry too far behind, entry timestamp is: %s, oldest acceptable timestamp is: %s',",
					e.Timestamp.String(), e.Timestamp.Format(time.RFC3339), cutoff.Format(time.RFC3339)))
			}
			continue
		}
		if e.Timestamp.After(newest) {
			newest = e.Timestamp
		}
	}
	lines = append(lines, fmt.Sprintf("user 'fake', total ignored: %d out of %d for stream: %s", len(refused), len(s.Entries), s.Labels))
	return strings.Join(lines, "\n"), refused
}

// behindBatch is one stream: 5 entries near base, then 25 entries two
// hours behind it mixed with 10 near it, the newest rising on the way.
func behindBatch(t *testing.T, base time.Time) *Batch {
	t.Helper()
	b := NewBatch()
	labels := []Label{{"service_name", "s"}}
	ref := 0
	add := func(ts time.Time) {
		require.NoError(t, b.Add(labels, Entry{Timestamp: ts, Line: fmt.Sprintf("line %d", ref), Ref: ref}))
		ref++
	}
	for i := range 5 {
		add(base.Add(time.Duration(i) * time.Second))
	}
	for i := range 35 {
		if i%7 == 3 {
			add(base.Add(time.Duration(10+i) * time.Minute)) // moves the newest up
			continue
		}
		if i%7 == 5 {
			add(base.Add(-30 * time.Minute).Add(time.Duration(i) * time.Millisecond))
			continue
		}
		add(base.Add(-2 * time.Hour).Add(time.Duration(i) * time.Millisecond))
	}
	return b
}

// TestPushInfersRefusalsBeyondTheNamedTen: Loki names ten of the entries
// it refused as too far behind (27 here, some of them refused only once
// the newest had moved up within the request); the rule tells the
// others, and the entries it stored are neither sent again nor taken as
// refused.
func TestPushInfersRefusalsBeyondTheNamedTen(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	b := behindBatch(t, base)
	behind := map[int]bool{}
	f := newFakeLoki(t, nil)
	f.answer = func(n int, w http.ResponseWriter, _ *http.Request) {
		pushes, _ := f.received()
		body, refused := ingesterAnswer(pushes[n].Streams[0], base.Add(17*time.Second), time.Hour)
		for _, k := range refused {
			behind[k] = true // one stream, Refs in wire order
		}
		http.Error(w, body, http.StatusBadRequest)
	}
	c, _ := newTestClient(t, f.srv.URL, nil)
	res, err := c.Push(context.Background(), b)
	require.NoError(t, err)
	require.Greater(t, len(behind), 10)
	require.Len(t, res.Rejected, len(behind))
	for _, rj := range res.Rejected {
		assert.True(t, behind[rj.Ref], "ref %d was stored, not refused", rj.Ref)
		assert.Contains(t, rj.Reason, "too far behind")
	}
	assert.Equal(t, b.Len()-len(behind), res.Entries)
	assert.Equal(t, 1, res.Requests, "nothing sent again")
	assert.Equal(t, 0.0, testutil.ToFloat64(c.m.uncertain))
}

// TestPushSendsAgainWhatTheRuleCannotExplain: a count the rule does not
// reproduce (another window than Loki's) leaves the entries not named
// uncertain: they are sent again, never taken as refused.
func TestPushSendsAgainWhatTheRuleCannotExplain(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b := behindBatch(t, base)
	f := newFakeLoki(t, nil)
	f.answer = func(n int, w http.ResponseWriter, _ *http.Request) {
		if n > 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		pushes, _ := f.received()
		body, _ := ingesterAnswer(pushes[n].Streams[0], base, time.Hour)
		http.Error(w, body, http.StatusBadRequest)
	}
	c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.MaxBehind = 3 * time.Hour })
	res, err := c.Push(context.Background(), b)
	require.NoError(t, err)
	assert.Len(t, res.Rejected, 10, "only the named entries are refused")
	assert.Equal(t, 2, res.Requests)
	assert.Equal(t, float64(b.Len()-10), testutil.ToFloat64(c.m.uncertain))
}

// TestPushReportsUnsettledEntries: a flush split into requests stops at
// the first failure; Unsettled names exactly the entries of that request
// and the later ones, so the caller can record the rest before retrying.
func TestPushReportsUnsettledEntries(t *testing.T) {
	f := newFakeLoki(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.MultiStreamRequests = false })
	res, err := c.Push(context.Background(), fixtureBatch(t))
	var re *RetryableError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, CauseServerError, re.Cause)
	// One stream a request: A (0-3) stored, B (4-6) failed, C (7-9) unsent.
	assert.ElementsMatch(t, []int{4, 5, 6, 7, 8, 9}, res.Unsettled)
	assert.Equal(t, 4, res.Entries)
}
