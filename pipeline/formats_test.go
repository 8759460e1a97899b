package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/journalship/journalship/format/registry"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mixedNode lays out one journal of every format under its own root, as
// on a node running several runtimes, and returns the root and each
// journal's path by format.
func mixedNode(t *testing.T) (string, map[string]string) {
	t.Helper()
	root := t.TempDir()
	copyTo := func(src, dst string) {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
	paths := map[string]string{
		"cortex":    filepath.Join(root, "cortex", goldenJob, "session_20261121T100000Z_agent-worker-1.jsonl"),
		"codelia":   filepath.Join(root, "codelia", "sessions", "2026", "02", "03", "8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl"),
		"orbitmesh": filepath.Join(root, "orbitmesh", "sessions", "sess_123.messages.jsonl"),
		"unknown":   filepath.Join(root, "other", "app.jsonl"),
		"claude-code": filepath.Join(root, "claude", "projects", "-home-dev-app",
			"c2714e95-6083-4caf-9b14-7d6c5b4aefc5.jsonl"),
		"go-session": filepath.Join(root, "go-session", "finished", "messages.jsonl"),
	}
	copyTo("testdata/journal.jsonl", paths["cortex"])
	copyTo("../format/codelia/testdata/spec-example.jsonl", paths["codelia"])
	copyTo("../format/orbitmesh/testdata/spec.messages.jsonl", paths["orbitmesh"])
	copyTo("../format/orbitmesh/testdata/spec.json", filepath.Join(root, "orbitmesh", "sessions", "sess_123.json"))
	copyTo("../format/claudecode/testdata/tools.jsonl", paths["claude-code"])
	copyTo("../format/gosession/testdata/sessions/finished/messages.jsonl", paths["go-session"])
	copyTo("../format/gosession/testdata/sessions/finished/metadata.json", filepath.Join(root, "go-session", "finished", "metadata.json"))
	require.NoError(t, os.MkdirAll(filepath.Dir(paths["unknown"]), 0o755))
	require.NoError(t, os.WriteFile(paths["unknown"], []byte("{\"msg\":\"started\"}\n{\"msg\":\"torn\"\n{\"msg\":\"done\"}\n"), 0o644))
	return root, paths
}

// TestMixedNode: one output, every format; each line lands with its own
// format label and event type and is never judged by another format.
func TestMixedNode(t *testing.T) {
	root, paths := mixedNode(t)
	e := newEnv(t, nil)
	total := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		recs := tailRecords(path, data, testNow)
		total += len(recs)
		res, err := e.pipe.Ship(context.Background(), recs, "sessions")
		require.NoError(t, err)
		assert.Equal(t, len(recs), res.Shipped, path)
	}
	entries := e.cap.entries()
	require.Len(t, entries, total)
	types := map[string]map[string]bool{}
	for _, f := range append(registry.All(), registry.Unknown) {
		types[f.Name()] = map[string]bool{"other": true, "corrupt": true}
		for _, et := range f.EventTypes() {
			types[f.Name()][et] = true
		}
	}
	for _, en := range entries {
		want := ""
		for name, p := range paths {
			if en.md["file"] == p {
				want = name
			}
		}
		require.NotEmpty(t, want, "entry of an unknown file: %v", en.md)
		assert.Contains(t, en.labels, `format="`+want+`"`, en.line)
		et := labelValue(en.labels, "event_type")
		assert.True(t, types[want][et], "%s: event_type %q is not one of the format's", want, et)
		if want != "cortex" {
			assert.NotContains(t, en.md["annotations"], "seq_gap", "%s judged by the Cortex Plane's rules: %s", want, en.line)
			assert.NotContains(t, en.md["violations"], "job_id", "%s judged by the Cortex Plane's rules: %s", want, en.line)
		}
	}
	got := render(entries, root)
	if *update {
		require.NoError(t, os.WriteFile("testdata/mixed.golden", []byte(got), 0o644))
	}
	want, err := os.ReadFile("testdata/mixed.golden")
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

// TestStateFollowsRetries: the formats whose verdicts need more than the
// line (Codelia's request pairing, OrbitMesh's seq and derived status)
// give the same verdicts when a file's chunks come out of order and
// retried: the state is rebuilt from the file, never guessed.
func TestStateFollowsRetries(t *testing.T) {
	_, paths := mixedNode(t)
	for _, name := range []string{"codelia", "orbitmesh", "cortex", "claude-code", "go-session"} {
		t.Run(name, func(t *testing.T) {
			path := paths[name]
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			recs := tailRecords(path, data, testNow)
			third := len(recs) / 3
			parts := [][]int{{2 * third, len(recs)}, {0, third}, {third, 2 * third}, {0, third}, {2 * third, len(recs)}}

			inOrder := newEnv(t, nil)
			_, err = inOrder.pipe.Ship(context.Background(), recs, "t")
			require.NoError(t, err)
			shuffled := newEnv(t, nil)
			for _, part := range parts {
				_, err = shuffled.pipe.Ship(context.Background(), recs[part[0]:part[1]], "t")
				require.NoError(t, err)
			}
			byOffset := func(e *env) map[string]string {
				out := map[string]string{}
				for _, en := range e.cap.entries() {
					out[en.md["byte_offset"]] = en.md["annotations"] + "|" + en.md["model"] + "|" + en.md["state"] +
						"|" + en.md["seq_gap"] + en.md["seq_repeat"] + en.md["seq_regression"]
				}
				return out
			}
			want := byOffset(inOrder)
			require.Len(t, want, len(recs))
			assert.Equal(t, want, byOffset(shuffled))
		})
	}
}

// labelValue reads one label of a stream selector such as {a="b", c="d"}.
func labelValue(labels, name string) string {
	_, rest, ok := strings.Cut(labels, name+`="`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// TestFormatNotesAreCounted: a format's own annotations are counted in
// journalship_annotations_total by kind, like the shared ones, and every
// registered format's kinds start at zero.
func TestFormatNotesAreCounted(t *testing.T) {
	e := newEnv(t, nil)
	for _, f := range registry.All() {
		for _, a := range f.Annotations() {
			_, err := e.metrics.Annotations.GetMetricWithLabelValues(a)
			require.NoError(t, err)
		}
	}
	data, err := os.ReadFile("../format/codelia/testdata/anomalies.jsonl")
	require.NoError(t, err)
	path := "/data/codelia/sessions/2026/02/03/run-a.jsonl"
	_, err = e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "sessions")
	require.NoError(t, err)
	want := map[string]float64{}
	for _, en := range e.cap.entries() {
		for _, a := range strings.Split(en.md["annotations"], ",") {
			if slices.Contains(registry.Lookup("codelia").Annotations(), a) {
				want[a]++
			}
		}
	}
	require.NotEmpty(t, want, "the fixture has Codelia's own annotations")
	for kind, n := range want {
		assert.Equal(t, n, testutil.ToFloat64(e.metrics.Annotations.WithLabelValues(kind)), kind)
	}
}
