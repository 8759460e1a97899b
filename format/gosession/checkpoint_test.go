package gosession

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	seedManifest = `{
  "checkpoint_id": "cp-001",
  "created_at": "2026-02-09T14:05:00Z",
  "files": [
    {"path": "src/main.go", "hash": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
    {"path": "src/util.go", "hash": "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"}
  ]
}`
	specManifest = `{"user_message_uuid":"6f0c2a9e-8d41-4b7a-a1e3-2c5d9f0b7e14","created_at":"2026-02-09T15:03:11.6+01:00",` +
		`"files":[{"path":"auth/login.go","exists":true,"hash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","size":41}]}`
)

func TestCheckpoints(t *testing.T) {
	dir := writeSession(t, "s", map[string][]byte{
		"checkpoints/cp-001/manifest.json": []byte(seedManifest),
		"checkpoints/cp-001/blobs/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08": []byte("package main\n"),
		"checkpoints/6f0c2a9e-8d41-4b7a-a1e3-2c5d9f0b7e14/manifest.json":                            []byte(specManifest),
		"checkpoints/6f0c2a9e-8d41-4b7a-a1e3-2c5d9f0b7e14/files/9f86":                               []byte("x"),
		"checkpoints/named-by-dir/manifest.json":                                                    []byte(`{"files":"none"}`),
		"checkpoints/half-written/manifest.json":                                                    []byte(seedManifest[:60]),
		"checkpoints/invalid/manifest.json":                                                         []byte(`{"checkpoint_id":"x",}`),
		"checkpoints/an-array/manifest.json":                                                        []byte(`[]`),
		"checkpoints/empty/manifest.json":                                                           {},
		"checkpoints/too-large/manifest.json":                                                       []byte(`{"checkpoint_id":"big","pad":"` + strings.Repeat("x", DefaultMaxMetadataBytes) + `"}`),
		"checkpoints/no-manifest/blobs":                                                             nil,
		"checkpoints/manifest-is-a-dir/manifest.json":                                               nil,
		"checkpoints/stray-file.json":                                                               []byte(seedManifest),
	}, nil)
	cps, err := Checkpoints(dir)
	require.NoError(t, err)
	cp := filepath.Join(dir, CheckpointsDir)
	assert.Equal(t, []Checkpoint{
		{ID: "named-by-dir", Files: 0, Manifest: filepath.Join(cp, "named-by-dir", ManifestFile)},
		{ID: "6f0c2a9e-8d41-4b7a-a1e3-2c5d9f0b7e14", Time: time.Date(2026, 2, 9, 15, 3, 11, 6e8, time.FixedZone("", 3600)), HasTime: true,
			Files: 1, Manifest: filepath.Join(cp, "6f0c2a9e-8d41-4b7a-a1e3-2c5d9f0b7e14", ManifestFile)},
		{ID: "cp-001", Time: time.Date(2026, 2, 9, 14, 5, 0, 0, time.UTC), HasTime: true, Files: 2,
			Manifest: filepath.Join(cp, "cp-001", ManifestFile)},
	}, cps, "both shapes, by time; half-written, invalid and oversized manifests are left for later")

	// The half-written one completes: it is listed at the next scan.
	require.NoError(t, os.WriteFile(filepath.Join(cp, "half-written", ManifestFile), []byte(strings.Replace(seedManifest, "cp-001", "cp-002", 1)), 0o644))
	cps, err = Checkpoints(dir)
	require.NoError(t, err)
	assert.Len(t, cps, 4)
	cps, err = ReadCheckpoints(dir, 2<<20)
	require.NoError(t, err)
	assert.Len(t, cps, 5, "a larger bound takes the large one")
}

func TestCheckpointsNone(t *testing.T) {
	cps, err := Checkpoints(writeSession(t, "s", nil, nil))
	assert.NoError(t, err, "no checkpoints directory")
	assert.Empty(t, cps)
	cps, err = Checkpoints("/nonexistent/session")
	assert.NoError(t, err)
	assert.Empty(t, cps)
	cps, err = Checkpoints(writeSession(t, "s", map[string][]byte{CheckpointsDir: []byte("x")}, nil))
	assert.NoError(t, err, "checkpoints is a file")
	assert.Empty(t, cps)
	cps, err = Checkpoints(writeSession(t, "s", map[string][]byte{CheckpointsDir: nil}, nil))
	assert.NoError(t, err)
	assert.Empty(t, cps)
}

func TestCheckpointsUnreadableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any directory")
	}
	dir := writeSession(t, "s", map[string][]byte{CheckpointsDir: nil}, nil)
	require.NoError(t, os.Chmod(filepath.Join(dir, CheckpointsDir), 0))
	defer os.Chmod(filepath.Join(dir, CheckpointsDir), 0o755)
	_, err := Checkpoints(dir)
	assert.Error(t, err)
}

func TestParseManifest(t *testing.T) {
	cp, ok := ParseManifest([]byte(`{"checkpoint_id":"","user_message_uuid":"u","files":[[],{},null,"x"],"created_at":"0001-01-01T00:00:00Z"}`))
	require.True(t, ok)
	assert.Equal(t, Checkpoint{ID: "u", Files: 4}, cp)
	cp, ok = ParseManifest([]byte(`{"checkpoint_id":7,"created_at":5,"files":[ ]}`))
	require.True(t, ok)
	assert.Equal(t, Checkpoint{}, cp, "an id of no string: the directory's name, later")
	for _, bad := range []string{``, `{`, `[]`, `{"files":[}`, `{} {}`} {
		_, ok = ParseManifest([]byte(bad))
		assert.False(t, ok, bad)
	}
}

func TestCount(t *testing.T) {
	for arr, n := range map[string]int{
		`[]`: 0, `[ ]`: 0, `[1]`: 1, `[1,2,3]`: 3, ` [ "a,b" , {"x":[1,2]} , [[]] , null ] `[1:]: 4,
		`["a\"]",2]`: 2, `[{"k":"}"},{"k":"]"}]`: 2, "[\n1,\n2\n]": 2,
	} {
		assert.Equal(t, n, count([]byte(arr)), arr)
	}
	for _, junk := range []string{``, `[`, `["`, `[{`, `[1,`, `]`, `[,,]`, `["\`} {
		count([]byte(junk)) // never panics
	}
}
