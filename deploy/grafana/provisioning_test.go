package grafana

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Provisioning files as Grafana reads them (apiVersion 1), strictly.

// DatasourcesFile is provisioning/datasources/datasources.yaml.
type DatasourcesFile struct {
	APIVersion  int          `yaml:"apiVersion"`
	Datasources []Datasource `yaml:"datasources"`
}

// Datasource is one provisioned data source.
type Datasource struct {
	Name      string         `yaml:"name"`
	UID       string         `yaml:"uid"`
	Type      string         `yaml:"type"`
	Access    string         `yaml:"access"`
	URL       string         `yaml:"url"`
	IsDefault bool           `yaml:"isDefault"`
	Editable  bool           `yaml:"editable"`
	JSONData  map[string]any `yaml:"jsonData"`
	// SecureJSONData holds the values of custom headers
	// (httpHeaderValue1 for jsonData's httpHeaderName1): a multi-tenant
	// Loki's X-Scope-OrgID.
	SecureJSONData map[string]string `yaml:"secureJsonData"`
}

// DashboardsFile is provisioning/dashboards/dashboards.yaml.
type DashboardsFile struct {
	APIVersion int                 `yaml:"apiVersion"`
	Providers  []DashboardProvider `yaml:"providers"`
}

// DashboardProvider is one dashboard provider.
type DashboardProvider struct {
	Name                  string `yaml:"name"`
	OrgID                 int    `yaml:"orgId"`
	Folder                string `yaml:"folder"`
	FolderUID             string `yaml:"folderUid"`
	Type                  string `yaml:"type"`
	DisableDeletion       bool   `yaml:"disableDeletion"`
	AllowUIUpdates        bool   `yaml:"allowUiUpdates"`
	UpdateIntervalSeconds int    `yaml:"updateIntervalSeconds"`
	Options               struct {
		Path                      string `yaml:"path"`
		FoldersFromFilesStructure bool   `yaml:"foldersFromFilesStructure"`
	} `yaml:"options"`
}

// strictYAML decodes path into v, refusing unknown fields.
func strictYAML(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s does not decode strictly: %v", path, err)
	}
}

// loadDatasources returns the provisioned data sources by uid.
func loadDatasources(t testing.TB) map[string]Datasource {
	t.Helper()
	var f DatasourcesFile
	strictYAML(t, filepath.Join("provisioning", "datasources", "datasources.yaml"), &f)
	if f.APIVersion != 1 {
		t.Fatalf("datasources.yaml: apiVersion %d, want 1", f.APIVersion)
	}
	out := map[string]Datasource{}
	for _, ds := range f.Datasources {
		if ds.UID == "" || ds.Name == "" || ds.Type == "" || ds.URL == "" {
			t.Fatalf("datasources.yaml: data source %+v lacks a uid, name, type or url", ds)
		}
		if _, dup := out[ds.UID]; dup {
			t.Fatalf("datasources.yaml: uid %q twice", ds.UID)
		}
		out[ds.UID] = ds
	}
	return out
}

// scrapeIntervalOf is the Prometheus data source's timeInterval (Grafana's
// "scrape interval", from which it derives $__rate_interval).
func scrapeIntervalOf(t testing.TB, ds Datasource) string {
	t.Helper()
	v, ok := ds.JSONData["timeInterval"].(string)
	if !ok || v == "" {
		t.Fatalf("datasources.yaml: %s has no jsonData.timeInterval", ds.UID)
	}
	return v
}

func TestProvisioningFiles(t *testing.T) {
	ds := loadDatasources(t)
	want := map[string][2]string{"loki": {"loki", "http://loki:3100"}, "prometheus": {"prometheus", "http://prometheus:9090"}}
	for uid, w := range want {
		got, ok := ds[uid]
		if !ok {
			t.Errorf("datasources.yaml: no data source with uid %q", uid)
			continue
		}
		if got.Type != w[0] || got.URL != w[1] || got.Access != "proxy" {
			t.Errorf("datasources.yaml: %s is type %q at %q (access %q), want type %q at %q (proxy)", uid, got.Type, got.URL, got.Access, w[0], w[1])
		}
	}
	if _, err := parseDuration(scrapeIntervalOf(t, ds["prometheus"])); err != nil {
		t.Errorf("datasources.yaml: prometheus timeInterval: %v", err)
	}
	// Loki is multi-tenant: a query without X-Scope-OrgID is refused.
	for uid, d := range ds {
		if d.Type == "loki" && (d.JSONData["httpHeaderName1"] != "X-Scope-OrgID" || d.SecureJSONData["httpHeaderValue1"] == "") {
			t.Errorf("datasources.yaml: Loki data source %s sends no X-Scope-OrgID (jsonData.httpHeaderName1, secureJsonData.httpHeaderValue1)", uid)
		}
	}
	var f DashboardsFile
	strictYAML(t, filepath.Join("provisioning", "dashboards", "dashboards.yaml"), &f)
	if f.APIVersion != 1 || len(f.Providers) != 1 {
		t.Fatalf("dashboards.yaml: apiVersion %d with %d providers, want 1 and 1", f.APIVersion, len(f.Providers))
	}
	p := f.Providers[0]
	if p.Type != "file" || p.Options.Path != "/var/lib/grafana/dashboards" || p.Folder == "" {
		t.Errorf("dashboards.yaml: provider %+v must be type file reading /var/lib/grafana/dashboards into a folder", p)
	}
}
