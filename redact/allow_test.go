package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllowLists(t *testing.T) {
	const aws = "AKIALALEMEL33243OKIA"
	line := `{"out":"GITHUB_TOKEN=` + ghp + ` AWS_ACCESS_KEY_ID=` + aws + `"}`
	rules := func(r *Redactor, path, line string) []string {
		_, found := r.Redact(path, []byte(line), nil)
		var ids []string
		for _, f := range found {
			ids = append(ids, f.Rule)
		}
		return ids
	}

	all := newRedactor(t, nil)
	assert.Equal(t, []string{"github-pat", "aws-access-token"}, rules(all, "/data/s/a.jsonl", line))

	byRule := newRedactor(t, func(c *Config) { c.AllowRules = []string{"github-pat"} })
	assert.NotContains(t, byRule.Rules(), "github-pat")
	assert.Equal(t, []string{"aws-access-token"}, rules(byRule, "/data/s/a.jsonl", line))

	byValue := newRedactor(t, func(c *Config) { c.AllowValues = []string{ghp} })
	assert.Equal(t, []string{"aws-access-token"}, rules(byValue, "/data/s/a.jsonl", line))
	assert.Equal(t, []string{"github-pat"}, rules(byValue, "/data/s/a.jsonl",
		`{"x":"ghp_Q4mXw8Lr2Zp6Vt0Kb3Nc7Hs1Jd5Fg9Ay2Ue4"}`), "only that value")

	byPath := newRedactor(t, func(c *Config) { c.AllowPaths = []string{"/data/sessions/sandbox-*/*.jsonl"} })
	out, found := byPath.Redact("/data/sessions/sandbox-7/s.jsonl", []byte(line), nil)
	assert.Empty(t, found)
	assert.Equal(t, line, string(out))
	assert.Len(t, rules(byPath, "/data/sessions/prod-7/s.jsonl", line), 2)
	assert.Len(t, rules(byPath, "/data/sessions/sandbox-7/sub/s.jsonl", line), 2, "* stays within a directory")

	// Gitleaks' own allowlists hold: AWS's documentation key, a template.
	_, found = all.Redact("a.jsonl", []byte(`{"doc":"aws_access_key_id = AKIAIOSFODNN7EXAMPLE"}`), nil)
	assert.Empty(t, found)
	_, found = all.Redact("a.jsonl", []byte(`{"doc":"token: ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`), nil)
	assert.Empty(t, found, "too little entropy")
}

func TestFindingsAreInLineOrder(t *testing.T) {
	r := newRedactor(t, nil)
	line := `{"a":"` + ghp + `","b":["AKIALALEMEL33243OKIA",{"c":"xoxb-781236542736-2364535789652-GkwFDQoHqzXDVsC6GzqYUypD"}]}`
	_, found := redactOne(t, r, line)
	require.Len(t, found, 3)
	for i := 1; i < len(found); i++ {
		assert.Less(t, found[i-1].End, found[i].Start)
	}
}
