package deploy

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	composetypes "github.com/compose-spec/compose-go/v2/types"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/retention"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/journalship/journalship/internal/lokiproc"
)

// docker compose: docker-compose.yml, deploy/compose

// loadCompose loads a compose file with compose-spec's loader (schema
// validation, interpolation, paths resolved against the repository).
func loadCompose(t *testing.T, data []byte) (*composetypes.Project, error) {
	t.Helper()
	root, err := filepath.Abs(repo)
	require.NoError(t, err)
	return loader.LoadWithContext(context.Background(), composetypes.ConfigDetails{
		WorkingDir:  root,
		ConfigFiles: []composetypes.ConfigFile{{Filename: filepath.Join(root, "docker-compose.yml"), Content: data}},
		Environment: composetypes.Mapping{},
	})
}

func compose(t *testing.T) *composetypes.Project {
	t.Helper()
	p, err := loadCompose(t, readFile(t, "docker-compose.yml"))
	require.NoError(t, err)
	return p
}

// bindSource returns the host path bound at target in the service.
func bindSource(t *testing.T, s composetypes.ServiceConfig, target string) string {
	t.Helper()
	for _, v := range s.Volumes {
		if v.Target == target && v.Type == composetypes.VolumeTypeBind {
			return v.Source
		}
	}
	t.Fatalf("%s binds nothing at %s", s.Name, target)
	return ""
}

func namedVolume(s composetypes.ServiceConfig, target string) (composetypes.ServiceVolumeConfig, bool) {
	for _, v := range s.Volumes {
		if v.Target == target && v.Type == composetypes.VolumeTypeVolume {
			return v, true
		}
	}
	return composetypes.ServiceVolumeConfig{}, false
}

// TestComposeLoads: the file is valid compose (and a misspelt attribute
// is not); the services are there, their bind mounts and build contexts
// exist in the repository, images are pinned, host ports do not clash.
func TestComposeLoads(t *testing.T) {
	p := compose(t)
	assert.ElementsMatch(t, []string{"loki", "check-config", "fluent-bit", "retention", "simulator", "prometheus", "grafana"}, p.ServiceNames())
	check := mustService(t, p, "check-config")
	assert.Equal(t, []string{"check-config", "/fluent-bit/etc/fluent-bit.conf"}, []string(check.Command))
	require.Len(t, check.Volumes, 1)
	assert.Equal(t, "/fluent-bit/etc/fluent-bit.conf", check.Volumes[0].Target)
	assert.Equal(t, filepath.Join(repoAbs(t), "deploy/compose/fluent-bit.conf"), check.Volumes[0].Source, "it checks the file Fluent Bit runs")
	assert.Equal(t, "service_completed_successfully", mustService(t, p, "fluent-bit").DependsOn["check-config"].Condition)
	root, err := filepath.Abs(repo)
	require.NoError(t, err)
	published := map[string]string{}
	for _, s := range p.Services {
		for _, v := range s.Volumes {
			if v.Type != composetypes.VolumeTypeBind {
				continue
			}
			assert.True(t, strings.HasPrefix(v.Source, root+string(filepath.Separator)), "%s: %s is in the repository", s.Name, v.Source)
			_, err := os.Stat(v.Source)
			assert.NoError(t, err, "%s: bind mount source", s.Name)
		}
		if s.Build != nil {
			_, err := os.Stat(filepath.Join(s.Build.Context, s.Build.Dockerfile))
			assert.NoError(t, err, "%s: build", s.Name)
		} else {
			assertPinned(t, s.Image)
		}
		for _, port := range s.Ports {
			key := port.HostIP + ":" + port.Published
			assert.Empty(t, published[key], "%s: host port %s also published by %s", s.Name, key, published[key])
			published[key] = s.Name
		}
	}
	bad := strings.Replace(string(readFile(t, "docker-compose.yml")), "    stop_grace_period: 60s", "    stop_grace_periode: 60s", 1)
	_, err = loadCompose(t, []byte(bad))
	assert.ErrorContains(t, err, "stop_grace_periode", "the loader refuses unknown attributes")
}

