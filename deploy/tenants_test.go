package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/journalship/journalship/internal/childproc"
	"github.com/journalship/journalship/internal/lokiproc"
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

// composeRouter is the tenant router of compose's Fluent Bit.
func composeRouter(t *testing.T) (*tenant.Router, []journalCase) {
	t.Helper()
	out := loadFLB(t, "deploy/compose/fluent-bit.conf").only(t, "OUTPUT", "journalship")
	cfg, err := tenantConfig(sectionGetter(out, nil))
	require.NoError(t, err)
	r, err := tenant.New(cfg)
	require.NoError(t, err)
	cases, bad := journalCases(out)
	require.Empty(t, bad)
	return r, cases
}

// orgIDHeader is the header naming a request's Loki tenants.
const orgIDHeader = "X-Scope-OrgID"

// lokiSources returns, by uid, the tenants each provisioned Loki data
// source names in its X-Scope-OrgID header (nil: it sends none).
func lokiSources(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, ds := range provisioning(t, "datasources").Datasources {
		if ds.Type != "loki" {
			continue
		}
		var tenants []string
		if strings.EqualFold(ds.JSONData.HTTPHeaderName1, orgIDHeader) && ds.SecureJSONData.HTTPHeaderValue1 != "" {
			tenants = strings.Split(ds.SecureJSONData.HTTPHeaderValue1, "|")
		}
		out[ds.UID] = tenants
	}
	return out
}

// TestComposeTenants: compose's Loki is multi-tenant, so every push and
// query names a tenant. Fluent Bit and retention send every journal to a
// team's tenant (TestEveryConfRoutesTenants, TestComposeWiring), at least
// two; every Loki data source of Grafana sends X-Scope-OrgID naming only
// those tenants; uid loki, the dashboards' data source, names all of them
// (a multi-tenant query, which loki.yaml enables), and each tenant has a
// data source of its own.
func TestComposeTenants(t *testing.T) {
	lc := lokiConfig(t)
	assert.True(t, lc.AuthEnabled, "loki.yaml: auth_enabled, or tenants separate nothing")
	router, _ := composeRouter(t)
	named := router.Named()
	assert.GreaterOrEqual(t, len(named), 2, "the demo ships to two tenants: %v", named)
	sources := lokiSources(t)
	require.Contains(t, sources, "loki", "the dashboards' data source")
	own := map[string]string{}
	for uid, tenants := range sources {
		require.NotEmpty(t, tenants, "data source %s sends no %s: Loki refuses its queries", uid, orgIDHeader)
		for _, tn := range tenants {
			assert.Contains(t, named, tn, "data source %s asks tenant %s, which compose ships nothing to", uid, tn)
		}
		if len(tenants) > 1 {
			assert.True(t, lc.Querier.MultiTenantQueriesEnabled, "data source %s asks %d tenants: loki.yaml needs multi_tenant_queries_enabled", uid, len(tenants))
		} else {
			own[tenants[0]] = uid
		}
	}
	assert.ElementsMatch(t, named, sources["loki"], "uid loki, the dashboards' data source, shows every tenant")
	for _, tn := range named {
		assert.NotEmpty(t, own[tn], "tenant %s has a data source of its own", tn)
	}
}

// startComposeLoki runs deploy/compose/loki.yaml with Loki itself, its
// storage moved into the test's directory, its ports free ones and the
// ingester ready at once (Loki's 15 s readiness delay is for a ring of
// several).
func startComposeLoki(t *testing.T) *childproc.Process {
	t.Helper()
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(readFile(t, "deploy/compose/loki.yaml"), &doc))
	cfg := childproc.DefaultConfig()
	cfg.Name, cfg.Binary, cfg.Hint = "loki", lokiproc.DefaultConfig().Binary, "run `make loki` first"
	cfg.ConfigName, cfg.Ports, cfg.ReadyPath, cfg.StartTimeout = "loki.yaml", 2, "/ready", 90*time.Second
	cfg.Render = func(a childproc.Attempt) ([]byte, []string, error) {
		server := doc["server"].(map[string]any)
		server["http_listen_address"], server["http_listen_port"] = "127.0.0.1", a.Ports[0]
		server["grpc_listen_address"], server["grpc_listen_port"] = "127.0.0.1", a.Ports[1]
		common := doc["common"].(map[string]any)
		common["path_prefix"] = a.Dir
		common["storage"] = map[string]any{"filesystem": map[string]any{
			"chunks_directory": filepath.Join(a.Dir, "chunks"), "rules_directory": filepath.Join(a.Dir, "rules")}}
		doc["ingester"] = map[string]any{"lifecycler": map[string]any{"min_ready_duration": "0s"}}
		body, err := json.Marshal(doc)
		return body, []string{"-config.file=" + a.ConfigPath}, err
	}
	return childproc.ForTest(t, func(ctx context.Context) (*childproc.Process, error) { return childproc.Start(ctx, cfg) })
}

