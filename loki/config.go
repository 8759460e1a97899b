package loki

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Version is the journalship version reported in the default User-Agent. It
// is set at build time with -ldflags "-X .../loki.Version=1.2.3".
var Version = "dev"

// Defaults used by DefaultConfig.
const (
	DefaultURL             = "http://127.0.0.1:3100"
	DefaultTimeout         = 10 * time.Second
	DefaultMaxRequestBytes = 1 << 20
	// MinMaxRequestBytes is the smallest MaxRequestBytes accepted.
	MinMaxRequestBytes = 1 << 10
)

// PushPath and ReadyPath are appended to Config.URL.
const (
	PushPath  = "/loki/api/v1/push"
	ReadyPath = "/ready"
)

// Config configures a Client. The zero value is not usable: start from
// DefaultConfig.
type Config struct {
	// URL is Loki's base address (scheme, host, optional path prefix of a
	// gateway), without /loki/api/v1/push. Default http://127.0.0.1:3100.
	URL string
	// TenantID is sent as X-Scope-OrgID when set.
	TenantID string
	// Username and Password are sent as basic auth when Username is set.
	Username, Password string
	// PasswordFile holds the basic-auth password, read once by New
	// (surrounding white space removed). Alternative to Password.
	PasswordFile string
	// BearerToken is sent as "Authorization: Bearer <token>".
	BearerToken string
	// BearerTokenFile holds the bearer token. It is read again whenever its
	// modification time or size changes, and after every 401/403, so rotated
	// tokens are picked up without a restart.
	BearerTokenFile string
	// CAFile is a PEM bundle of the CAs trusted for Loki's certificate
	// (instead of the system pool). CertFile and KeyFile are the client
	// certificate and key for mutual TLS; they go together.
	CAFile, CertFile, KeyFile string
	// InsecureSkipVerify disables the verification of Loki's certificate.
	InsecureSkipVerify bool
	// Headers are extra request headers (not Content-Type, Content-Encoding,
	// Content-Length; not Authorization or X-Scope-OrgID when the matching
	// option is set).
	Headers map[string]string
	// Timeout bounds each HTTP request. Default 10s.
	Timeout time.Duration
	// MaxRequestBytes bounds the uncompressed protobuf size of one request;
	// larger batches are split. A single entry larger than this is sent
	// alone. Default 1 MiB.
	MaxRequestBytes int
	// MultiStreamRequests lets one request carry several streams. Off by
	// default: Loki's ingester (pkg/ingester/instance.go, Push) keeps only
	// the last stream's error, so entries an ingester refuses in an earlier
	// stream of the request (too far behind, out of order) would be dropped
	// behind a 204. One stream per request makes every refusal visible.
	MultiStreamRequests bool
	// MaxBehind is how far behind its stream's newest entry Loki's
	// ingester accepts an entry (half its max_chunk_age: one hour by
	// default). It explains a 400 that counts more too-far-behind
	// refusals than it names. Zero means DefaultMaxBehind.
	MaxBehind time.Duration
	// UserAgent defaults to "journalship/<Version>".
	UserAgent string
}

// DefaultMaxBehind is a stock Loki's too-far-behind window: half of the
// ingester's default max_chunk_age of two hours.
const DefaultMaxBehind = time.Hour

// maxBehind returns MaxBehind or its default.
func (c Config) maxBehind() time.Duration {
	if c.MaxBehind > 0 {
		return c.MaxBehind
	}
	return DefaultMaxBehind
}

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config {
	return Config{
		URL:             DefaultURL,
		Timeout:         DefaultTimeout,
		MaxRequestBytes: DefaultMaxRequestBytes,
		UserAgent:       "journalship/" + Version,
	}
}

// ConfigError reports an invalid Config field.
type ConfigError struct {
	Field string // Config field name, e.g. "URL"
	Msg   string
}

func (e *ConfigError) Error() string { return "loki config: " + e.Field + ": " + e.Msg }

func configErr(field, format string, args ...any) error {
	return &ConfigError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// reservedHeaders are set by the client itself and cannot be overridden.
var reservedHeaders = []string{"Content-Type", "Content-Encoding", "Content-Length"}

// Validate checks the configuration without touching the file system.
func (c Config) Validate() error {
	if err := validateURL(c.URL); err != nil {
		return err
	}
	if c.Password != "" && c.PasswordFile != "" {
		return configErr("Password", "set either Password or PasswordFile, not both")
	}
	if (c.Password != "" || c.PasswordFile != "") && c.Username == "" {
		return configErr("Username", "required when Password or PasswordFile is set")
	}
	if c.BearerToken != "" && c.BearerTokenFile != "" {
		return configErr("BearerToken", "set either BearerToken or BearerTokenFile, not both")
	}
	if c.Username != "" && (c.BearerToken != "" || c.BearerTokenFile != "") {
		return configErr("BearerToken", "basic auth (Username) and a bearer token are mutually exclusive")
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return configErr("CertFile", "CertFile and KeyFile must be set together")
	}
	if c.Timeout <= 0 {
		return configErr("Timeout", "must be positive, got %s", c.Timeout)
	}
	if c.MaxRequestBytes < MinMaxRequestBytes {
		return configErr("MaxRequestBytes", "must be at least %d, got %d", MinMaxRequestBytes, c.MaxRequestBytes)
	}
	return c.validateHeaders()
}

func validateURL(raw string) error {
	if raw == "" {
		return configErr("URL", "empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return configErr("URL", "%v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return configErr("URL", "scheme must be http or https, got %q", u.Scheme)
	}
	if u.Host == "" {
		return configErr("URL", "no host in %q", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return configErr("URL", "must not have a query or fragment: %q", raw)
	}
	if strings.HasSuffix(strings.TrimRight(u.Path, "/"), PushPath) {
		return configErr("URL", "give Loki's base address, without %s: %q", PushPath, raw)
	}
	return nil
}

func (c Config) validateHeaders() error {
	for k, v := range c.Headers {
		ck := http.CanonicalHeaderKey(k)
		field := "Headers[" + k + "]"
		if k == "" || strings.ContainsAny(k, " \t\r\n:") {
			return configErr(field, "invalid header name")
		}
		if strings.ContainsAny(v, "\r\n") {
			return configErr(field, "value contains a line break")
		}
		for _, r := range reservedHeaders {
			if ck == r {
				return configErr(field, "set by the client itself")
			}
		}
		if ck == "Authorization" && (c.Username != "" || c.BearerToken != "" || c.BearerTokenFile != "") {
			return configErr(field, "conflicts with the configured authentication")
		}
		if ck == "X-Scope-Orgid" && c.TenantID != "" {
			return configErr(field, "conflicts with TenantID")
		}
	}
	return nil
}

// pushURL and readyURL join the base URL and the API paths.
func (c Config) pushURL() string  { return strings.TrimRight(c.URL, "/") + PushPath }
func (c Config) readyURL() string { return strings.TrimRight(c.URL, "/") + ReadyPath }