// TestComposeWiring: the journalship services share the journals and the
// state, run the image's binaries, talk to the loki service, and agree
// with their Fluent Bit configuration.
func TestComposeWiring(t *testing.T) {
	p := compose(t)
	img := dockerImage(t)
	svc := func(name string) composetypes.ServiceConfig { return mustService(t, p, name) }
	flb, ret, sim := svc("fluent-bit"), svc("retention"), svc("simulator")
	confPath := bindSource(t, flb, img.conf)
	assert.Equal(t, filepath.Join(repoAbs(t), "deploy/compose/fluent-bit.conf"), confPath)
	conf := loadFLB(t, "deploy/compose/fluent-bit.conf")
	out := conf.only(t, "OUTPUT", "journalship")
	for _, s := range []composetypes.ServiceConfig{flb, ret, sim} {
		v, ok := namedVolume(s, "/data/sessions")
		assert.True(t, ok && v.Source == "sessions", "%s shares the sessions volume", s.Name)
		assert.Equal(t, s.Name == "fluent-bit", v.ReadOnly, s.Name)
		assert.Equal(t, flb.Image, s.Image, "%s runs the journalship image", s.Name)
	}
	for _, s := range []composetypes.ServiceConfig{flb, ret} {
		v, ok := namedVolume(s, "/var/lib/journalship")
		assert.True(t, ok && v.Source == "state" && !v.ReadOnly, "%s shares the state volume", s.Name)
	}
	assert.Equal(t, []string{"-e", img.plugin, "-c", img.conf}, []string(flb.Command))
	assert.Equal(t, []string{img.journalship}, []string(ret.Entrypoint))
	assert.Equal(t, []string{img.journalship}, []string(sim.Entrypoint))
	assert.Equal(t, "simulate", sim.Command[0])
	simRoots, err := registry.ParseRoots(flagArgs(sim.Command)["format-roots"])
	require.NoError(t, err)
	assert.Equal(t, []string{"/data/sessions"}, simRoots["cortex"], "the simulator writes Cortex Plane journals where retention and tail look")
	assert.Contains(t, retention.ParseRoots(flagArgs(ret.Command)["root"]), "/data/sessions", "retention sweeps the simulator's root")

	lokiURL, err := url.Parse(setting(out, "Loki_URL"))
	require.NoError(t, err)
	assert.Equal(t, "loki", lokiURL.Hostname(), "Loki_URL names the loki service")
	assert.Equal(t, strconv.Itoa(lokiConfig(t).Server.HTTPListenPort), lokiURL.Port())
	env := func(s string) string {
		return os.Expand(s, func(n string) string { return *flb.Environment[n] })
	}
	assert.Empty(t, retentionMismatches(ret.Command, out, env))
	assert.Equal(t, filepath.Join(repoAbs(t), "deploy/compose/loki.yaml"), bindSource(t, svc("loki"), "/etc/loki/loki.yaml"))
	assert.Equal(t, []string{"-config.file=/etc/loki/loki.yaml"}, []string(svc("loki").Command))
	assert.Equal(t, "grafana/loki:3.7.8", svc("loki").Image)
	graf := svc("grafana")
	assert.Equal(t, filepath.Join(repoAbs(t), "deploy/grafana/provisioning"), bindSource(t, graf, "/etc/grafana/provisioning"))
	assert.Equal(t, filepath.Join(repoAbs(t), "deploy/grafana/dashboards"), bindSource(t, graf, "/var/lib/grafana/dashboards"))
}

func repoAbs(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(repo)
	require.NoError(t, err)
	return root
}

// lokiYAML is the part of deploy/compose/loki.yaml the tests compare;
// Loki itself checks the whole file (TestComposeLokiConfigIsValid).
type lokiYAML struct {
	AuthEnabled bool `json:"auth_enabled"`
	Server      struct {
		HTTPListenPort int `json:"http_listen_port"`
	} `json:"server"`
	Querier struct {
		MultiTenantQueriesEnabled bool `json:"multi_tenant_queries_enabled"`
	} `json:"querier"`
	Limits struct {
		MaxLineSize             string `json:"max_line_size"`
		RejectOldSamples        bool   `json:"reject_old_samples"`
		RejectOldSamplesMaxAge  string `json:"reject_old_samples_max_age"`
		CreationGracePeriod     string `json:"creation_grace_period"`
		AllowStructuredMetadata bool   `json:"allow_structured_metadata"`
	} `json:"limits_config"`
}

