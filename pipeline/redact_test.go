package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/secretsample"
	"github.com/journalship/journalship/loki"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secretOf returns a Gitleaks example of rule and its secret.
func secretOf(t *testing.T, rule string) (sample, secret string) {
	t.Helper()
	es := secretsample.Of(rule)
	require.NotEmpty(t, es, rule)
	for _, f := range es[0].Gitleaks {
		if f.Rule == rule {
			return es[0].Sample, f.Secret
		}
	}
	t.Fatalf("no %s secret", rule)
	return "", ""
}

// TestSecretsNeverLeaveTheNode: secrets an agent saw (in a tool's output,
// in JSON held in a tool's input, in a field that becomes metadata, in a
// line too long to ship) are replaced in everything that leaves the
// node: entries, their metadata, dead letters. The lines stay JSON, are
// annotated redacted with what was found, and are judged as they were
// written: tokens, continuity and the ledger's byte ranges are the
// original's, so a re-ship sends nothing.
func TestSecretsNeverLeaveTheNode(t *testing.T) {
	awsSample, aws := secretOf(t, "aws-access-token")
	_, ghp := secretOf(t, "github-pat")
	pemSample, pem := secretOf(t, "private-key")
	data, err := os.ReadFile("testdata/journal.jsonl")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	secrets := map[int]string{}
	ghps := 1 // the long line's
	for i, l := range lines {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) != nil {
			continue // the journal's corrupt line
		}
		switch v["type"] {
		case "TOOL_RESULT":
			out, ok := secretsample.Inject([]byte(l), "export "+awsSample+" && echo done ")
			if !ok {
				out, ok = inject(t, l, "result_summary", awsSample+" done")
			}
			require.True(t, ok)
			lines[i], secrets[i] = string(out), aws
		case "TOOL_START":
			doc, err := json.Marshal(map[string]any{"path": "/home/agent/.ssh/id_rsa", "content": pemSample})
			require.NoError(t, err)
			out, ok := inject(t, l, "input_summary", string(doc))
			require.True(t, ok)
			out, ok = inject(t, string(out), "tool_name", ghp)
			require.True(t, ok)
			lines[i], secrets[i] = string(out), pem
			ghps++
		}
	}
	require.NotEmpty(t, secrets)
	long := `{"type":"TOOL_RESULT","timestamp":"2026-11-21T10:00:30.000Z","job_id":"` + goldenJob + `","session_id":"01956a3b-8000-7000-8000-000000000001","seq":99,"result_summary":"` + ghp + strings.Repeat(" x", 1000) + `"}`
	lines = append(lines, long)
	data = []byte(strings.Join(lines, "\n") + "\n")
	root := t.TempDir()
	path := filepath.Join(root, goldenJob, "session_20261121T100000Z_agent-worker-1.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))

	e := newEnv(t, func(c *Config) { c.MaxLineBytes = 1024 })
	_, err = e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	got := e.cap.entries()
	require.Len(t, got, len(lines)-1, "every line but the long one is in Loki")
	redacted := 0
	for _, g := range got {
		for _, s := range []string{aws, ghp, pem, pem[:40]} {
			assert.NotContains(t, g.line, s)
			for k, v := range g.md {
				assert.NotContains(t, v, s, "metadata %s", k)
			}
		}
		if strings.Contains(g.line, "<REDACTED-SECRET:") {
			assert.True(t, json.Valid([]byte(g.line)), "a redacted line stays JSON: %s", g.line)
		}
		if strings.Contains(g.line, "<REDACTED-SECRET:") {
			redacted++
			assert.Contains(t, g.md["annotations"], "redacted")
			assert.NotEmpty(t, g.md["redacted"])
		}
	}
	assert.Equal(t, len(secrets), redacted, "each line with a secret is redacted and annotated")
	assert.Contains(t, redactedDetails(got), "1 aws-access-token")
	assert.Contains(t, redactedDetails(got), "1 private-key")
	assert.Contains(t, redactedDetails(got), "1 github-pat")

	dl, err := os.ReadFile(e.dlPath)
	require.NoError(t, err)
	assert.Contains(t, string(dl), "Max_Line_Bytes")
	assert.NotContains(t, string(dl), ghp, "a dead letter is redacted too")
	assert.Contains(t, string(dl), `\u003cREDACTED-SECRET:github-pat\u003e`)

	m := e.metrics
	assert.Equal(t, float64(ghps), testutil.ToFloat64(m.SecretsRedacted.WithLabelValues("github-pat", "cortex")))
	assert.Equal(t, 1200.0, testutil.ToFloat64(m.Tokens.WithLabelValues("claude-sonnet-4-5", "prompt", "default")), "tokens are the original lines'")

	again, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	assert.Zero(t, again.Shipped, "the ledger holds the original byte ranges")
}

// inject puts text at the start of the string value of key in line.
func inject(t *testing.T, line, key, text string) ([]byte, bool) {
	t.Helper()
	at := strings.Index(line, `"`+key+`":"`)
	if at < 0 {
		return []byte(line), false
	}
	at += len(key) + 4
	esc, err := json.Marshal(text)
	require.NoError(t, err)
	return []byte(line[:at] + string(esc[1:len(esc)-1]) + line[at:]), true
}

