package loki

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Causes of a RetryableError (RetryableError.Cause, Classify).
const (
	CauseRateLimited      = "rate_limited"      // 429, or a 400 listing per-stream rate-limited entries
	CauseServerError      = "server_error"      // 5xx
	CauseIngestionBlocked = "ingestion_blocked" // Loki's 260 (or any status whose body says ingestion is blocked)
	CauseNetwork          = "network"           // connection refused/reset, broken answer
	CauseTimeout          = "timeout"           // Config.Timeout or the caller's deadline passed
	CauseCanceled         = "canceled"          // the caller's context was canceled
	CauseAuth             = "auth"              // 401/403, or the bearer token file cannot be read
	CauseNotFound         = "not_found"         // 404: wrong URL or gateway route
	CauseUnexpected       = "unexpected_status" // 1xx/3xx and other answers Loki does not give
	// CauseRequestRefused is a 400 that is not about the lines: a refused
	// stream (duplicate or invalid label, a tenant limit on labels or
	// metadata) or an answer that names no line. The lines are not at
	// fault, so they are retried (and the refusal alerted) until the
	// configuration is fixed, never dead-lettered.
	CauseRequestRefused = "request_refused"
	CauseUnknown        = "unknown" // an error this package did not produce
)

// Classes reported by Classify for errors that must not be retried.
const (
	ClassPermanent = "permanent"
	ClassInput     = "invalid_input"
	ClassConfig    = "config"
)

// maxErrorBody bounds RetryableError.Body and PermanentError.Body.
const maxErrorBody = 1024

// RetryableError is a failure after which the same data may be sent again
// later: nothing in the failed request may be taken as stored, and parts of
// it may have been (duplicates are possible on retry).
type RetryableError struct {
	Cause  string // one of the Cause constants
	Status int    // HTTP status, 0 when there was no answer
	Body   string // Loki's answer (trimmed, at most 1 KiB)
	Err    error  // underlying error, if any
}

func (e *RetryableError) Error() string {
	s := "loki push: retryable (" + e.Cause + ")"
	if e.Status != 0 {
		s += ": status " + strconv.Itoa(e.Status)
	}
	if e.Body != "" {
		s += ": " + e.Body
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *RetryableError) Unwrap() error { return e.Err }

// PermanentError is a request Loki can never accept as a whole (413, 422,
// other 4xx). Its entries are reported in Result.Rejected.
type PermanentError struct {
	Status int    // HTTP status
	Body   string // Loki's answer (trimmed, at most 1 KiB)
}

func (e *PermanentError) Error() string {
	s := "loki push: permanent: status " + strconv.Itoa(e.Status)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// InputError reports an entry or label set that Batch.Add refused because
// Loki would refuse the whole request (or fail with a 500) because of it.
type InputError struct {
	Ref   int    // Entry.Ref of the refused entry
	Field string // e.g. "labels[2].name", "metadata[0].name", "timestamp"
	Msg   string
}

func (e *InputError) Error() string {
	return "loki batch: entry ref " + strconv.Itoa(e.Ref) + ": " + e.Field + ": " + e.Msg
}

// Classify tells whether err is worth retrying and why. A nil error is not
// retryable and has no cause. Errors not produced by this package are taken
// as retryable (CauseUnknown): at least once prefers a duplicate to a loss.
func Classify(err error) (retryable bool, cause string) {
	var re *RetryableError
	var pe *PermanentError
	var ie *InputError
	var ce *ConfigError
	switch {
	case err == nil:
		return false, ""
	case errors.As(err, &re):
		return true, re.Cause
	case errors.As(err, &pe):
		return false, ClassPermanent
	case errors.As(err, &ie):
		return false, ClassInput
	case errors.As(err, &ce):
		return false, ClassConfig
	case errors.Is(err, context.Canceled):
		return true, CauseCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return true, CauseTimeout
	default:
		return true, CauseUnknown
	}
}

// truncateBody trims white space and bounds s to maxErrorBody bytes, cut at
// a character boundary.
func truncateBody(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxErrorBody {
		return s
	}
	cut := maxErrorBody
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
