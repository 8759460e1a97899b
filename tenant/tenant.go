// Package tenant decides which Loki tenant a journal's lines go to, from
// where the journal lives: each team's agents write under their own
// directory (Tenant_Roots), or the path names the team (a Kubernetes
// namespace, a project directory: Tenant_Path_Pattern). A journal no rule
// places goes to the fallback tenant when one is set, and is refused
// otherwise: never to another team's tenant. Without rules every journal
// goes to one tenant (Tenant_ID), as a single-tenant Loki expects.
package tenant

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/journalship/journalship/internal/kv"
	"github.com/journalship/journalship/loki"
)

// Config says how a journal's tenant is found.
type Config struct {
	// Default is every journal's tenant when there are no rules (Roots,
	// Pattern): Tenant_ID. "" sends no X-Scope-OrgID.
	Default string
	// Roots maps a tenant to the directories whose journals are its own
	// (Tenant_Roots: tenant=/dir:/dir2,tenant2=/dir3). The deepest root
	// holding a journal decides.
	Roots map[string][]string
	// Pattern is a regular expression matched against a journal's path
	// whose named group "tenant" is the tenant (Tenant_Path_Pattern), for
	// journals under no root.
	Pattern string
	// Fallback is the tenant of a journal no rule places
	// (Tenant_Fallback); "" refuses such a journal: its lines go to the
	// dead letters with reason no_tenant.
	Fallback string
}

// DefaultConfig is one tenant for every journal: none named.
func DefaultConfig() Config { return Config{} }

// Routed tells whether the tenant follows the journal's path.
func (c Config) Routed() bool { return len(c.Roots) > 0 || c.Pattern != "" }

// Validate checks every tenant named, the roots and the pattern.
func (c Config) Validate() error {
	if c.Routed() && c.Default != "" {
		return errors.New("tenant: Tenant_ID sends every journal to one tenant, but Tenant_Roots or Tenant_Path_Pattern is set: leave Tenant_ID empty and name the tenant of journals no rule places in Tenant_Fallback")
	}
	if !c.Routed() && c.Fallback != "" {
		return errors.New("tenant: Tenant_Fallback is set without Tenant_Roots or Tenant_Path_Pattern: set Tenant_ID for one tenant")
	}
	for _, t := range []struct{ setting, tenant string }{{"Tenant_ID", c.Default}, {"Tenant_Fallback", c.Fallback}} {
		if t.tenant == "" {
			continue
		}
		if msg := loki.TenantProblem(t.tenant); msg != "" {
			return fmt.Errorf("tenant: %s: %s", t.setting, msg)
		}
	}
	if _, err := rootsOf(c.Roots); err != nil {
		return err
	}
	_, err := compile(c.Pattern)
	return err
}

// rootsOf checks the roots and returns them deepest first.
func rootsOf(m map[string][]string) ([]root, error) {
	var out []root
	owner := map[string]string{}
	for tenant, dirs := range m {
		if msg := loki.TenantProblem(tenant); msg != "" {
			return nil, fmt.Errorf("tenant: Tenant_Roots: %s", msg)
		}
		for _, d := range dirs {
			if !filepath.IsAbs(d) {
				return nil, fmt.Errorf("tenant: Tenant_Roots: %s's root %q is not an absolute path", tenant, d)
			}
			d = filepath.Clean(d)
			if other, ok := owner[d]; ok && other != tenant {
				return nil, fmt.Errorf("tenant: Tenant_Roots: %s is the root of both %s and %s", d, other, tenant)
			}
			owner[d] = tenant
			out = append(out, root{dir: d, tenant: tenant})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].dir) != len(out[j].dir) {
			return len(out[i].dir) > len(out[j].dir)
		}
		return out[i].dir < out[j].dir
	})
	return out, nil
}

// compile compiles the pattern ("" is none) and checks its tenant group.
func compile(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("tenant: Tenant_Path_Pattern: %w", err)
	}
	if re.SubexpIndex("tenant") < 0 {
		return nil, fmt.Errorf("tenant: Tenant_Path_Pattern %q has no group (?P<tenant>...) naming the tenant", pattern)
	}
	return re, nil
}

// ParseRoots parses the Tenant_Roots setting: "team-a=/a:/b,team-b=/c".
func ParseRoots(s string) (map[string][]string, error) {
	roots, err := kv.Dirs(s, "tenant")
	if err != nil {
		return nil, fmt.Errorf("tenant: %w", err)
	}
	return roots, nil
}
