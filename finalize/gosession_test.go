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
	"github.com/journalship/journalship/internal/realdata"
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
	assert.Equal(t, map[string]string{"checkpoint:u-1@" + start.Add(time.Second).UTC().Format(time.RFC3339Nano): "1"}, marks,
		"the ledger remembers it, by directory and time")

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

// copyRealSession copies a session directory of the real Goat store into
// the env's store base (the originals are read-only) and returns it.
func (e *env) copyRealSession(t *testing.T, root, id string) goSession {
	t.Helper()
	g := e.goSession(t, id)
	src := filepath.Join(root, id)
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(g.dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
		return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
	}))
	return g
}

// TestGoSessionRealStoreOneSummaryPerRun: the store Goat's own code wrote
// (../shared/realdata/go-session) finishes whole: every journal ends
// "session ended"; one summary ships per run metadata.json describes, with
// that run's cost (the subagent's adds nothing: its parent's run counts
// it), and the checkpoint once. Then the main session runs again as Goat
// does it: Create rewrites metadata.json (a new created_at), messages are
// appended, the run's end rewrites it and the session-end checkpoint:
// one more summary, with only that run's cost, and one more checkpoint.
func TestGoSessionRealStoreOneSummaryPerRun(t *testing.T) {
	root := realdata.Dir(t, "go-session")
	ctx := context.Background()
	e := newEnv(t)
	f := e.finalizer(t, nil, nil)
	ids := []string{"aeed4273-5dec-43f9-a8f1-548160eefd91", "0abf2b7b-8d69-4da7-a4c8-26810e7f9855", "b1937e09-1ec4-420e-b2b4-0867c82db2fd"}
	var main goSession
	for i, id := range ids {
		g := e.copyRealSession(t, root, id)
		if i == 0 {
			main = g
		}
		for _, p := range []string{g.messages, g.transcript} {
			if _, err := os.Stat(p); err != nil {
				continue
			}
			o, err := f.File(ctx, p)
			require.NoError(t, err)
			assert.True(t, o.Finished, p)
			assert.Equal(t, "session ended", o.Why, p)
		}
	}
	q := &lokiquery.Client{URL: e.loki.URL}
	from, to := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC), e.now.Add(time.Minute)
	costs := func(want int) map[string][]string {
		t.Helper()
		sums, err := q.WaitFor(ctx, `{service_name="agent-sessions", event_type="metadata"}`, from, to, want, 20*time.Second)
		require.NoError(t, err)
		require.Len(t, sums, want, "one summary per run")
		out := map[string][]string{}
		for _, s := range sums {
			id := s.Metadata["session_id"]
			out[id] = append(out[id], s.Metadata["cost_usd"]+"/"+s.Metadata["reported_cost_usd"]+"/"+s.Metadata["annotations"])
		}
		return out
	}
	assert.Equal(t, map[string][]string{
		ids[0]: {"0.01269/0.01269/"},
		ids[1]: {"0/0.054195/cost_in_parent"},
		ids[2]: {"0.008625/0.008625/"},
	}, costs(3), "each run's cost once; the resumed session's first run was overwritten before this finalizer ran")

	// The main session's next run.
	start := e.now.Add(-10 * time.Minute).UTC()
	goat := func(created, updated time.Time, cost float64, exit string) string {
		return fmt.Sprintf(`{
  "id": %q,
  "cwd": "/home/dev/app",
  "model": "claude-sonnet-4-5-20250929",
  "created_at": %q,
  "updated_at": %q,
  "message_count": 14,
  "turn_count": 1,
  "total_cost_usd": %v%s
}`, ids[0], created.Format(time.RFC3339Nano), updated.Format(time.RFC3339Nano), cost, exit)
	}
	meta := filepath.Join(main.dir, "metadata.json")
	require.NoError(t, os.WriteFile(meta, []byte(goat(start, start, 0, "")), 0o644))
	o, err := f.File(ctx, main.messages)
	require.NoError(t, err)
	assert.Equal(t, "already finished", o.Why)
	ts := func(d time.Duration) string { return start.Add(d).Format(time.RFC3339Nano) }
	mf, err := os.OpenFile(main.messages, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(mf, "{\"uuid\":\"r3-u\",\"timestamp\":%q,\"message\":{\"role\":\"user\",\"content\":\"run the tests\"}}\n"+
		"{\"uuid\":\"r3-a\",\"timestamp\":%q,\"message\":{\"role\":\"assistant\",\"content\":\"They pass.\"}}\n", ts(time.Second), ts(2*time.Second))
	require.NoError(t, err)
	require.NoError(t, mf.Close())
	require.NoError(t, os.WriteFile(meta, []byte(goat(start, start.Add(3*time.Second), 0.0211, `,
  "exit_reason": "end_turn"`)), 0o644))
	cp := filepath.Join(main.dir, "checkpoints", "session-end", "manifest.json")
	require.NoError(t, os.WriteFile(cp, []byte(fmt.Sprintf(`{"user_message_uuid":"session-end","created_at":%q,"files":[]}`, ts(4*time.Second))), 0o644))
	o, err = f.File(ctx, main.messages)
	require.NoError(t, err)
	assert.True(t, o.Finished, "the new run ended too")

	got := costs(4)
	assert.ElementsMatch(t, []string{"0.01269/0.01269/", "0.0211/0.0211/"}, got[ids[0]], "the new run's own cost, not a growth")
	cps, err := q.WaitFor(ctx, `{service_name="agent-sessions", event_type="checkpoint"}`, from, to, 2, 20*time.Second)
	require.NoError(t, err)
	assert.Len(t, cps, 2, "session-end rewritten: one checkpoint per version")
}