func lokiConfig(t *testing.T) lokiYAML {
	t.Helper()
	var c lokiYAML
	require.NoError(t, yaml.Unmarshal(readFile(t, "deploy/compose/loki.yaml"), &c))
	return c
}

// TestComposeLokiConfigIsValid: Loki 3.7.8 (bin/loki, make loki) accepts
// the file (it refuses unknown fields), and its limits are those the
// plugin is configured for.
func TestComposeLokiConfigIsValid(t *testing.T) {
	bin := lokiproc.DefaultConfig().Binary
	for _, f := range []string{"deploy/compose/loki.yaml", "bad"} {
		file := filepath.Join(repo, f)
		if f == "bad" {
			file = filepath.Join(t.TempDir(), "loki.yaml")
			bad := strings.Replace(string(readFile(t, "deploy/compose/loki.yaml")), "max_line_size_truncate", "max_line_size_trunc", 1)
			require.NoError(t, os.WriteFile(file, []byte(bad), 0o644))
		}
		out, err := exec.Command(bin, "-config.file="+file, "-verify-config").CombinedOutput()
		if f == "bad" {
			assert.Error(t, err, "Loki refuses a misspelt field")
			assert.Contains(t, string(out), "max_line_size_trunc")
			continue
		}
		require.NoError(t, err, "%s (build it with make loki)\n%s", bin, out)
	}
	c := lokiConfig(t).Limits
	out := loadFLB(t, "deploy/compose/fluent-bit.conf").only(t, "OUTPUT", "journalship")
	assert.True(t, c.AllowStructuredMetadata && c.RejectOldSamples)
	assert.Equal(t, strings.TrimSuffix(c.MaxLineSize, "B"), setting(out, "Max_Line_Bytes"), "max_line_size is Max_Line_Bytes")
	assert.Equal(t, c.RejectOldSamplesMaxAge, setting(out, "Max_Entry_Age"))
	assert.Equal(t, c.CreationGracePeriod, setting(out, "Max_Future_Skew"))
}

// promConfig is the part of Prometheus' configuration the compose file
// uses, decoded strictly (an unknown field is an error).
type promConfig struct {
	Global struct {
		ScrapeInterval     string `json:"scrape_interval"`
		EvaluationInterval string `json:"evaluation_interval"`
	} `json:"global"`
	ScrapeConfigs []struct {
		JobName       string `json:"job_name"`
		MetricsPath   string `json:"metrics_path"`
		StaticConfigs []struct {
			Targets []string `json:"targets"`
		} `json:"static_configs"`
	} `json:"scrape_configs"`
}

// TestPrometheusScrapesTheServices: every target is a compose service on
// a port it serves, at the path it serves metrics on.
func TestPrometheusScrapesTheServices(t *testing.T) {
	var c promConfig
	require.NoError(t, decodeStrict(readFile(t, "deploy/compose/prometheus.yml"), &c))
	p := compose(t)
	assert.Equal(t, filepath.Join(repoAbs(t), "deploy/compose/prometheus.yml"), bindSource(t, mustService(t, p, "prometheus"), "/etc/prometheus/prometheus.yml"))
	conf := loadFLB(t, "deploy/compose/fluent-bit.conf")
	ret := mustService(t, p, "retention")
	serves := map[string]string{
		"fluent-bit:" + value(conf.only(t, "SERVICE", ""), "HTTP_Port"):                                               "/api/v2/metrics/prometheus",
		"fluent-bit:" + strconv.Itoa(int(port(t, setting(conf.only(t, "OUTPUT", "journalship"), "Metrics_Address")))): "/metrics",
		"retention:" + strconv.Itoa(int(port(t, flagArgs(ret.Command)["metrics-address"]))):                           "/metrics",
		"loki:" + strconv.Itoa(lokiConfig(t).Server.HTTPListenPort):                                                   "/metrics",
	}
	seen := map[string]bool{}
	for _, sc := range c.ScrapeConfigs {
		for _, st := range sc.StaticConfigs {
			for _, target := range st.Targets {
				assert.Equal(t, serves[target], sc.MetricsPath, "%s: %s", sc.JobName, target)
				seen[target] = true
			}
		}
	}
	assert.Len(t, seen, len(serves), "every endpoint is scraped")
	var bad promConfig
	assert.Error(t, decodeStrict([]byte("scrape_configs:\n  - job_name: x\n    metric_path: /m\n"), &bad), "strict")
}

