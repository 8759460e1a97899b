package finalize

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/lokiquery"
)

// goSession is a Go pkg/session store's session directory under the env.
type goSession struct {
	dir, messages, transcript string
}

func (e *env) goSession(t *testing.T, id string) goSession {
	t.Helper()
	dir := filepath.Join(filepath.Dir(filepath.Dir(e.root)), "goat", "sessions", id)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return goSession{dir: dir, messages: filepath.Join(dir, "messages.jsonl"), transcript: filepath.Join(dir, "transcript.jsonl")}
}

// appendMessages appends a user prompt and the assistant's answer, at t.
func (g goSession) appendMessages(t *testing.T, n int, at time.Time) {
	t.Helper()
	f, err := os.OpenFile(g.messages, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	defer f.Close()
	ts := at.UTC().Format(time.RFC3339Nano)
	_, err = fmt.Fprintf(f, "{\"uuid\":\"u-%d\",\"timestamp\":%q,\"role\":\"user\",\"content\":\"go on\"}\n"+
		"{\"uuid\":\"a-%d\",\"timestamp\":%q,\"role\":\"assistant\",\"content\":\"done\"}\n", n, ts, n, ts)
	require.NoError(t, err)
	tf, err := os.OpenFile(g.transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	defer tf.Close()
	_, err = fmt.Fprintf(tf, "{\"type\":\"user\",\"session_id\":%q,\"uuid\":\"u-%d\"}\n", filepath.Base(g.dir), n)
	require.NoError(t, err)
}

func (g goSession) metadata(t *testing.T, created, updated time.Time, turns int, cost float64, exit string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(g.dir, "metadata.json"), []byte(fmt.Sprintf(`{
  "session_id": %q,
  "created_at": %q,
  "updated_at": %q,
  "model": "claude-sonnet-4-5-20250929",
  "cwd": "/home/dev/app",
  "agent_name": "fixer",
  "turn_count": %d,
  "total_cost_usd": %v,
  "exit_reason": %q
}`, filepath.Base(g.dir), created.UTC().Format(time.RFC3339Nano), updated.UTC().Format(time.RFC3339Nano), turns, cost, exit)), 0o644))
}

// TestGoSessionSummaryAndCheckpoints: a Go pkg/session session ships its
// checkpoint manifests while it runs, each once; when metadata.json says
// its run ended (exit_reason written after the last message) both journals
// are finished and one summary entry ships with the run's cost; a resumed
// run ends with a second summary that counts only the growth of the
// cumulative total_cost_usd, so Loki's sum is the session's cost.
func TestGoSessionSummaryAndCheckpoints(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	f := e.finalizer(t, nil, nil)
	g := e.goSession(t, "0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
	start := e.now.Add(-time.Hour)
	g.appendMessages(t, 1, start)
	g.metadata(t, start, start, 0, 0, "")
	cp := filepath.Join(g.dir, "checkpoints", "u-1", "manifest.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(cp), 0o755))
	require.NoError(t, os.WriteFile(cp, []byte(fmt.Sprintf(`{"user_message_uuid":"u-1","created_at":%q,"files":[{"path":"a.go","exists":true,"hash":"h","size":3}]}`,
		start.Add(time.Second).UTC().Format(time.RFC3339Nano))), 0o644))

	o, err := f.File(ctx, g.messages)
	require.NoError(t, err)
	assert.False(t, o.Finished, "no exit_reason: the run goes on")
	q := &lokiquery.Client{URL: e.loki.URL}
	cps, err := q.WaitFor(ctx, `{service_name="agent-sessions", event_type="checkpoint"}`, e.now.Add(-3*time.Hour), e.now.Add(time.Minute), 1, 20*time.Second)
	require.NoError(t, err)
	require.Len(t, cps, 1, "the checkpoint ships while the session runs")
	assert.Equal(t, "go-session", cps[0].Stream["format"])
	assert.Equal(t, "checkpoint", cps[0].Metadata["role"])
	assert.Equal(t, "0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", cps[0].Metadata["session_id"])
	assert.Contains(t, cps[0].Line, `"checkpoint_id":"u-1"`)
	assert.Contains(t, cps[0].Line, `"checkpoint_files":1`)
	marks, err := e.ledger.Marks(ctx, g.messages)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"checkpoint:u-1": "1"}, marks, "the ledger remembers it")

	// The run ends: exit_reason written after the last message.
	g.metadata(t, start, start.Add(time.Minute), 2, 0.5, "end_turn")
	for _, p := range []string{g.messages, g.transcript} {
		o, err = f.File(ctx, p)
		require.NoError(t, err)
		assert.True(t, o.Finished, p)
		assert.Equal(t, "session ended", o.Why, p)
	}
	o, err = f.File(ctx, g.messages)
	require.NoError(t, err)
	assert.Equal(t, "already finished", o.Why)

	// Resumed an hour later: new messages past updated_at reopen it; the
	// stale exit_reason does not end it.
	resumed := start.Add(30 * time.Minute)
	g.appendMessages(t, 2, resumed)
	o, err = f.File(ctx, g.messages)
	require.NoError(t, err)
	assert.False(t, o.Finished, "the first run's exit_reason is older than the new messages")
	g.metadata(t, start, resumed.Add(time.Minute), 4, 0.8, "max_turns")
	o, err = f.File(ctx, g.messages)
	require.NoError(t, err)
	assert.True(t, o.Finished)
	o, err = f.File(ctx, g.messages)
	require.NoError(t, err)
	assert.Equal(t, "already finished", o.Why)

	sums, err := q.WaitFor(ctx, `{service_name="agent-sessions", event_type="metadata"}`, e.now.Add(-3*time.Hour), e.now.Add(time.Minute), 2, 20*time.Second)
	require.NoError(t, err)
	require.Len(t, sums, 2, "one summary per run, each once")
	var total float64
	byReason := map[string]lokiquery.Entry{}
	for _, s := range sums {
		assert.Equal(t, "session_end", s.Metadata["role"])
		assert.Equal(t, "claude-sonnet-4-5-20250929", s.Metadata["model"])
		assert.Equal(t, "claude-sonnet-4-5-20250929", s.Metadata["cost_model"])
		c, err := strconv.ParseFloat(s.Metadata["cost_usd"], 64)
		require.NoError(t, err)
		total += c
		byReason[s.Metadata["end_reason"]] = s
	}
	assert.InDelta(t, 0.8, total, 1e-9, "Loki's sum of cost_usd is the session's cost, counted once")
	assert.Equal(t, "0.5", byReason["end_turn"].Metadata["reported_cost_usd"])
	assert.Equal(t, "0.8", byReason["max_turns"].Metadata["reported_cost_usd"])
	assert.Equal(t, "0.3", byReason["max_turns"].Metadata["cost_usd"])
	assert.Contains(t, byReason["max_turns"].Line, `"turn_count":4`)
	assert.True(t, byReason["max_turns"].Time.Equal(resumed.Add(time.Minute)), "stamped with updated_at")
}