func redactedDetails(es []capturedEntry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.md["redacted"] + ";")
	}
	return b.String()
}

// TestSyntheticEntriesAreRedacted: the finalizer's marker of a torn tail
// previews the line's first bytes, journal content that may hold a
// secret: it is redacted like a line, and the caller's entries are left
// as they were.
func TestSyntheticEntriesAreRedacted(t *testing.T) {
	_, ghp := secretOf(t, "github-pat")
	e := newEnv(t, nil)
	line := []byte(`{"journalship":"truncated_tail","preview":"{\"type\":\"TOOL_RESULT\",\"out\":\"token ` + ghp + `\""}`)
	entries := []Synthetic{{Path: "/d/" + goldenJob + "/session_20261121T100000Z_p.jsonl", Kind: "truncated_tail",
		Time: testNow, Line: line, Annotations: []string{"truncated_tail"}}}
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), entries))
	es := e.cap.entries()
	require.Len(t, es, 1)
	assert.NotContains(t, es[0].line, ghp)
	assert.Contains(t, es[0].line, "<REDACTED-SECRET:github-pat>")
	assert.True(t, json.Valid([]byte(es[0].line)))
	assert.Equal(t, "truncated_tail,redacted", es[0].md["annotations"])
	assert.Equal(t, "1 github-pat", es[0].md["redacted"])
	assert.Equal(t, line, entries[0].Line, "the caller's entry is untouched")
	assert.Equal(t, 1.0, testutil.ToFloat64(e.metrics.SecretsRedacted.WithLabelValues("github-pat", "cortex")))
}

// TestUndecodableRecordIsRedactedInItsDeadLetter: a record whose line
// was read but whose offset (or path) value is unusable is dead-lettered
// with its line: that line may hold a secret like any other and must be
// redacted in the dead letter too.
func TestUndecodableRecordIsRedactedInItsDeadLetter(t *testing.T) {
	_, ghp := secretOf(t, "github-pat")
	e := newEnv(t, nil)
	line := []byte(`{"type":"TOOL_RESULT","timestamp":"2026-11-21T10:00:30.000Z","result_summary":"token ` + ghp + `"}`)
	recs := []chunk.Record{{Time: testNow, Line: line, Path: []byte("/d/" + goldenJob + "/session_20261121T100000Z_p.jsonl"),
		Problem: "offset value is a string, not integer"}}
	res, err := e.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	assert.Equal(t, 1, res.DeadLettered)
	dl, err := os.ReadFile(e.dlPath)
	require.NoError(t, err)
	assert.Contains(t, string(dl), "offset value is a string")
	assert.NotContains(t, string(dl), ghp, "a dead letter is redacted")
}

// TestSyntheticMetadataIsRedacted: a synthetic entry built from a side
// file (a go-session run's summary) carries values of its line as
// metadata (end_reason, model): a secret redacted in the line must not
// ship in them.
func TestSyntheticMetadataIsRedacted(t *testing.T) {
	_, ghp := secretOf(t, "github-pat")
	e := newEnv(t, nil)
	reason := "error: push failed with token " + ghp
	line, err := json.Marshal(map[string]any{"exit_reason": reason, "model": "m"})
	require.NoError(t, err)
	entries := []Synthetic{{Path: "/d/" + goldenJob + "/session_20261121T100000Z_p.jsonl", Kind: "metadata",
		Time: testNow, Line: line, Role: "session_end", EndReason: reason, Metadata: []loki.Label{{Name: "detail", Value: reason}}}}
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), entries))
	es := e.cap.entries()
	require.Len(t, es, 1)
	assert.NotContains(t, es[0].line, ghp)
	for k, v := range es[0].md {
		assert.NotContains(t, v, ghp, "metadata %s", k)
	}
	assert.Equal(t, reason, entries[0].EndReason, "the caller's entry is untouched")
}

// TestRedactionLeavesDerivedMetadataAlone: metadata taken from the path,
// the settings or journalship's verdicts holds nothing of a line's
// content. A short secret (a URL's password "worker") found in the line
// must not rewrite it where its letters happen to occur: the entry would
// no longer be found by its file or pod.
func TestRedactionLeavesDerivedMetadataAlone(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, goldenJob, "session_20261121T100000Z_agent-worker-1.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	line := `{"type":"TOOL_RESULT","timestamp":"2026-11-21T10:00:30.000Z","job_id":"` + goldenJob + `","session_id":"01956a3b-8000-7000-8000-000000000001","seq":1,"result_summary":"psql postgres://worker:worker@db/app"}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(line), 0o644))
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, []byte(line), testNow), "t")
	require.NoError(t, err)
	got := e.cap.entries()
	require.Len(t, got, 1)
	assert.Contains(t, got[0].line, "<REDACTED-SECRET:connection-string-password>")
	assert.Equal(t, path, got[0].md["file"])
	assert.Equal(t, "agent-worker-1", got[0].md["pod"])
}
