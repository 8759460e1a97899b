package loki

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// classifyStatus returns the error for a status (nil for success and 400,
// whose answer is mapped to entries).
func classifyStatus(status int, answer string) error {
	retry := func(cause string) error {
		return &RetryableError{Cause: cause, Status: status, Body: truncateBody(answer)}
	}
	switch {
	case status == StatusIngestionBlocked:
		return retry(CauseIngestionBlocked)
	case status >= 200 && status < 300:
		return nil
	case ingestionBlocked(answer):
		return retry(CauseIngestionBlocked)
	case status == http.StatusBadRequest:
		return nil
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return retry(CauseAuth)
	case status == http.StatusNotFound:
		return retry(CauseNotFound)
	case status == http.StatusRequestTimeout:
		return retry(CauseTimeout)
	case status == http.StatusTooManyRequests:
		return retry(CauseRateLimited)
	case status >= 500:
		return retry(CauseServerError)
	case status >= 400:
		return &PermanentError{Status: status, Body: truncateBody(answer)}
	default:
		return retry(CauseUnexpected)
	}
}

// rejectAll rejects every entry of request r.
func rejectAll(b *Batch, r request, reason string) []Rejection {
	out := make([]Rejection, 0, r.entries)
	b.requestEntries(r, func(s *stream, i int) {
		out = append(out, Rejection{Ref: s.refs[i], Reason: reason})
	})
	return out
}

func isPermanent(err error) bool {
	var pe *PermanentError
	return errors.As(err, &pe)
}

func causeOf(err error) string {
	_, cause := Classify(err)
	return cause
}

// rateLimited matches the distributor's answer to a request over the
// tenant's ingestion rate (validation.RateLimitedErrorMsg, Loki v3.7.8):
// "Ingestion rate limit exceeded for user %s (limit: %d bytes/sec) while
// attempting to ingest '%d' lines totaling '%d' bytes, reduce log volume
// or contact your Loki administrator to see if the limit can be increased".
var rateLimited = regexp.MustCompile(`^Ingestion rate limit exceeded for user .* \(limit: (\d+) bytes/sec\) while attempting to ingest '\d+' lines totaling '(\d+)' bytes`)

// overRate tells whether a 429 says the request alone holds more bytes
// than the tenant may ingest in a second: sent whole it may never fit
// the limiter's burst.
func overRate(status int, answer string) bool {
	if status != http.StatusTooManyRequests {
		return false
	}
	m := rateLimited.FindStringSubmatch(strings.TrimSpace(answer))
	if m == nil {
		return false
	}
	limit, err1 := strconv.ParseInt(m[1], 10, 64)
	size, err2 := strconv.ParseInt(m[2], 10, 64)
	return err1 == nil && err2 == nil && size > limit
}
