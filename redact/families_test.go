package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The secrets agents meet most, each with Gitleaks' own examples.
func TestSecretFamilies(t *testing.T) {
	tps, _ := gitleaksExamples()
	r := newRedactor(t, nil)
	for _, rule := range []string{
		"aws-access-token",
		"github-pat", "github-fine-grained-pat", "github-oauth", "github-app-token",
		"slack-bot-token", "slack-user-token", "slack-app-token", "slack-webhook-url",
		"private-key", "jwt", "stripe-access-token", "openai-api-key",
		"anthropic-api-key", "anthropic-admin-api-key",
	} {
		t.Run(rule, func(t *testing.T) {
			named := 0
			for _, tp := range tps {
				if tp.Rule != rule {
					continue
				}
				for _, sh := range shapes {
					line := sh.line(tp.Sample)
					out, found := r.Redact("s.jsonl", line, nil)
					require.NotEmpty(t, found, "%s: %s", sh.name, line)
					assertRedacted(t, line, out, found, tp.Secrets)
					if ruleFound(found, rule) {
						named++
					}
				}
			}
			assert.Positive(t, named, "the rule names the secrets of its examples")
		})
	}
}

func TestConnectionStrings(t *testing.T) {
	lines := []string{
		`{"cmd":"psql postgres://app:s3cr3t-Pa55w0rd@db.internal:5432/orders"}`,
		`{"env":"DATABASE_URL=mysql://root:hunter2hunter2@127.0.0.1:3306/app\nREDIS_URL=redis://:Tq8xPz4LmW2@cache:6379/0"}`,
		`{"log":"connecting to mongodb+srv://svc:Vf93kLq0Zx7@cluster0.abcd.mongodb.net/db?retryWrites=true"}`,
	}
	// No Gitleaks rule covers passwords in URLs: journalship's own
	// (builtin.toml) does, unless allowed.
	off := newRedactor(t, func(c *Config) { c.AllowRules = []string{"connection-string-password"} })
	for _, l := range lines {
		_, found := off.Redact("s.jsonl", []byte(l), nil)
		assert.Empty(t, found, "%s", l)
	}
	r := newRedactor(t, nil)
	want := []string{
		`{"cmd":"psql postgres://app:<REDACTED-SECRET:connection-string-password>@db.internal:5432/orders"}`,
		`{"env":"DATABASE_URL=mysql://root:<REDACTED-SECRET:connection-string-password>@127.0.0.1:3306/app\nREDIS_URL=redis://:<REDACTED-SECRET:connection-string-password>@cache:6379/0"}`,
		`{"log":"connecting to mongodb+srv://svc:<REDACTED-SECRET:connection-string-password>@cluster0.abcd.mongodb.net/db?retryWrites=true"}`,
	}
	for i, l := range lines {
		out, _ := redactOne(t, r, l)
		assert.Equal(t, want[i], out)
	}
	_, found := r.Redact("s.jsonl", []byte(`{"url":"postgres://app:${PGPASSWORD}@db/x"}`), nil)
	assert.Empty(t, found, "a placeholder is no password")
}

func TestGenericRules(t *testing.T) {
	tps, _ := gitleaksExamples()
	off := newRedactor(t, nil)
	on := newRedactor(t, func(c *Config) { c.Generic = true })
	n := 0
	for _, tp := range tps {
		if tp.Rule != "generic-api-key" {
			continue
		}
		n++
		line := shapes[0].line(tp.Sample)
		_, found := off.Redact("s.jsonl", line, nil)
		assert.False(t, ruleFound(found, "generic-api-key"), "off by default: %s", line)
		out, found := on.Redact("s.jsonl", line, nil)
		require.NotEmpty(t, found, "on: %s", line)
		assertRedacted(t, line, out, found, tp.Secrets)
		raw, found := on.Redact("s.txt", []byte(tp.Sample), nil)
		assertAsGitleaks(t, tp, raw, found, true)
	}
	assert.Greater(t, n, 3)

	// The catch-all takes any long value after a word like "token"; a
	// specific rule wins where both match.
	line := []byte(`{"config":"auth_token = \"q8Zr2XvLp0Wk7Nd4Hs9T\""}`)
	_, found := off.Redact("s.jsonl", line, nil)
	assert.Empty(t, found)
	_, found = on.Redact("s.jsonl", line, nil)
	require.Len(t, found, 1)
	assert.Equal(t, "generic-api-key", found[0].Rule)
	out, found := on.Redact("s.jsonl", []byte(`{"config":"github_token = \"`+ghp+`\""}`), nil)
	require.Len(t, found, 1)
	assert.Equal(t, "github-pat", found[0].Rule)
	assert.True(t, json.Valid(out))
}
