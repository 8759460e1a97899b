package deploy

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/journalship/journalship/output"
	"github.com/journalship/journalship/tenant"
)

// A Loki tenant per team: the shipped configurations that route tenants
// (Tenant_Roots, Tenant_Path_Pattern) send each team's journals to its own
// tenant, tail every team's directory, and leave no tailed journal without
// a tenant; the processes beside Fluent Bit route alike.

// teamOf returns the tenant of the deepest root in teams holding p ("" for
// none), worked out here rather than by the tenant package.
func teamOf(teams map[string][]string, p string) string {
	best, depth := "", -1
	for team, dirs := range teams {
		for _, d := range dirs {
			if under(p, d) && len(d) > depth {
				best, depth = team, len(d)
			}
		}
	}
	return best
}

// tenantConfig reads the tenant settings through get, as the plugin does.
func tenantConfig(get func(string) string) (tenant.Config, error) {
	cfg := tenant.Config{Default: get("Tenant_ID"), Pattern: get("Tenant_Path_Pattern"), Fallback: get("Tenant_Fallback")}
	if s := get("Tenant_Roots"); s != "" {
		roots, err := tenant.ParseRoots(s)
		if err != nil {
			return cfg, err
		}
		cfg.Roots = roots
	}
	return cfg, nil
}

// sectionGetter reads the [OUTPUT]'s active values (defaults where unset),
// with ${VAR} expanded from env.
func sectionGetter(out flbSection, env map[string]string) output.Getter {
	return func(k string) string {
		v, _ := out.get(k)
		return os.Expand(v, func(n string) string { return env[n] })
	}
}

// flagGetter reads the journalship settings of a command line given as
// flags (--tenant-roots for Tenant_Roots), with $(VAR) or ${VAR} expanded
// from env.
func flagGetter(args []string, env map[string]string) output.Getter {
	flags := flagArgs(args)
	return func(k string) string {
		v := k8sVar.ReplaceAllString(flags[output.FlagName(k)], "$${$1}")
		return os.Expand(v, func(n string) string { return env[n] })
	}
}

// tenantProblems checks how a configuration routes tenants: its tenant
// settings are valid; a fallback, if any, is no team's tenant; every
// example journal of every format root goes to the team whose directory
// holds it, and one under no team's directory (with no fallback) is a
// problem, since its lines would all be dead-lettered; every team's
// directory holds journals a tail input reads.
func tenantProblems(c flbConf) []string {
	outs := c.all("OUTPUT", "journalship")
	if len(outs) != 1 {
		return []string{fmt.Sprintf("%d journalship outputs, want one", len(outs))}
	}
	out := outs[0]
	cfg, err := tenantConfig(sectionGetter(out, nil))
	if err != nil {
		return []string{err.Error()}
	}
	router, err := tenant.New(cfg)
	if err != nil {
		return []string{err.Error()}
	}
	if !cfg.Routed() {
		return nil
	}
	var bad []string
	if _, ok := cfg.Roots[cfg.Fallback]; ok {
		bad = append(bad, fmt.Sprintf("Tenant_Fallback %s is a team's tenant: journals no rule places would go to that team", cfg.Fallback))
	}
	cases, problems := journalCases(out)
	bad = append(bad, problems...)
	ins := c.all("INPUT", "tail")
	tailed := map[string]bool{}
	for _, jc := range cases {
		want := teamOf(cfg.Roots, jc.journal)
		got, err := router.Of(jc.journal)
		var unplaced *tenant.UnplacedError
		switch {
		case errors.As(err, &unplaced):
			bad = append(bad, fmt.Sprintf("%s is tailed but no tenant rule places it: its lines would be dead-lettered (no_tenant)", jc.journal))
		case err != nil:
			bad = append(bad, fmt.Sprintf("%s: %v", jc.journal, err))
		case want != "" && got != want:
			bad = append(bad, fmt.Sprintf("%s is in %s's directory but goes to tenant %s", jc.journal, want, got))
		}
		if want != "" && len(tailedBy(ins, jc.journal)) > 0 {
			tailed[want] = true
		}
	}
	for team, dirs := range cfg.Roots {
		if !tailed[team] {
			bad = append(bad, fmt.Sprintf("Tenant_Roots %s=%s: no tail input reads journals there", team, strings.Join(dirs, ":")))
		}
	}
	return bad
}

// TestEveryConfRoutesTenants: each shipped configuration that routes
// tenants does so without a problem, and its values pass the plugin's own
// settings check.
func TestEveryConfRoutesTenants(t *testing.T) {
	for _, p := range flbConfPaths {
		c := loadFLB(t, p)
		assert.Empty(t, tenantProblems(c), p)
		_, err := output.CheckSettings(sectionGetter(c.only(t, "OUTPUT", "journalship"), map[string]string{"NODE_NAME": "node-test"}))
		assert.NoError(t, err, p)
	}
}

