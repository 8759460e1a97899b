package loki

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// post sends one compressed request and returns Loki's status and answer
// (complete is false when the answer was longer than maxAnswerBytes). After a
// 401/403 with a bearer token file whose token changed, it sends the request
// once more with the new token. tenant, when not "", is the request's
// X-Scope-OrgID instead of Config.TenantID.
func (c *Client) post(ctx context.Context, body []byte, tenant string) (status int, answer string, complete bool, err error) {
	status, answer, complete, err = c.do(ctx, http.MethodPost, c.pushURL, body, tenant)
	if err == nil && (status == http.StatusUnauthorized || status == http.StatusForbidden) && c.auth.refresh() {
		status, answer, complete, err = c.do(ctx, http.MethodPost, c.pushURL, body, tenant)
	}
	return status, answer, complete, err
}

// do performs one HTTP request within Config.Timeout. Transport failures are
// returned as *RetryableError.
func (c *Client) do(ctx context.Context, method, url string, body []byte, tenant string) (int, string, bool, error) {
	rctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var reqBody io.Reader
	if body != nil {
		// A copy the request owns: the transport may still be writing the
		// body after the answer came (a server may answer before it read
		// it all), when the batch's buffer serves the next request. And a
		// *bytes.Reader is a body net/http knows is in memory: it writes
		// the headers and the body together (newTransport's write
		// buffer), not the headers in a packet of their own first.
		reqBody = bytes.NewReader(bytes.Clone(body))
	}
	req, err := http.NewRequestWithContext(rctx, method, url, reqBody)
	if err != nil {
		return 0, "", false, err
	}
	if err := c.setHeaders(req, body != nil, tenant); err != nil {
		return 0, "", false, err
	}
	req.ContentLength = int64(len(body))
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.m.duration.WithLabelValues(statusClass(0)).Observe(time.Since(start).Seconds())
		return 0, "", false, transportError(ctx, err)
	}
	answer, readErr := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	_ = resp.Body.Close()
	c.m.duration.WithLabelValues(statusClass(resp.StatusCode)).Observe(time.Since(start).Seconds())
	if readErr != nil && (resp.StatusCode < 200 || resp.StatusCode >= 300) {
		// An answer cut short cannot be judged: nothing is known stored.
		e := transportError(ctx, readErr)
		e.Status = resp.StatusCode
		return 0, "", false, e
	}
	complete := len(answer) <= maxAnswerBytes
	if !complete {
		answer = answer[:maxAnswerBytes]
	}
	return resp.StatusCode, string(answer), complete, nil
}

// setHeaders sets the configured, identity and authentication headers, and
// the content type of a push. tenant, when not "", replaces
// Config.TenantID.
func (c *Client) setHeaders(req *http.Request, isPush bool, tenant string) error {
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	if tenant == "" {
		tenant = c.cfg.TenantID
	}
	if tenant != "" {
		req.Header.Set("X-Scope-OrgID", tenant)
	}
	auth, err := c.auth.header()
	if err != nil {
		return err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if isPush {
		req.Header.Set("Content-Type", "application/x-protobuf")
	}
	return nil
}

// transportError classifies a failure to get an answer.
func transportError(parent context.Context, err error) *RetryableError {
	cause := CauseNetwork
	var ne net.Error
	switch {
	case errors.Is(parent.Err(), context.Canceled):
		cause = CauseCanceled
	case parent.Err() != nil, errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		cause = CauseTimeout
	case errors.As(err, &ne) && ne.Timeout():
		cause = CauseTimeout
	}
	return &RetryableError{Cause: cause, Err: err}
}

// Ready asks Loki's /ready endpoint; nil means Loki is ready to take pushes.
func (c *Client) Ready(ctx context.Context) error {
	status, answer, _, err := c.do(ctx, http.MethodGet, c.cfg.readyURL(), nil, "")
	if err != nil {
		return err
	}
	if status == http.StatusOK {
		return nil
	}
	if err := classifyStatus(status, answer); err != nil {
		return err
	}
	return &RetryableError{Cause: CauseUnexpected, Status: status, Body: truncateBody(answer)}
}
