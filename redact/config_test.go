package redact

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultRules(t *testing.T) {
	r := newRedactor(t, nil)
	ids := r.Rules()
	assert.Len(t, ids, 217, "Gitleaks' 222 default rules less five that need a file path, less generic-api-key, and journalship's connection-string-password")
	assert.True(t, slices.IsSorted(ids))
	for _, id := range []string{"connection-string-password", "aws-access-token", "github-pat", "github-fine-grained-pat", "slack-bot-token",
		"slack-webhook-url", "private-key", "jwt", "stripe-access-token", "openai-api-key", "anthropic-api-key"} {
		assert.Contains(t, ids, id)
	}
	for _, id := range []string{"generic-api-key", "pkcs12-file", "kubernetes-secret-yaml", "hashicorp-tf-password",
		"freemius-secret-key", "nuget-config-password"} {
		assert.NotContains(t, ids, id)
	}
	assert.Empty(t, r.set.always, "every default rule has a keyword or an anchor")

	g := newRedactor(t, func(c *Config) { c.Generic = true })
	assert.Len(t, g.Rules(), 218)
	assert.Contains(t, g.Rules(), "generic-api-key")

	off := newRedactor(t, func(c *Config) { c.Enabled = false })
	assert.Empty(t, off.Rules())
	line := []byte(`{"token":"ghp_dzqb5jebzo6esrq1jbdgd75u8aegzsjdak3s"}`)
	out, found := off.Redact("a.jsonl", line, nil)
	assert.Empty(t, found)
	assert.Equal(t, line, out)
}

func TestValidateNamesTheSetting(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	for _, c := range []struct {
		name  string
		edit  func(*Config)
		field string
		value string
	}{
		{"missing rule file", func(c *Config) { c.Rules = filepath.Join(dir, "none.toml") }, "Rules", ""},
		{"not TOML", func(c *Config) { c.Rules = write("bad.toml", "[[rules]\nid = ") }, "Rules", ""},
		{"no rules", func(c *Config) { c.Rules = write("empty.toml", "title = \"x\"\n") }, "Rules", ""},
		{"bad regex", func(c *Config) {
			c.Rules = write("regex.toml", "[[rules]]\nid = \"x\"\nregex = '''(unclosed'''\nkeywords = [\"ab\"]\n")
		}, "Rules", ""},
		{"extend path", func(c *Config) { c.Rules = write("path.toml", "[extend]\npath = \"/etc/other.toml\"\n") }, "Rules", ""},
		{"unknown disabled rule", func(c *Config) {
			c.Rules = write("dis.toml", "[extend]\nuseDefault = true\ndisabledRules = [\"no-such-rule\"]\n[[rules]]\nid = \"x\"\nregex = '''xyz[0-9]{8}'''\n")
		}, "Rules", ""},
		{"unknown allowed rule", func(c *Config) { c.AllowRules = []string{"github-pat", "no-such-rule"} }, "AllowRules", "no-such-rule"},
		{"bad glob", func(c *Config) { c.AllowPaths = []string{"/data/[x"} }, "AllowPaths", "/data/[x"},
		{"empty value", func(c *Config) { c.AllowValues = []string{""} }, "AllowValues", ""},
		{"hash without key", func(c *Config) { c.Hash = true }, "KeyFile", ""},
		{"extend without rules", func(c *Config) { c.Extend = true }, "Extend", "true"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.edit(&cfg)
			err := cfg.Validate()
			var ce *ConfigError
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, c.field, ce.Field)
			if c.value != "" {
				assert.Equal(t, c.value, ce.Value)
			}
			assert.Contains(t, err.Error(), c.field)
			assert.False(t, ce.Retryable())
			_, err = New(cfg)
			assert.ErrorAs(t, err, &ce, "New validates too")
		})
	}
	assert.NoError(t, DefaultConfig().Validate())
}

func TestRuleFileReplacesOrExtendsTheDefaults(t *testing.T) {
	own := newRedactor(t, func(c *Config) { c.Rules = "testdata/connstrings.toml" })
	assert.Equal(t, []string{"connection-string-password"}, own.Rules())

	ext := newRedactor(t, func(c *Config) { c.Rules, c.Extend = "testdata/connstrings.toml", true })
	assert.Len(t, ext.Rules(), 217, "the file's rule amends the built-in one of its id")
	assert.Contains(t, ext.Rules(), "connection-string-password")

	// The file may ask for the defaults itself, and drop some of them.
	p := filepath.Join(t.TempDir(), "use.toml")
	require.NoError(t, os.WriteFile(p, []byte(`[extend]
useDefault = true
disabledRules = ["jwt"]

[[rules]]
id = "github-pat"
description = "amended: a larger entropy"
entropy = 4.5
`), 0o644))
	use := newRedactor(t, func(c *Config) { c.Rules = p })
	assert.Len(t, use.Rules(), 216)
	assert.NotContains(t, use.Rules(), "jwt")
	for _, ru := range use.set.rules {
		if ru.id == "github-pat" {
			assert.Equal(t, 4.5, ru.entropy, "a rule of the file amends the default of that id")
			assert.NotNil(t, ru.re, "and keeps its regex")
		}
	}
	// Loading twice in one process extends twice (Gitleaks' own [extend]
	// would not).
	again := newRedactor(t, func(c *Config) { c.Rules = p })
	assert.Equal(t, use.Rules(), again.Rules())
}

// A composite rule matches only with its required rule near by; a rule
// reported only as part of one is never redacted alone.
func TestCompositeRules(t *testing.T) {
	p := filepath.Join(t.TempDir(), "composite.toml")
	require.NoError(t, os.WriteFile(p, []byte(`
[[rules]]
id = "acme-secret"
regex = '''acme_secret=([a-z0-9]{20})'''
keywords = ["acme_secret"]
[[rules.required]]
id = "acme-client-id"
withinLines = 1

[[rules]]
id = "acme-client-id"
regex = '''acme_id=([A-Z0-9]{8})'''
keywords = ["acme_id"]
skipReport = true
`), 0o644))
	r := newRedactor(t, func(c *Config) { c.Rules = p })
	assert.Equal(t, []string{"acme-secret"}, r.Rules())
	const secret = "acme_secret=q8zr2xvlp0wk7nd4hs9t"
	for _, c := range []struct {
		text string
		want string
	}{
		{"acme_id=AB12CD34\n" + secret, "acme_id=AB12CD34\nacme_secret=<REDACTED-SECRET:acme-secret>"},
		{"acme_id=AB12CD34\n\n\n" + secret, "acme_id=AB12CD34\n\n\n" + secret}, // too far apart
		{secret, secret}, // alone
		{"acme_id=AB12CD34", "acme_id=AB12CD34"},
	} {
		line := string(mustJSON(map[string]any{"out": c.text}))
		out, _ := redactOne(t, r, line)
		assert.Equal(t, string(mustJSON(map[string]any{"out": c.want})), out)
	}
}

func writeFile(path, text string) error { return os.WriteFile(path, []byte(text), 0o644) }
