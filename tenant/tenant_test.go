package tenant

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOfPlacesJournalsByRootPatternAndFallback: the deepest root decides,
// then the pattern, then the fallback; without a fallback an unplaced
// journal is refused with why.
func TestOfPlacesJournalsByRootPatternAndFallback(t *testing.T) {
	cfg := Config{
		Roots: map[string][]string{
			"team-a":  {"/data/agents/team-a", "/srv/a"},
			"team-a2": {"/data/agents/team-a/contractors"},
		},
		Pattern: `^/var/log/pods/(?P<tenant>[^_/]+)_`,
	}
	r, err := New(cfg)
	require.NoError(t, err)
	for path, want := range map[string]string{
		"/data/agents/team-a/job/s.jsonl":            "team-a",
		"/data/agents/team-a/contractors/x/s.jsonl":  "team-a2",
		"/srv/a/s.jsonl":                             "team-a",
		"/var/log/pods/payments_agent-7_uid/s.jsonl": "payments",
		"/data/agents/team-a/../team-b/s.jsonl":      "", // cleaned: under no root
		"/data/agents/team-ab/s.jsonl":               "", // a name prefix is not a root
		"/var/log/pods/bad|tenant_agent-7/s.jsonl":   "", // not a tenant Loki takes
		"/home/someone/.claude/projects/p/s.jsonl":   "",
	} {
		got, err := r.Of(path)
		if want == "" {
			var ue *UnplacedError
			require.ErrorAs(t, err, &ue, path)
			assert.Equal(t, "", got)
			assert.Contains(t, ue.Error(), "Tenant_Fallback is not set")
			continue
		}
		require.NoError(t, err, path)
		assert.Equal(t, want, got, path)
	}

	cfg.Fallback = "shared"
	r, err = New(cfg)
	require.NoError(t, err)
	got, err := r.Of("/home/someone/.claude/projects/p/s.jsonl")
	require.NoError(t, err)
	assert.Equal(t, "shared", got)
	assert.Equal(t, []string{"shared", "team-a", "team-a2"}, r.Named())
}

// TestOfWithoutRulesIsOneTenant: no rules, every journal to Tenant_ID
// (or none).
func TestOfWithoutRulesIsOneTenant(t *testing.T) {
	for _, def := range []string{"", "everyone"} {
		r, err := New(Config{Default: def})
		require.NoError(t, err)
		got, err := r.Of("/anything/s.jsonl")
		require.NoError(t, err)
		assert.Equal(t, def, got)
	}
}

// TestValidateNamesTheBadSetting: each misconfiguration is refused with
// the setting named.
func TestValidateNamesTheBadSetting(t *testing.T) {
	for name, c := range map[string]struct {
		cfg  Config
		want string
	}{
		"default with rules":  {Config{Default: "a", Roots: map[string][]string{"b": {"/b"}}}, "Tenant_ID"},
		"fallback alone":      {Config{Fallback: "a"}, "Tenant_Fallback"},
		"bad default":         {Config{Default: "a b"}, "Tenant_ID"},
		"bad fallback":        {Config{Pattern: `(?P<tenant>x)`, Fallback: ".."}, "Tenant_Fallback"},
		"bad root tenant":     {Config{Roots: map[string][]string{"a|b": {"/a"}}}, "Tenant_Roots"},
		"relative root":       {Config{Roots: map[string][]string{"a": {"data/a"}}}, "absolute"},
		"root of two tenants": {Config{Roots: map[string][]string{"a": {"/x"}, "b": {"/x/"}}}, "both"},
		"bad pattern":         {Config{Pattern: `(`}, "Tenant_Path_Pattern"},
		"pattern no group":    {Config{Pattern: `^/var/(\w+)/`}, "(?P<tenant>"},
	} {
		err := c.cfg.Validate()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
		_, err = New(c.cfg)
		assert.Error(t, err, name)
	}
	assert.NoError(t, DefaultConfig().Validate())
}

func TestParseRoots(t *testing.T) {
	got, err := ParseRoots(" team-a=/data/a:/data/a2/ , team-b=/data/b,")
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"team-a": {"/data/a", "/data/a2"}, "team-b": {"/data/b"}}, got)
	for _, bad := range []string{"team-a", "=/x", "team-a="} {
		_, err := ParseRoots(bad)
		assert.Error(t, err, bad)
	}
	var ue *UnplacedError
	assert.False(t, errors.As(err, &ue))
}
