package loki

import (
	"errors"
	"net/http"
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
