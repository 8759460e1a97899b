package lokiproc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		wantField string
	}{
		{"ok", Config{Binary: "/x/loki", StartTimeout: time.Second}, ""},
		{"ok with limits", Config{Binary: "/x/loki", StartTimeout: time.Second, Limits: map[string]any{"max_line_size": "1KB"}}, ""},
		{"no binary", Config{StartTimeout: time.Second}, "Binary"},
		{"zero timeout", Config{Binary: "/x/loki"}, "StartTimeout"},
		{"negative timeout", Config{Binary: "/x/loki", StartTimeout: -time.Second}, "StartTimeout"},
		{"empty limit key", Config{Binary: "/x/loki", StartTimeout: time.Second, Limits: map[string]any{" ": 1}}, "Limits"},
		{"unencodable limit", Config{Binary: "/x/loki", StartTimeout: time.Second, Limits: map[string]any{"f": func() {}}}, "Limits[f]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.wantField == "" {
				require.NoError(t, err)
				return
			}
			var ce *ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tc.wantField, ce.Field)
			assert.False(t, ce.Retryable())
		})
	}
}

func TestDefaultConfigFindsRepoBinary(t *testing.T) {
	t.Setenv(EnvBinary, "")
	t.Setenv("PATH", t.TempDir()) // no loki on PATH
	d := DefaultConfig()
	assert.Equal(t, DefaultStartTimeout, d.StartTimeout)
	wd, err := os.Getwd()
	require.NoError(t, err)
	// this package lives at <root>/internal/lokiproc
	assert.Equal(t, filepath.Join(wd, "..", "..", "bin", "loki"), d.Binary)
	require.NoError(t, d.Validate())

	t.Setenv(EnvBinary, "/opt/loki")
	assert.Equal(t, "/opt/loki", DefaultConfig().Binary)
}

func TestRepoRoot(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("repo/go.mod", "// comment\nmodule "+ModulePath+"\n\ngo 1.26\n")
	write("repo/tools/loki/go.mod", "module "+ModulePath+"/tools/loki\n")
	write("other/go.mod", "module example.com/other\n")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "repo/internal/x"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "other/sub"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "none"), 0o755))

	cases := []struct {
		from, want string
	}{
		{"repo/internal/x", "repo"},
		{"repo", "repo"},
		{"repo/tools/loki", "repo"}, // the nested module is skipped for the repository's
		{"other/sub", "other"},      // no repository module: nearest go.mod
	}
	for _, tc := range cases {
		t.Run(tc.from, func(t *testing.T) {
			assert.Equal(t, filepath.Join(root, tc.want), repoRoot(filepath.Join(root, tc.from)))
		})
	}
}

func TestRenderConfig(t *testing.T) {
	body, err := lokiConfig{
		dir: "/data", httpPort: 1234, grpcPort: 5678,
		limits: map[string]any{"max_line_size": "1KB", "reject_old_samples": true},
	}.render()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(body, &doc), "the config is JSON (valid YAML)")

	get := func(path ...string) any {
		var v any = doc
		for _, p := range path {
			m, ok := v.(map[string]any)
			require.True(t, ok, "%v", path)
			v = m[p]
		}
		return v
	}
	cases := []struct {
		path []string
		want any
	}{
		{[]string{"auth_enabled"}, false},
		{[]string{"server", "http_listen_port"}, 1234.0},
		{[]string{"server", "grpc_listen_port"}, 5678.0},
		{[]string{"server", "http_listen_address"}, "127.0.0.1"},
		{[]string{"common", "path_prefix"}, "/data"},
		{[]string{"common", "ring", "kvstore", "store"}, "inmemory"},
		{[]string{"common", "storage", "filesystem", "chunks_directory"}, "/data/chunks"},
		{[]string{"frontend", "scheduler_address"}, "127.0.0.1:5678"},
		{[]string{"frontend_worker", "scheduler_address"}, "127.0.0.1:5678"},
		{[]string{"ingester", "query_store_max_look_back_period"}, "-1ns"},
		{[]string{"querier", "query_ingesters_within"}, "0s"},
		{[]string{"query_range", "cache_results"}, false},
		{[]string{"analytics", "reporting_enabled"}, false},
		{[]string{"pattern_ingester", "enabled"}, false},
		{[]string{"limits_config", "max_line_size"}, "1KB"},     // override
		{[]string{"limits_config", "reject_old_samples"}, true}, // override
		{[]string{"limits_config", "ingestion_rate_mb"}, 64.0},  // default kept
		{[]string{"limits_config", "allow_structured_metadata"}, true},
		{[]string{"limits_config", "volume_enabled"}, false},
		{[]string{"limits_config", "discover_log_levels"}, false},
		{[]string{"limits_config", "discover_service_name"}, []any{}},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, get(tc.path...), "%v", tc.path)
	}
	schema := get("schema_config", "configs").([]any)[0].(map[string]any)
	assert.Equal(t, "tsdb", schema["store"])
	assert.Equal(t, "v13", schema["schema"])
	assert.Equal(t, "filesystem", schema["object_store"])
}

func TestDefaultLimitsAreFresh(t *testing.T) {
	a := DefaultLimits()
	a["ingestion_rate_mb"] = 1
	assert.Equal(t, 64, DefaultLimits()["ingestion_rate_mb"], "callers cannot alter the defaults")
}

// TestLocateBinary: bin/journalship run by hand from anywhere finds the
// bin/loki beside it; from inside the repository, bin/loki; else PATH's.
func TestLocateBinary(t *testing.T) {
	exeDir, repo, pathDir, elsewhere := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module "+ModulePath+"\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "bin"), 0o755))
	exe := filepath.Join(exeDir, "journalship")
	mkExec := func(p string) { require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)) }
	onPath := filepath.Join(pathDir, "loki")
	lookPath := func(string) (string, error) {
		if isExecutable(onPath) {
			return onPath, nil
		}
		return "", os.ErrNotExist
	}
	repoLoki, besideExe := filepath.Join(repo, "bin", "loki"), filepath.Join(exeDir, "loki")

	assert.Equal(t, repoLoki, locateBinary(exe, repo, lookPath), "nothing anywhere: the path make loki writes")
	assert.Equal(t, "loki", locateBinary(exe, elsewhere, lookPath), "nothing, outside the repo")
	mkExec(onPath)
	assert.Equal(t, onPath, locateBinary(exe, elsewhere, lookPath), "PATH")
	mkExec(repoLoki)
	assert.Equal(t, repoLoki, locateBinary(exe, filepath.Join(repo, "bin"), lookPath), "the repo's bin/loki before PATH")
	require.NoError(t, os.WriteFile(besideExe, []byte("not executable"), 0o644))
	assert.Equal(t, repoLoki, locateBinary(exe, repo, lookPath), "a loki that cannot run is passed over")
	mkExec(besideExe)
	require.NoError(t, os.Chmod(besideExe, 0o755))
	assert.Equal(t, besideExe, locateBinary(exe, elsewhere, lookPath), "beside the executable first")
	assert.Equal(t, besideExe, locateBinary(exe, repo, lookPath))
}
