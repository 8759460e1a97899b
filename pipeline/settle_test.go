package pipeline

import (
	"context"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailedFlushKeepsWhatLokiStored: a flush is several requests (one a
// stream); when a later one fails, the lines of the requests Loki stored
// are recorded before the chunk is retried, so the retry sends only the
// rest: every line reaches Loki once, and every counter counts it once.
func TestFailedFlushKeepsWhatLokiStored(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			want := annotationsOnce(t)
			e := newEnv(t, nil)
			e.cap.statusFor = func(n int) int {
				if n == 2 { // the third stream's request
					return status
				}
				return http.StatusNoContent
			}
			_, path, data := journalAt(t)
			recs := tailRecords(path, data, testNow)
			ctx := context.Background()

			_, err := e.pipe.Ship(ctx, recs, "t")
			var re *RetryError
			require.ErrorAs(t, err, &re)
			first := len(e.cap.entries())
			require.Positive(t, first, "the requests before the failure were stored")
			require.Less(t, first, len(recs))
			assert.Equal(t, float64(first), testutil.ToFloat64(e.metrics.LinesShipped),
				"the stored lines are counted when they are recorded")

			res, err := e.pipe.Ship(ctx, recs, "t") // Fluent Bit's retry: the same chunk
			require.NoError(t, err)
			assert.Equal(t, first, res.AlreadyShipped)
			got := e.cap.entries()
			require.Len(t, got, len(recs), "every line once, none twice")
			seen := map[string]int{}
			for _, g := range got {
				seen[g.md["byte_offset"]]++
				assert.Equal(t, want[g.md["byte_offset"]], g.md["annotations"], "offset %s: the annotations of a flush that never failed", g.md["byte_offset"])
			}
			for off, n := range seen {
				assert.Equal(t, 1, n, "offset %s", off)
			}
			assert.Equal(t, float64(len(recs)), testutil.ToFloat64(e.metrics.LinesShipped))
			st, err := e.ledger.File(ctx, path)
			require.NoError(t, err)
			require.Len(t, st.Ranges, 1)
			assert.Equal(t, int64(len(data)), st.Ranges[0].End)
		})
	}
}

// annotationsOnce ships the golden journal in one flush that succeeds and
// returns each line's annotations by byte offset.
func annotationsOnce(t *testing.T) map[string]string {
	e := newEnv(t, nil)
	_, path, data := journalAt(t)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	out := map[string]string{}
	for _, g := range e.cap.entries() {
		out[g.md["byte_offset"]] = g.md["annotations"]
	}
	return out
}
