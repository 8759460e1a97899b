package tenant

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/journalship/journalship/loki"
)

// Router finds journals' tenants. It is safe for concurrent use.
type Router struct {
	cfg     Config
	roots   []root // deepest first
	pattern *regexp.Regexp
}

type root struct{ dir, tenant string }

// New returns the Router of a valid cfg.
func New(cfg Config) (*Router, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	roots, _ := rootsOf(cfg.Roots)
	re, _ := compile(cfg.Pattern)
	return &Router{cfg: cfg, roots: roots, pattern: re}, nil
}

// UnplacedError says why a journal has no tenant: no rule places it and
// there is no fallback. It is permanent for the file: its lines go to the
// dead letters with Reason.
type UnplacedError struct {
	Path string
	Why  string
}

func (e *UnplacedError) Error() string {
	return "tenant: " + e.Path + ": " + e.Why + ", and Tenant_Fallback is not set"
}

// Of returns the tenant of the journal at path ("" for no X-Scope-OrgID
// when there are no rules and no Tenant_ID), or an *UnplacedError.
func (r *Router) Of(path string) (string, error) {
	if !r.cfg.Routed() {
		return r.cfg.Default, nil
	}
	path = filepath.Clean(path)
	for _, rt := range r.roots {
		if under(path, rt.dir) {
			return rt.tenant, nil
		}
	}
	why := "under no root of Tenant_Roots"
	if r.pattern != nil {
		m := r.pattern.FindStringSubmatch(path)
		switch {
		case m == nil:
			why = "matched by no rule (Tenant_Roots, Tenant_Path_Pattern)"
		case loki.TenantProblem(m[r.pattern.SubexpIndex("tenant")]) != "":
			why = "Tenant_Path_Pattern gives no valid tenant: " + loki.TenantProblem(m[r.pattern.SubexpIndex("tenant")])
		default:
			return m[r.pattern.SubexpIndex("tenant")], nil
		}
	}
	if r.cfg.Fallback != "" {
		return r.cfg.Fallback, nil
	}
	return "", &UnplacedError{Path: path, Why: why}
}

// Named returns the tenants the configuration names (Tenant_ID, the
// roots' and the fallback), sorted; a pattern's tenants are known only
// from the journals it places.
func (r *Router) Named() []string {
	var out []string
	for _, t := range []string{r.cfg.Default, r.cfg.Fallback} {
		if t != "" {
			out = append(out, t)
		}
	}
	for _, rt := range r.roots {
		out = append(out, rt.tenant)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// under tells whether path is dir or below it.
func under(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}
