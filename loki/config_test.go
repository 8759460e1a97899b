package loki

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultConfig(t *testing.T) {
	cfg := DefaultConfig()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, "http://127.0.0.1:3100", cfg.URL)
	assert.Equal(t, 10*time.Second, cfg.Timeout)
	assert.Equal(t, 1<<20, cfg.MaxRequestBytes)
	assert.Equal(t, "journalship/"+Version, cfg.UserAgent)
	assert.Equal(t, "http://127.0.0.1:3100/loki/api/v1/push", cfg.pushURL())
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
		field  string // "" = valid
	}{
		{"https with gateway prefix", func(c *Config) { c.URL = "https://logs.example.com/loki-gw/" }, ""},
		{"empty URL", func(c *Config) { c.URL = "" }, "URL"},
		{"no scheme", func(c *Config) { c.URL = "127.0.0.1:3100" }, "URL"},
		{"ftp", func(c *Config) { c.URL = "ftp://x" }, "URL"},
		{"no host", func(c *Config) { c.URL = "http://" }, "URL"},
		{"query", func(c *Config) { c.URL = "http://x?a=b" }, "URL"},
		{"full push URL", func(c *Config) { c.URL = "http://x:3100/loki/api/v1/push" }, "URL"},
		{"password without user", func(c *Config) { c.Password = "p" }, "Username"},
		{"password and file", func(c *Config) { c.Username, c.Password, c.PasswordFile = "u", "p", "/f" }, "Password"},
		{"token and file", func(c *Config) { c.BearerToken, c.BearerTokenFile = "t", "/f" }, "BearerToken"},
		{"basic and bearer", func(c *Config) { c.Username, c.BearerToken = "u", "t" }, "BearerToken"},
		{"cert without key", func(c *Config) { c.CertFile = "/c" }, "CertFile"},
		{"key without cert", func(c *Config) { c.KeyFile = "/k" }, "CertFile"},
		{"zero timeout", func(c *Config) { c.Timeout = 0 }, "Timeout"},
		{"tiny requests", func(c *Config) { c.MaxRequestBytes = 100 }, "MaxRequestBytes"},
		{"content type header", func(c *Config) { c.Headers = map[string]string{"content-type": "x"} }, "Headers[content-type]"},
		{"authorization header with auth", func(c *Config) {
			c.BearerToken = "t"
			c.Headers = map[string]string{"Authorization": "x"}
		}, "Headers[Authorization]"},
		{"authorization header alone", func(c *Config) { c.Headers = map[string]string{"Authorization": "x"} }, ""},
		{"org id header with tenant", func(c *Config) {
			c.TenantID = "a"
			c.Headers = map[string]string{"X-Scope-OrgID": "b"}
		}, "Headers[X-Scope-OrgID]"},
		{"header with line break", func(c *Config) { c.Headers = map[string]string{"X-A": "a\r\nX-B: b"} }, "Headers[X-A]"},
		{"bad header name", func(c *Config) { c.Headers = map[string]string{"X A": "a"} }, "Headers[X A]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.mutate(&cfg)
			err := cfg.Validate()
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			var ce *ConfigError
			require.True(t, errors.As(err, &ce), "got %v", err)
			assert.Equal(t, tt.field, ce.Field)
			_, err = New(cfg, nil)
			assert.True(t, errors.As(err, &ce), "New validates too")
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		retryable bool
		cause     string
	}{
		{"nil", nil, false, ""},
		{"retryable", &RetryableError{Cause: CauseRateLimited, Status: 429}, true, CauseRateLimited},
		{"wrapped retryable", fmt.Errorf("flush: %w", &RetryableError{Cause: CauseAuth}), true, CauseAuth},
		{"permanent", &PermanentError{Status: 413}, false, ClassPermanent},
		{"input", &InputError{Field: "labels"}, false, ClassInput},
		{"config", &ConfigError{Field: "URL"}, false, ClassConfig},
		{"canceled", context.Canceled, true, CauseCanceled},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), true, CauseTimeout},
		{"foreign", errors.New("boom"), true, CauseUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			retryable, cause := Classify(tt.err)
			assert.Equal(t, tt.retryable, retryable)
			assert.Equal(t, tt.cause, cause)
		})
	}
}

func TestErrorTexts(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&RetryableError{Cause: CauseServerError, Status: 503, Body: "down"}, "loki push: retryable (server_error): status 503: down"},
		{&RetryableError{Cause: CauseNetwork, Err: errors.New("reset")}, "loki push: retryable (network): reset"},
		{&PermanentError{Status: 413, Body: "too large"}, "loki push: permanent: status 413: too large"},
		{&InputError{Ref: 4, Field: "labels[0].name", Msg: "empty label name"}, "loki batch: entry ref 4: labels[0].name: empty label name"},
		{&ConfigError{Field: "URL", Msg: "empty"}, "loki config: URL: empty"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
	assert.Equal(t, "short", truncateBody("  short\n"))
	cut := truncateBody(strings.Repeat("a", maxErrorBody-1) + "é and more")
	assert.True(t, utf8.ValidString(cut), "cut inside a character")
	assert.Equal(t, strings.Repeat("a", maxErrorBody-1)+"…", cut)
}
