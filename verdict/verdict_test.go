package verdict

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/internal/sample/kinds"
	"github.com/journalship/journalship/journalfile"
)

// judgeAt returns a judge whose clock reads now, with groups.
func judgeAt(t *testing.T, now time.Time, groups format.GroupStatus) *Judge {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Now = func() time.Time { return now }
	j, err := New(cfg, groups, nil)
	require.NoError(t, err)
	return j
}

func TestConfig(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	for _, bad := range []func(*Config){
		func(c *Config) { c.Quiet = -1 },
		func(c *Config) { c.Idle = -1 },
		func(c *Config) { c.Now = nil },
		func(c *Config) { c.Audit.FileSizeAlert = 0 },
	} {
		c := DefaultConfig()
		bad(&c)
		_, err := New(c, nil, nil)
		assert.Error(t, err)
	}
}

// TestEveryFormatsCorpus: on every registered format's generated corpus,
// the verdict keeps its promises whatever the format. A file is never
// finished while it is being written unless its own lines end it, and
// then its session is over. Once quiet, an over session of a format
// that writes no end is finished, and over from Quiet after its last
// write; any other over session from its last write. The session's
// facts are the audit's.
func TestEveryFormatsCorpus(t *testing.T) {
	ctx := context.Background()
	reg, err := registry.New(registry.DefaultConfig())
	require.NoError(t, err)
	for _, d := range registry.Descriptors() {
		t.Run(d.Name, func(t *testing.T) {
			k, ok := kinds.Lookup(d.Name)
			require.True(t, ok)
			c, err := k.Fixture()
			require.NoError(t, err)
			root := filepath.Join(t.TempDir(), k.DemoRoot)
			require.NoError(t, c.WriteTo(root))
			overs := 0
			for _, f := range c.Files {
				path := filepath.Join(root, filepath.FromSlash(f.Rel))
				fm := reg.Detect(path, nil).Format
				require.Equal(t, d.Name, fm.Name(), f.Rel)
				tail, err := journalfile.ReadTail(path, 1<<20)
				require.NoError(t, err)

				session, err := judgeAt(t, tail.ModTime, nil).Session(path, fm, time.Time{})
				require.NoError(t, err)
				rep, err := audit.FileAs(path, audit.DefaultConfig(), fm)
				require.NoError(t, err)
				assert.True(t, session.Judged, f.Rel)
				assert.Equal(t, rep.SessionEnded, session.Over, f.Rel)
				assert.Equal(t, rep.SessionEnded && rep.Terminal, session.Terminal, f.Rel)
				assert.Equal(t, rep.Unfinished, session.Open, f.Rel)

				fresh, err := judgeAt(t, tail.ModTime, nil).Of(ctx, path, fm, tail)
				require.NoError(t, err)
				if fresh.Finished {
					assert.Equal(t, WhyEnded, fresh.Why, "%s: finished while written only by its own end", f.Rel)
					assert.True(t, session.Over, f.Rel)
				}

				quiet := tail.ModTime.Add(DefaultConfig().Quiet)
				later, err := judgeAt(t, quiet, nil).Of(ctx, path, fm, tail)
				require.NoError(t, err)
				if fresh.Finished {
					assert.True(t, later.Finished, "%s: finished stays finished", f.Rel)
				}
				if !session.Over {
					continue
				}
				overs++
				if d.End == format.EndQuiet {
					assert.True(t, later.Finished, "%s: idle and quiet", f.Rel)
					assert.Equal(t, quiet, session.When, f.Rel)
				} else {
					assert.Equal(t, tail.ModTime, session.When, f.Rel)
				}
				newer := tail.ModTime.Add(time.Hour) // a member journal written later
				s2, err := judgeAt(t, tail.ModTime, nil).Session(path, fm, newer)
				require.NoError(t, err)
				assert.Equal(t, session.When.Add(time.Hour), s2.When, "%s: counted from the session's last write", f.Rel)
			}
			assert.Positive(t, overs, "the corpus has a session that is over")
		})
	}
}

// The lines of a Cortex Plane session: its start, and its end when reason
// is not "".
func cortexSession(job, reason string) string {
	s := `{"type":"SESSION_START","timestamp":"2026-03-01T10:00:00.000Z","job_id":"` + job + `","session_id":"s","seq":0,"agent_id":"a"}` + "\n"
	if reason != "" {
		s += `{"type":"SESSION_END","timestamp":"2026-03-01T11:00:00.000Z","job_id":"` + job + `","session_id":"s","seq":1,"reason":"` + reason + `","total_events":2}` + "\n"
	}
	return s
}

