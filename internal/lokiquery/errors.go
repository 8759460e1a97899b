package lokiquery

import (
	"fmt"
	"net/http"
	"time"
)

// ArgError reports an invalid argument or Config field. It is permanent.
type ArgError struct {
	Op     string // method, e.g. "QueryRange"
	Arg    string // argument or field name
	Reason string
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("lokiquery: %s: invalid %s: %s", e.Op, e.Arg, e.Reason)
}

// Retryable reports false.
func (e *ArgError) Retryable() bool { return false }

// TransportError reports that the request did not get an HTTP answer
// (connection refused, reset, client timeout). It is retryable.
type TransportError struct {
	Op  string
	URL string
	Err error
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("lokiquery: %s: GET %s: %v", e.Op, e.URL, e.Err)
}

func (e *TransportError) Unwrap() error { return e.Err }

// Retryable reports true.
func (e *TransportError) Retryable() bool { return true }

// HTTPError reports a non-200 answer. Body is Loki's error text (at most
// maxErrorBody bytes).
type HTTPError struct {
	Op     string
	URL    string
	Status int
	Body   string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("lokiquery: %s: GET %s: HTTP %d: %s", e.Op, e.URL, e.Status, e.Body)
}

// Retryable reports true for 429 and 5xx: Loki may answer later. Any other
// status (400 bad query, 404) fails the same way again.
func (e *HTTPError) Retryable() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// DecodeError reports a response body that is not what Loki's API documents.
// Where names the JSON location, e.g. `result[0].values[3][0]`. Permanent.
type DecodeError struct {
	Op    string
	Where string
	Err   error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("lokiquery: %s: decode response at %s: %v", e.Op, e.Where, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Retryable reports false.
func (e *DecodeError) Retryable() bool { return false }

// ResultTypeError reports a query whose result type does not fit the method,
// e.g. a metric query given to QueryRange. Permanent.
type ResultTypeError struct {
	Op   string
	Want string
	Got  string
}

func (e *ResultTypeError) Error() string {
	return fmt.Sprintf("lokiquery: %s: result type %q, want %s", e.Op, e.Got, e.Want)
}

// Retryable reports false.
func (e *ResultTypeError) Retryable() bool { return false }

// PaginationError reports that a full page held only entries already seen at
// one timestamp, so pagination cannot advance: the limit must exceed the
// number of entries sharing one timestamp (as with logcli's batch size).
type PaginationError struct {
	At    time.Time
	Limit int
}

func (e *PaginationError) Error() string {
	return fmt.Sprintf("lokiquery: QueryRange: a page of %d holds only entries at %s; the limit must exceed the entries sharing one timestamp", e.Limit, e.At.Format(time.RFC3339Nano))
}

// Retryable reports false.
func (e *PaginationError) Retryable() bool { return false }

// WaitTimeoutError reports that WaitFor saw fewer entries than wanted before
// its timeout. Last is the last query error, if the last poll failed.
type WaitTimeoutError struct {
	Query   string
	Want    int
	Got     int
	Timeout time.Duration
	Last    error
}

func (e *WaitTimeoutError) Error() string {
	msg := fmt.Sprintf("lokiquery: WaitFor %s: %d of %d entries after %s", e.Query, e.Got, e.Want, e.Timeout)
	if e.Last != nil {
		msg += "; last error: " + e.Last.Error()
	}
	return msg
}

func (e *WaitTimeoutError) Unwrap() error { return e.Last }

// Retryable reports true: the entries may still arrive.
func (e *WaitTimeoutError) Retryable() bool { return true }
