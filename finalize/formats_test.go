package finalize

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/output"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codeliaRun copies a Codelia test journal into its layout under the
// env's directory, with extra bytes appended and the given age.
func (e *env) codeliaRun(t *testing.T, fixture, runID, date, extra string, age time.Duration) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "format", "codelia", "testdata", fixture))
	require.NoError(t, err)
	p := filepath.Join(filepath.Dir(filepath.Dir(e.root)), "codelia", "sessions", date, runID+".jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, append(data, extra...), 0o644))
	mt := e.now.Add(-age)
	require.NoError(t, os.Chtimes(p, mt, mt))
	return p
}

// TestCodeliaRunsByTheirOwnEnd: a Codelia run that wrote run.end is
// finished at once, however recently written; a crashed one is finished
// once its torn line is stale, and its summary reports the request it
// never saw answered.
func TestCodeliaRunsByTheirOwnEnd(t *testing.T) {
	e := newEnv(t)
	f := e.finalizer(t, nil, nil)
	ended := e.codeliaRun(t, "spec-example.jsonl", "8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a", "2026/02/03", "", 0)
	o, err := f.File(context.Background(), ended)
	require.NoError(t, err)
	assert.True(t, o.Finished)
	assert.Equal(t, "session ended", o.Why, "run.end ends the run")
	assert.Equal(t, "clean", o.Level.String())

	crashed := e.codeliaRun(t, "crashed.jsonl", "3b4f2c1a-9d8e-4f7a-b6c5-0a1b2c3d4e5f", "2026/03/14",
		`{"type":"llm.response","run_id":"3b4f`, 20*time.Minute)
	o, err = f.File(context.Background(), crashed)
	require.NoError(t, err)
	assert.True(t, o.Finished)
	assert.Equal(t, "partial last line unchanged for 10m0s", o.Why)

	q := &lokiquery.Client{URL: e.loki.URL}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions", event_type="file_summary"}`,
		e.now.Add(-3*time.Hour), e.now.Add(time.Minute), 2, 20*time.Second)
	require.NoError(t, err)
	summaries := map[string]lokiquery.Entry{}
	for _, en := range got {
		summaries[en.Metadata["file"]] = en
	}
	require.Contains(t, summaries, crashed)
	s := summaries[crashed]
	assert.Equal(t, "codelia", s.Stream["format"])
	assert.Contains(t, s.Metadata["annotations"], "unfinished")
	assert.Contains(t, s.Line, `"format":"codelia"`)
	assert.Contains(t, s.Line, "was never answered")
	assert.NotContains(t, summaries[ended].Metadata["annotations"], "unfinished")
}

// claudeTranscript copies a Claude Code test transcript into its layout
// under the env's directory, with the given age.
func (e *env) claudeTranscript(t *testing.T, fixture, session string, age time.Duration) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "format", "claudecode", "testdata", fixture))
	require.NoError(t, err)
	p := filepath.Join(filepath.Dir(filepath.Dir(e.root)), "claude", "projects", "-home-dev-app", session+".jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, data, 0o644))
	mt := e.now.Add(-age)
	require.NoError(t, os.Chtimes(p, mt, mt))
	return p
}

// TestClaudeCodeSessionsEndQuietly: Claude Code writes no end record; an
// idle session is finished once unchanged for StaleAfter, never before,
// and a session still acting (a tool call unanswered) is not finished by
// being quiet.
func TestClaudeCodeSessionsEndQuietly(t *testing.T) {
	e := newEnv(t)
	f := e.finalizer(t, nil, nil)
	fresh := e.claudeTranscript(t, "subagent-main.jsonl", "f5a47bc8-93b6-4fd2-8e47-a09f8e7d12f8", time.Minute)
	o, err := f.File(context.Background(), fresh)
	require.NoError(t, err)
	assert.False(t, o.Finished, "idle, but written a minute ago: a person may type again")

	idle := e.claudeTranscript(t, "subagent-main.jsonl", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", 20*time.Minute)
	o, err = f.File(context.Background(), idle)
	require.NoError(t, err)
	assert.True(t, o.Finished)
	assert.Equal(t, "session idle and unchanged for 10m0s", o.Why)

	acting := e.claudeTranscript(t, "tools.jsonl", "c2714e95-6083-4caf-9b14-7d6c5b4aefc5", 20*time.Minute)
	o, err = f.File(context.Background(), acting)
	require.NoError(t, err)
	assert.False(t, o.Finished, "a session waiting on a tool is not over by being quiet")
}

// TestResumedCopyCountedOnceByTheFinalizer: a Claude Code session resumed
// into a new one writes the first one's responses again under its own
// id. The finalizer ships both once idle: every response counts once on
// the node, the copies are annotated counted_elsewhere, also when the
// copy is finalized by another process (a restart, the same ledger).
func TestResumedCopyCountedOnceByTheFinalizer(t *testing.T) {
	const origID, copyID = "f5a47bc8-93b6-4fd2-8e47-a09f8e7d12f8", "a1b2c3d4-93b6-4fd2-8e47-a09f8e7d12f8"
	e := newEnv(t)
	orig := e.claudeTranscript(t, "subagent-main.jsonl", origID, 20*time.Minute)
	resumed := e.claudeTranscript(t, "subagent-main.jsonl", copyID, 20*time.Minute)
	data, err := os.ReadFile(resumed)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(resumed, bytes.ReplaceAll(data, []byte(origID), []byte(copyID)), 0o644))
	mt := e.now.Add(-20 * time.Minute)
	require.NoError(t, os.Chtimes(resumed, mt, mt))

	o, err := e.finalizer(t, nil, nil).File(context.Background(), orig)
	require.NoError(t, err)
	require.True(t, o.Finished)
	// Another process on the same ledger: what it knows of the claim is
	// the ledger's.
	settings := map[string]string{"loki_url": e.loki.URL, "ledger_path": e.ledger.Path(),
		"dead_letter_path": filepath.Join(t.TempDir(), "dl.jsonl"), "metrics_address": "off", "log_level": "error"}
	other, err := output.NewInstance(func(k string) string { return settings[strings.ToLower(k)] })
	require.NoError(t, err)
	t.Cleanup(func() { other.Close() })
	o, err = e.finalizer(t, other, nil).File(context.Background(), resumed)
	require.NoError(t, err)
	require.True(t, o.Finished)

	out := map[string]int{}
	elsewhere := 0
	for _, en := range e.entries(t, 12) { // 5 lines of each, 2 file summaries
		if v := en.Metadata["tokens_out"]; v != "" {
			n, err := strconv.Atoi(v)
			require.NoError(t, err)
			out[filepath.Base(en.Metadata["file"])] += n
		}
		if strings.Contains(en.Metadata["annotations"], "counted_elsewhere") {
			assert.Equal(t, resumed, en.Metadata["file"])
			assert.Empty(t, en.Metadata["cost_usd"])
			elsewhere++
		}
	}
	assert.Equal(t, map[string]int{origID + ".jsonl": 60 + 15}, out, "every response once at its largest, under the first journal shipped")
	assert.Equal(t, 3, elsewhere, "the copy's three lines with usage")
}