// lokiDo sends a request to Loki naming tenants in X-Scope-OrgID (none
// when empty) and returns the status and body.
func lokiDo(t *testing.T, method, u, tenants string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if tenants != "" {
		req.Header.Set(orgIDHeader, tenants)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, data
}

// TestComposeLokiKeepsTenantsApart: with compose's own loki.yaml, a push
// without a tenant is refused; a line of every example journal, pushed to
// the tenant compose's Fluent Bit gives it, is seen through exactly the
// Grafana data sources naming that tenant, and through uid loki all of
// them, the Format variable's label values included.
func TestComposeLokiKeepsTenantsApart(t *testing.T) {
	t.Parallel()
	router, cases := composeRouter(t)
	sources := lokiSources(t)
	loki := startComposeLoki(t)
	status, body := lokiDo(t, http.MethodPost, loki.URL+"/loki/api/v1/push", "", []byte(`{"streams":[]}`))
	assert.Equal(t, http.StatusUnauthorized, status, "a push without a tenant: %s", body)

	want := map[string]map[string]int{} // tenant -> format -> lines
	now := time.Now()
	for i, jc := range cases {
		tn, err := router.Of(jc.journal)
		require.NoError(t, err, jc.String())
		if want[tn] == nil {
			want[tn] = map[string]int{}
		}
		want[tn][jc.format.Name()]++
		push, err := json.Marshal(map[string]any{"streams": []any{map[string]any{
			"stream": map[string]string{"service_name": "agent-sessions", "format": jc.format.Name()},
			"values": [][]string{{strconv.FormatInt(now.Add(time.Duration(i)*time.Millisecond).UnixNano(), 10), jc.journal}},
		}}})
		require.NoError(t, err)
		status, body := lokiDo(t, http.MethodPost, loki.URL+"/loki/api/v1/push", tn, push)
		require.Equal(t, http.StatusNoContent, status, "push to %s: %s", tn, body)
	}

	// Lines per format that a data source naming tenants sees.
	query := func(tenants []string) (map[string]int, error) {
		q := url.Values{"query": {`sum by (format) (count_over_time({service_name="agent-sessions"}[1h]))`},
			"time": {strconv.FormatInt(now.Add(time.Minute).UnixNano(), 10)}}
		status, body := lokiDo(t, http.MethodGet, loki.URL+"/loki/api/v1/query?"+q.Encode(), strings.Join(tenants, "|"), nil)
		if status != http.StatusOK {
			return nil, fmt.Errorf("%d: %s", status, body)
		}
		var r struct {
			Data struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
					Value  [2]any            `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		got := map[string]int{}
		for _, s := range r.Data.Result {
			n, err := strconv.Atoi(fmt.Sprint(s.Value[1]))
			if err != nil {
				return nil, err
			}
			got[s.Metric["format"]] = n
		}
		return got, nil
	}
	expected := func(tenants []string) map[string]int {
		out := map[string]int{}
		for _, tn := range tenants {
			for f, n := range want[tn] {
				out[f] += n
			}
		}
		return out
	}
	// The querier may take a few seconds to find the scheduler.
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := query(sources["loki"])
		if err == nil && assert.ObjectsAreEqual(expected(sources["loki"]), got) || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	require.Len(t, want, len(router.Named()), "every tenant got lines")
	for uid, tenants := range sources {
		got, err := query(tenants)
		require.NoError(t, err, uid)
		assert.Equal(t, expected(tenants), got, "data source %s (%s) sees its tenants' formats, and only those", uid, strings.Join(tenants, "|"))
	}
	status, body = lokiDo(t, http.MethodGet, loki.URL+"/loki/api/v1/label/format/values", strings.Join(sources["loki"], "|"), nil)
	require.Equal(t, http.StatusOK, status, "%s", body)
	var values struct {
		Data []string `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &values))
	assert.ElementsMatch(t, slices.Collect(maps.Keys(expected(sources["loki"]))), values.Data, "the dashboards' Format variable through uid loki")
}
