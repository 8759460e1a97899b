// Package lokiquery is a small LogQL HTTP client for end-to-end tests and
// the `make run` demo report. It speaks Loki's documented HTTP API with
// net/http and encoding/json only.
//
// Every query asks for the categorize-labels encoding
// (X-Loki-Response-Encoding-Flags: categorize-labels), so stream labels stay
// apart from structured metadata and parsed labels.
package lokiquery

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Header names and values of Loki's HTTP API (pkg/util/httpreq).
const (
	EncodingFlagsHeader = "X-Loki-Response-Encoding-Flags"
	CategorizeLabels    = "categorize-labels"
	TenantHeader        = "X-Scope-OrgID"
)

// maxErrorBody bounds the error text kept in an HTTPError.
const maxErrorBody = 4096

// maxResponseBody bounds a successful response body (64 MiB).
const maxResponseBody = 64 << 20

// Config configures a Client.
type Config struct {
	// URL is Loki's base address, e.g. http://127.0.0.1:3100. Required.
	URL string
	// TenantID is sent as X-Scope-OrgID when not empty.
	TenantID string
	// Timeout bounds each HTTP request. Default 30s.
	Timeout time.Duration
}

// DefaultConfig returns a Config with defaults (URL still to be set).
func DefaultConfig() Config { return Config{Timeout: 30 * time.Second} }

// Validate reports the first problem in c as an *ArgError.
func (c Config) Validate() error {
	u, err := url.Parse(c.URL)
	switch {
	case c.URL == "":
		return &ArgError{Op: "New", Arg: "Config.URL", Reason: "empty"}
	case err != nil:
		return &ArgError{Op: "New", Arg: "Config.URL", Reason: err.Error()}
	case u.Scheme != "http" && u.Scheme != "https":
		return &ArgError{Op: "New", Arg: "Config.URL", Reason: "scheme must be http or https: " + c.URL}
	case u.Host == "":
		return &ArgError{Op: "New", Arg: "Config.URL", Reason: "no host: " + c.URL}
	case c.Timeout <= 0:
		return &ArgError{Op: "New", Arg: "Config.Timeout", Reason: "must be > 0"}
	}
	return nil
}

// Client queries one Loki. A literal Client{URL: ...} works too; a nil HTTP
// uses a client with a 30s timeout.
type Client struct {
	URL      string
	TenantID string
	HTTP     *http.Client
}

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultConfig().Timeout
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Client{URL: cfg.URL, TenantID: cfg.TenantID, HTTP: &http.Client{Timeout: cfg.Timeout}}, nil
}

var defaultHTTP = &http.Client{Timeout: 30 * time.Second}

// get performs GET path?params and returns the body of a 200 answer.
func (c *Client) get(ctx context.Context, op, path string, params url.Values) ([]byte, error) {
	u := strings.TrimRight(c.URL, "/") + path + "?" + params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &ArgError{Op: op, Arg: "URL", Reason: err.Error()}
	}
	req.Header.Set(EncodingFlagsHeader, CategorizeLabels)
	if c.TenantID != "" {
		req.Header.Set(TenantHeader, c.TenantID)
	}
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &TransportError{Op: op, URL: u, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, &HTTPError{Op: op, URL: u, Status: resp.StatusCode, Body: strings.TrimSpace(string(b))}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
	if err != nil {
		return nil, &TransportError{Op: op, URL: u, Err: err}
	}
	return body, nil
}

// formatTime encodes t for Loki. RFC 3339 is unambiguous, where a Unix
// nanosecond count of 10 digits or fewer would be read as seconds.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