// TestDaemonSetTenantPerTeam: the cluster's example has two teams, each
// under its own directory on the node going to its own tenant, with no
// fallback; every team's directory is tailed, and mounted where the node
// has it (read-only in Fluent Bit, read-write in retention); the retention
// container, whose finalizer ships too, routes every journal to the same
// tenant; and the checks catch a configuration that gets it wrong.
func TestDaemonSetTenantPerTeam(t *testing.T) {
	c := build(t)
	conf := clusterConf(t)
	out := conf.only(t, "OUTPUT", "journalship")
	cfg, err := tenantConfig(sectionGetter(out, nil))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(cfg.Roots), 2, "two teams, a tenant each")
	assert.Empty(t, cfg.Default, "Tenant_ID would send every team to one tenant")
	assert.Empty(t, cfg.Fallback, "no fallback: a journal no rule places is dead-lettered (the comment says why)")
	assert.Empty(t, tenantProblems(conf))

	cases, bad := journalCases(out)
	require.Empty(t, bad)
	flb, ret := container(t, c.ds, "fluent-bit"), container(t, c.ds, "retention")
	for team, dirs := range cfg.Roots {
		for _, dir := range dirs {
			// The example's convention, which shows a journal sent to the
			// wrong team: a team's directory is named after its tenant.
			assert.Equal(t, team, path.Base(dir), "tenant %s's directory %s", team, dir)
			var mine []journalCase
			for _, jc := range cases {
				if under(jc.journal, dir) {
					mine = append(mine, jc)
				}
			}
			assert.NotEmpty(t, mine, "team %s: journals under %s are tailed", team, dir)
			for _, jc := range mine {
				for _, ctr := range []corev1.Container{flb, ret} {
					m, _, ok := nodeMount(c.ds, ctr, jc.journal)
					if assert.True(t, ok, "team %s: %s mounts %s", team, ctr.Name, jc) {
						assert.Equal(t, ctr.Name == "fluent-bit", m.ReadOnly, "%s mounts %s", ctr.Name, m.MountPath)
						assert.True(t, under(m.MountPath, dir), "%s: %s is the team's own", ctr.Name, m.MountPath)
					}
				}
			}
		}
	}

	env := map[string]string{"NODE_NAME": "node-test"}
	retGet := flagGetter(ret.Args, env)
	_, err = output.CheckSettings(retGet)
	require.NoError(t, err, "retention's journalship flags")
	retCfg, err := tenantConfig(retGet)
	require.NoError(t, err)
	flbRouter, err := tenant.New(cfg)
	require.NoError(t, err)
	retRouter, err := tenant.New(retCfg)
	require.NoError(t, err)
	journals := []string{"/data/elsewhere/job/session_20260223T143022Z_pod.jsonl"}
	for _, jc := range cases {
		journals = append(journals, jc.journal)
	}
	for _, j := range journals {
		want, wantErr := flbRouter.Of(j)
		got, gotErr := retRouter.Of(j)
		assert.Equal(t, want, got, "%s: retention finalizes it into Fluent Bit's tenant", j)
		assert.Equal(t, wantErr != nil, gotErr != nil, "%s: retention refuses what Fluent Bit refuses", j)
	}
	_, err = flbRouter.Of(journals[0])
	var unplaced *tenant.UnplacedError
	assert.ErrorAs(t, err, &unplaced, "a journal outside every team's directory has no tenant")

	base := string(readFile(t, "deploy/daemonset/fluent-bit.conf"))
	roots := value(out, "Tenant_Roots")
	teamB := roots[strings.Index(roots, ",team-b="):]
	for name, change := range map[string][2]string{
		"team B's journals without a tenant":   {roots, strings.TrimSuffix(roots, teamB)},
		"a team whose directory is not tailed": {roots, roots + ",team-c=/data/team-c"},
		"a fallback that is a team's tenant":   {"    # Tenant_Fallback     shared\n", "    Tenant_Fallback       team-a\n"},
		"Tenant_ID beside Tenant_Roots":        {"    # Tenant_ID           agents\n", "    Tenant_ID             agents\n"},
	} {
		require.Equal(t, 1, strings.Count(base, change[0]), name)
		bad, err := parseFLB(name, []byte(strings.Replace(base, change[0], change[1], 1)))
		require.NoError(t, err)
		assert.NotEmpty(t, tenantProblems(bad), "%s is caught", name)
	}
	changed := slices.Clone(ret.Args)
	i := slices.IndexFunc(changed, func(a string) bool { return strings.HasPrefix(a, "--tenant-roots=") })
	require.GreaterOrEqual(t, i, 0, "retention is given Tenant_Roots")
	changed = slices.Delete(changed, i, i+1)
	assert.NotEmpty(t, retentionMismatches(changed, out, func(s string) string { return s }), "retention without --tenant-roots is caught")
}
