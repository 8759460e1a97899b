package promproc

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigValidate(t *testing.T) {
	ok := func(c Config) Config {
		if c.Binary == "" {
			c.Binary = "/x/prometheus"
		}
		if c.StartTimeout == 0 {
			c.StartTimeout = time.Second
		}
		if c.ScrapeInterval == 0 {
			c.ScrapeInterval = time.Second
		}
		return c
	}
	target := Target{Job: "journalship", Addr: "127.0.0.1:2021"}
	cases := []struct {
		name      string
		cfg       Config
		wantField string
	}{
		{"ok", ok(Config{}), ""},
		{"ok with targets", ok(Config{Targets: []Target{target, {Job: "retention", Addr: "127.0.0.1:2022", Path: "/m"}}}), ""},
		{"no binary", Config{StartTimeout: time.Second, ScrapeInterval: time.Second}, "Binary"},
		{"zero timeout", Config{Binary: "/x", ScrapeInterval: time.Second}, "StartTimeout"},
		{"scrape too often", ok(Config{ScrapeInterval: time.Millisecond}), "ScrapeInterval"},
		{"scrape not in ms", ok(Config{ScrapeInterval: time.Second + time.Microsecond}), "ScrapeInterval"},
		{"bad job", ok(Config{Targets: []Target{{Job: "a b", Addr: "127.0.0.1:1"}}}), "Targets[0].Job"},
		{"bad addr", ok(Config{Targets: []Target{{Job: "a", Addr: "localhost"}}}), "Targets[0].Addr"},
		{"bad path", ok(Config{Targets: []Target{{Job: "a", Addr: "h:1", Path: "metrics"}}}), "Targets[0].Path"},
		{"duplicate job", ok(Config{Targets: []Target{target, target}}), "Targets[1].Job"},
	}
	for _, tc := range cases {
		var ce *ConfigError
		switch err := tc.cfg.Validate(); {
		case tc.wantField == "":
			assert.NoError(t, err, tc.name)
		case assert.ErrorAs(t, err, &ce, tc.name):
			assert.Equal(t, tc.wantField, ce.Field, tc.name)
			assert.Equal(t, "prometheus", ce.Name, tc.name)
		}
	}
}

func TestDefaultConfig(t *testing.T) {
	t.Setenv(EnvBinary, "")
	d := DefaultConfig()
	assert.Equal(t, Config{Binary: DefaultBinary, StartTimeout: DefaultStartTimeout, ScrapeInterval: DefaultScrapeInterval}, d)
	require.NoError(t, d.Validate())
	t.Setenv(EnvBinary, "/opt/prometheus")
	assert.Equal(t, "/opt/prometheus", DefaultConfig().Binary)
	filled := Config{Targets: []Target{{Job: "j", Addr: "h:1"}}}.withDefaults()
	assert.Equal(t, "/metrics", filled.Targets[0].Path)
	assert.Equal(t, DefaultScrapeInterval, filled.ScrapeInterval)
}

func TestPromConfigRendersEveryTarget(t *testing.T) {
	body, err := promConfig([]Target{{Job: "a", Addr: "127.0.0.1:1", Path: "/metrics"}, {Job: "b", Addr: "127.0.0.1:2", Path: "/x"}}, 1500*time.Millisecond)
	require.NoError(t, err)
	var doc struct {
		Global        map[string]string `json:"global"`
		ScrapeConfigs []struct {
			JobName        string `json:"job_name"`
			ScrapeInterval string `json:"scrape_interval"`
			MetricsPath    string `json:"metrics_path"`
			StaticConfigs  []struct {
				Targets []string `json:"targets"`
			} `json:"static_configs"`
		} `json:"scrape_configs"`
	}
	require.NoError(t, json.Unmarshal(body, &doc))
	assert.Equal(t, "1500ms", doc.Global["scrape_interval"])
	require.Len(t, doc.ScrapeConfigs, 2)
	assert.Equal(t, "b", doc.ScrapeConfigs[1].JobName)
	assert.Equal(t, "/x", doc.ScrapeConfigs[1].MetricsPath)
	assert.Equal(t, []string{"127.0.0.1:2"}, doc.ScrapeConfigs[1].StaticConfigs[0].Targets)
}