// TestGoSessionHalfWrittenMetadataWaits: metadata.json caught half
// rewritten (the runtime truncates, then writes) ends nothing: the file is
// not finished; once whole again, the next pass finishes it and ships the
// summary. (The summary's own re-read failing after the end was seen is
// format/gosession's TestSummaryEdges: that pass reports errSideChanged.)
func TestGoSessionHalfWrittenMetadataWaits(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	f := e.finalizer(t, nil, nil)
	g := e.goSession(t, "s-half")
	start := e.now.Add(-time.Hour)
	g.appendMessages(t, 1, start)
	g.metadata(t, start, start.Add(time.Minute), 1, 0.25, "end_turn")
	require.NoError(t, os.WriteFile(filepath.Join(g.dir, "metadata.json"), []byte(`{"session_id":"s-half","exit_reason":"end_turn"`), 0o644))
	o, err := f.File(ctx, g.messages)
	require.NoError(t, err)
	assert.False(t, o.Finished, "torn metadata: not over, not finished")
	g.metadata(t, start, start.Add(time.Minute), 1, 0.25, "end_turn")
	o, err = f.File(ctx, g.messages)
	require.NoError(t, err)
	assert.True(t, o.Finished)
	q := &lokiquery.Client{URL: e.loki.URL}
	sums, err := q.WaitFor(ctx, `{service_name="agent-sessions", event_type="metadata"}`, e.now.Add(-3*time.Hour), e.now.Add(time.Minute), 1, 20*time.Second)
	require.NoError(t, err)
	require.Len(t, sums, 1)
	assert.Equal(t, "0.25", sums[0].Metadata["cost_usd"])
}

// TestGoSessionRunWithoutNewMessages: a resumed run whose prompt's write
// was dropped (the store's 5 s lock wait) ends by rewriting metadata.json
// alone; the finished messages.jsonl does not change, yet the run's
// summary ships at the next pass, with its cost growth, as does a
// checkpoint written after the file was finished.
func TestGoSessionRunWithoutNewMessages(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	f := e.finalizer(t, nil, nil)
	g := e.goSession(t, "s-quiet")
	start := e.now.Add(-time.Hour)
	g.appendMessages(t, 1, start)
	g.metadata(t, start, start.Add(time.Minute), 1, 0.25, "end_turn")
	o, err := f.File(ctx, g.messages)
	require.NoError(t, err)
	require.True(t, o.Finished)

	g.metadata(t, start, start.Add(20*time.Minute), 2, 0.4, "error_max_budget_usd")
	cp := filepath.Join(g.dir, "checkpoints", "late", "manifest.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(cp), 0o755))
	require.NoError(t, os.WriteFile(cp, []byte(`{"checkpoint_id":"late","files":[]}`), 0o644))
	o, err = f.File(ctx, g.messages)
	require.NoError(t, err)
	assert.Equal(t, "already finished", o.Why)

	q := &lokiquery.Client{URL: e.loki.URL}
	sums, err := q.WaitFor(ctx, `{service_name="agent-sessions", event_type="metadata"}`, e.now.Add(-3*time.Hour), e.now.Add(time.Minute), 2, 20*time.Second)
	require.NoError(t, err)
	require.Len(t, sums, 2)
	costs := map[string]string{}
	for _, s := range sums {
		costs[s.Metadata["end_reason"]] = s.Metadata["cost_usd"]
	}
	assert.Equal(t, map[string]string{"end_turn": "0.25", "error_max_budget_usd": "0.15"}, costs)
	cps, err := q.WaitFor(ctx, `{service_name="agent-sessions", event_type="checkpoint"}`, e.now.Add(-3*time.Hour), e.now.Add(time.Minute), 1, 20*time.Second)
	require.NoError(t, err)
	assert.Len(t, cps, 1)
}