func mustService(t *testing.T, p *composetypes.Project, name string) composetypes.ServiceConfig {
	t.Helper()
	s, err := p.GetService(name)
	require.NoError(t, err)
	return s
}

// grafanaProvisioning is what compose needs to agree with in
// deploy/grafana/provisioning: data source URLs and the dashboards path.
type grafanaProvisioning struct {
	Datasources []struct {
		UID      string `json:"uid"`
		Type     string `json:"type"`
		URL      string `json:"url"`
		JSONData struct {
			TimeInterval    string `json:"timeInterval"`
			HTTPHeaderName1 string `json:"httpHeaderName1"`
		} `json:"jsonData"`
		SecureJSONData struct {
			HTTPHeaderValue1 string `json:"httpHeaderValue1"`
		} `json:"secureJsonData"`
	} `json:"datasources"`
	Providers []struct {
		Options struct {
			Path string `json:"path"`
		} `json:"options"`
	} `json:"providers"`
}

func provisioning(t *testing.T, kind string) grafanaProvisioning {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repo, "deploy/grafana/provisioning", kind, "*.y*ml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "deploy/grafana/provisioning/%s", kind)
	var all grafanaProvisioning
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var g grafanaProvisioning
		require.NoError(t, yaml.Unmarshal(data, &g), f)
		all.Datasources = append(all.Datasources, g.Datasources...)
		all.Providers = append(all.Providers, g.Providers...)
	}
	return all
}

// TestGrafanaProvisioningMatchesCompose: Grafana's data sources (of type
// loki and prometheus: the uids loki and prometheus that the dashboards
// use, and a Loki one per tenant) reach the compose services on the ports
// they serve, the dashboard provider reads where compose mounts the
// dashboards, and Prometheus' scrape interval is the one Grafana assumes.
func TestGrafanaProvisioningMatchesCompose(t *testing.T) {
	p := compose(t)
	graf := mustService(t, p, "grafana")
	listen := map[string]string{"loki": strconv.Itoa(lokiConfig(t).Server.HTTPListenPort), "prometheus": "9090"}
	var prom promConfig
	require.NoError(t, decodeStrict(readFile(t, "deploy/compose/prometheus.yml"), &prom))
	uids := map[string]bool{}
	for _, ds := range provisioning(t, "datasources").Datasources {
		u, err := url.Parse(ds.URL)
		require.NoError(t, err)
		assert.Equal(t, ds.Type, u.Hostname(), "data source %s is the compose service", ds.UID)
		assert.Equal(t, listen[ds.Type], u.Port(), "data source %s", ds.UID)
		if ds.UID == "prometheus" {
			assert.Equal(t, prom.Global.ScrapeInterval, ds.JSONData.TimeInterval)
		}
		uids[ds.UID] = true
	}
	assert.True(t, uids["loki"] && uids["prometheus"], "the dashboards' data sources: %v", uids)
	for _, pr := range provisioning(t, "dashboards").Providers {
		assert.Equal(t, filepath.Join(repoAbs(t), "deploy/grafana/dashboards"), bindSource(t, graf, pr.Options.Path))
	}
	assert.Contains(t, []string(mustService(t, p, "prometheus").Command), "--config.file=/etc/prometheus/prometheus.yml")
}