// TestGroupRule: once quiet, a journal in a job directory is finished
// when its job is terminal, by its journals (the latest session ended
// for good) or by a job status source; a stray file the job directory
// holds too; never a journal that is a group of its own (a Codelia run),
// whatever a source says of its directory, nor a journal still written.
func TestGroupRule(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	old := now.Add(-time.Hour)
	root := t.TempDir()
	// job1: an older session that crashed, a later one that completed,
	// and a stray file.
	crashed := write(t, filepath.Join(root, "sessions", "job1", "session_20260301T090000Z_p.jsonl"), cortexSession("job1", ""), old)
	write(t, filepath.Join(root, "sessions", "job1", "session_20260301T100000Z_p.jsonl"), cortexSession("job1", "completed"), old)
	stray := write(t, filepath.Join(root, "sessions", "job1", "aaa-notes.jsonl"), `{"note":"kept by an operator"}`+"\n", old)
	// job2: its only session paused.
	paused := write(t, filepath.Join(root, "sessions", "job2", "session_20260301T100000Z_p.jsonl"), cortexSession("job2", "approval_pause")+`{"type":"LLM_REQUEST","timestamp":"2026-03-01T11:00:01.000Z","job_id":"job2","session_id":"s","seq":2}`+"\n", old)
	run := write(t, filepath.Join(root, "codelia", "sessions", "2026", "03", "01", "run1.jsonl"),
		`{"type":"header","schema_version":1,"run_id":"run1","session_id":"s","started_at":"2026-03-01T10:00:00.000Z"}`+"\n", old)
	// A stray file beside OrbitMesh session logs, each a run of its own.
	write(t, filepath.Join(root, "orbitmesh", "sessions", "s1.messages.jsonl"), `{"id":"m1","session_id":"s1","seq":1,"type":"message.user","created_at":"2026-03-01T10:00:00.000Z","content":"hi"}`+"\n", old)
	strayRun := write(t, filepath.Join(root, "orbitmesh", "sessions", "zz-notes.jsonl"), `{"note":1}`+"\n", old)
	reg, err := registry.New(registry.DefaultConfig())
	require.NoError(t, err)
	terminal := fixedGroups{Terminal: true, Status: "COMPLETED"}
	running := fixedGroups{Status: "RUNNING"}
	for _, c := range []struct {
		name, path string
		groups     format.GroupStatus
		why        string
	}{
		{"older session, its job completed by its journals", crashed, nil, WhyNewer},
		{"stray file, its job completed by its journals", stray, nil, WhyGroupEnded},
		{"stray file, the source says running", stray, running, ""},
		{"paused job, its journals", paused, nil, ""},
		{"paused job, the source says terminal", paused, terminal, WhyGroupEnded},
		{"a run, the source says its directory is terminal", run, terminal, ""},
		{"a stray file among runs, the source says terminal", strayRun, terminal, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fm := reg.Detect(c.path, nil).Format
			tail, err := journalfile.ReadTail(c.path, 1<<20)
			require.NoError(t, err)
			v, err := judgeAt(t, now, c.groups).Of(ctx, c.path, fm, tail)
			require.NoError(t, err)
			assert.Equal(t, c.why, v.Why)
			assert.Equal(t, c.why != "", v.Finished)
			// Still written: only its own end could finish it.
			v, err = judgeAt(t, old.Add(time.Minute), c.groups).Of(ctx, c.path, fm, tail)
			require.NoError(t, err)
			assert.False(t, v.Finished, v.Why)
		})
	}
}

// TestGroupState: a group's state comes from the configured source when
// there is one, else from the journals that claim its directory, found
// with the judge's formats (a forced format included); a directory no
// journal claims has not ended.
func TestGroupState(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "job1")
	write(t, filepath.Join(dir, "session_20260301T100000Z_p.jsonl"), cortexSession("job1", "completed"), time.Now())
	st, err := judgeAt(t, time.Now(), nil).Group(ctx, dir)
	require.NoError(t, err)
	assert.True(t, st.Terminal)
	assert.Equal(t, "completed", st.Status)
	assert.True(t, st.FinishedAt.Equal(time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)))

	st, err = judgeAt(t, time.Now(), fixedGroups{Status: "RUNNING"}).Group(ctx, dir)
	require.NoError(t, err)
	assert.Equal(t, format.GroupState{Status: "RUNNING"}, st)

	forced, err := registry.New(registry.Config{Format: "cortex"})
	require.NoError(t, err)
	cfg := DefaultConfig()
	j, err := New(cfg, nil, func(p string) format.Format { return forced.Detect(p, nil).Format })
	require.NoError(t, err)
	st, err = j.Group(ctx, dir)
	require.NoError(t, err)
	assert.True(t, st.Terminal, "the format named by the Format setting")

	empty := t.TempDir()
	write(t, filepath.Join(empty, "notes.jsonl"), "{}\n", time.Now())
	st, err = judgeAt(t, time.Now(), nil).Group(ctx, empty)
	require.NoError(t, err)
	assert.Equal(t, format.GroupState{Status: NoGroupJournal}, st)
}

type fixedGroups format.GroupState

func (g fixedGroups) Group(context.Context, string) (format.GroupState, error) {
	return format.GroupState(g), nil
}

// write writes content at path with mtime.
func write(t *testing.T, path, content string, mtime time.Time) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	require.NoError(t, os.Chtimes(path, mtime, mtime))
	return path
}
