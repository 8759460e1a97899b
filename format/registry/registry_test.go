package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const cortexPath = "/data/sessions/0b0e6a66-6a8e-4c48-9d6c-3d6a4f0e7a11/session_20260203T120000Z_pod-a.jsonl"

const cortexFirst = `{"type":"SESSION_START","timestamp":"2026-02-03T12:00:00Z","job_id":"0b0e6a66-6a8e-4c48-9d6c-3d6a4f0e7a11","session_id":"5d1f7c1e-0c1d-4d7e-9a51-2f7c0b1d2e3f","seq":0,"agent_id":"a","pod_name":"p","buffer_schema_version":1}`

func TestDetect(t *testing.T) {
	r, err := New(DefaultConfig())
	require.NoError(t, err)
	d := r.Detect(cortexPath, []byte(cortexFirst))
	assert.Equal(t, "cortex", d.Format.Name())
	assert.Equal(t, "path", d.How)
	assert.Equal(t, "cortex", d.Path.Format)

	d = r.Detect(cortexPath, nil)
	assert.Equal(t, "cortex", d.Format.Name(), "the path alone when the first line cannot be read")

	d = r.Detect(cortexPath, []byte(`{"torn":`))
	assert.Equal(t, "cortex", d.Format.Name(), "a corrupt first line does not move a file out of its layout")
	assert.Equal(t, "path-unconfirmed", d.How)

	d = r.Detect("/var/log/app/other.jsonl", []byte(`{"msg":"hi"}`))
	assert.Equal(t, "unknown", d.Format.Name())
	assert.Equal(t, "fallback", d.How)

	d = r.Detect("/var/log/app/other.jsonl", []byte(cortexFirst))
	assert.Equal(t, "cortex", d.Format.Name(), "content detection outside the layout")
	assert.Equal(t, "content", d.How)
}

func TestForcedAndRoots(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Format = "unknown"
	r, err := New(cfg)
	require.NoError(t, err)
	assert.Equal(t, "unknown", r.Detect(cortexPath, []byte(cortexFirst)).Format.Name())

	cfg = DefaultConfig()
	cfg.Roots = map[string][]string{"cortex": {"/srv/cortex"}}
	r, err = New(cfg)
	require.NoError(t, err)
	d := r.Detect(cortexPath, []byte(cortexFirst))
	assert.Equal(t, "content", d.How, "outside its roots the path does not claim")
	assert.NotEmpty(t, d.Path.Problem, "outside its own roots a file is not in its layout")
	d = r.Detect("/srv/cortex/0b0e6a66-6a8e-4c48-9d6c-3d6a4f0e7a11/session_20260203T120000Z_pod-a.jsonl", nil)
	assert.Equal(t, "path", d.How)
}

func TestValidate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Format = "cortexx"
	assert.ErrorContains(t, cfg.Validate(), `unknown format "cortexx"`)
	cfg = DefaultConfig()
	cfg.Roots = map[string][]string{"cortex": {"relative/dir"}}
	assert.ErrorContains(t, cfg.Validate(), "not an absolute path")
	cfg.Roots = map[string][]string{"nope": {"/x"}}
	assert.ErrorContains(t, cfg.Validate(), "unknown format")
	assert.Contains(t, Names(), "unknown")
	assert.Equal(t, "unknown", Names()[len(Names())-1])
}

// TestNamesAreBoundedLabelValues: format and event_type values are label
// values: short, fixed, and never clashing with the pipeline's own.
func TestNamesAreBoundedLabelValues(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range append(All(), Unknown) {
		require.False(t, seen[f.Name()], "format %s registered twice", f.Name())
		seen[f.Name()] = true
		assert.Regexp(t, `^[a-z][a-z0-9_-]{1,15}$`, f.Name())
		for _, et := range f.EventTypes() {
			assert.NotContains(t, []string{"", "other", "corrupt"}, et, "format %s", f.Name())
		}
		assert.LessOrEqual(t, len(f.EventTypes()), 64, "format %s: event_type must stay bounded", f.Name())
	}
}

func TestParseRoots(t *testing.T) {
	roots, err := ParseRoots(" codelia=/home/a/.codelia/sessions:/srv/c/ , cortex=/data/sessions")
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"codelia": {"/home/a/.codelia/sessions", "/srv/c"}, "cortex": {"/data/sessions"}}, roots)
	_, err = ParseRoots("codelia")
	assert.ErrorContains(t, err, "not format=/dir")
	_, err = ParseRoots("=/x")
	assert.Error(t, err)
}

// TestRefusedPathsAreNotSniffed: a Go pkg/session store's transcript.jsonl
// starts with an SDK system line that a Claude Code stream-json capture
// starts with too; Claude Code refuses the path, with or without its root,
// so content detection never takes it for a capture.
func TestRefusedPathsAreNotSniffed(t *testing.T) {
	first := []byte(`{"type":"system","subtype":"init","session_id":"0c0c","model":"claude-sonnet-4-5-20250929","cwd":"/app","tools":[]}`)
	for _, roots := range []map[string][]string{{}, {"claude-code": {"/home/u/.claude/projects"}}} {
		cfg := DefaultConfig()
		cfg.Roots = roots
		r, err := New(cfg)
		require.NoError(t, err)
		d := r.Detect("/home/u/.claude/projects/-home-dev-app/sessions/0c0c/transcript.jsonl", first)
		assert.NotEqual(t, "claude-code", d.Format.Name(), "roots %v", roots)
		d = r.Detect("/home/u/.claude/projects/captures/run-1.jsonl", first)
		assert.Equal(t, "claude-code", d.Format.Name(), "a capture elsewhere is still found by its content")
		if len(roots) > 0 {
			assert.Empty(t, d.Path.Problem, "under the format's root")
		}
	}
}
