package lokiquery

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// WaitPoll is the interval between WaitFor polls.
const WaitPoll = 200 * time.Millisecond

// retryable is implemented by this package's errors.
type retryable interface{ Retryable() bool }

// WaitFor polls QueryRange (pages of DefaultPageLimit, forward) until at
// least want entries are visible, and returns them. Retryable errors
// (connection refused, 429, 5xx) are polled through; a permanent one (bad
// query) is returned at once. After timeout it returns the last entries
// seen and a *WaitTimeoutError.
func (c *Client) WaitFor(ctx context.Context, query string, start, end time.Time, want int, timeout time.Duration) ([]Entry, error) {
	const op = "WaitFor"
	if err := checkRange(op, query, start, end); err != nil {
		return nil, err
	}
	if want < 0 {
		return nil, &ArgError{Op: op, Arg: "want", Reason: "must be >= 0, got " + strconv.Itoa(want)}
	}
	if timeout <= 0 {
		return nil, &ArgError{Op: op, Arg: "timeout", Reason: "must be > 0"}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(WaitPoll)
	defer tick.Stop()
	var last []Entry
	var lastErr error
	for {
		got, err := c.QueryRange(ctx, query, start, end, DefaultPageLimit, Forward)
		switch {
		case err == nil && len(got) >= want:
			return got, nil
		case err == nil:
			last, lastErr = got, nil
		case ctx.Err() != nil:
			// the poll was cut by the deadline: report the previous state
		case !isRetryable(err):
			return nil, err
		default:
			lastErr = err
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return last, &WaitTimeoutError{Query: query, Want: want, Got: len(last), Timeout: timeout, Last: lastErr}
			}
			return last, ctx.Err()
		case <-tick.C:
		}
	}
}

func isRetryable(err error) bool {
	var r retryable
	return errors.As(err, &r) && r.Retryable()
}
