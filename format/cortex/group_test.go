package cortex

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var _ format.GroupEnder = (*Format)(nil)

// event renders one journal event at time at.
func event(typ string, at time.Time, extra string) string {
	s := `{"type":"` + typ + `","timestamp":"` + at.UTC().Format("2006-01-02T15:04:05.000Z") + `","job_id":"j","session_id":"s","seq":0`
	if extra != "" {
		s += "," + extra
	}
	return s + "}\n"
}

// sessionLines is a session that started at start and, when reason is not
// "", ended with it at end.
func sessionLines(start, end time.Time, reason string) string {
	s := event("SESSION_START", start, `"agent_id":"a"`) + event("LLM_REQUEST", start.Add(time.Second), "")
	if reason != "" {
		s += event("SESSION_END", end, `"reason":"`+reason+`"`)
	}
	return s
}

// TestGroupEndByTheLatestSession: the latest session's last line says
// whether the job is over for good; a pause, an unknown reason, a torn or
// missing end is not, and neither is an older session's end.
func TestGroupEndByTheLatestSession(t *testing.T) {
	end := time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, tail string
		terminal   bool
		status     string
	}{
		{"completed", event("SESSION_END", end, `"reason":"completed"`), true, "completed"},
		{"failed", event("SESSION_END", end, `"reason":"failed"`), true, "failed"},
		{"cancelled", event("SESSION_END", end, `"reason":"cancelled"`), true, "cancelled"},
		{"paused", event("SESSION_END", end, `"reason":"approval_pause"`), false, "approval_pause"},
		{"unknown reason", event("SESSION_END", end, `"reason":"exploded"`), false, "exploded"},
		{"no end", event("LLM_REQUEST", end, ""), false, Running},
		{"torn end", `{"type":"SESSION_END","timestamp":"2026-03-01T11:00:00.000Z","rea`, false, Running},
		{"corrupt end", "{not json\n", false, Running},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "job1")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			older := sessionLines(end.Add(-3*time.Hour), end.Add(-2*time.Hour), "completed")
			require.NoError(t, os.WriteFile(filepath.Join(dir, "session_20260301T080000Z_p.jsonl"), []byte(older), 0o644))
			latest := sessionLines(end.Add(-time.Hour), time.Time{}, "") + c.tail
			require.NoError(t, os.WriteFile(filepath.Join(dir, "session_20260301T100000Z_p.jsonl"), []byte(latest), 0o644))
			st, err := New().GroupEnd(dir)
			require.NoError(t, err)
			assert.Equal(t, c.terminal, st.Terminal)
			assert.Equal(t, c.status, st.Status)
			if c.terminal {
				assert.True(t, st.FinishedAt.Equal(end), "finished at the end line's time: %v", st.FinishedAt)
			} else {
				assert.True(t, st.FinishedAt.IsZero())
			}
		})
	}
}

// TestGroupEndWithoutSessions: a directory with no session file (only
// other files, a symlink named like one) is a job that has not ended; one
// that cannot be listed is an error.
func TestGroupEndWithoutSessions(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.jsonl"), []byte(event("SESSION_END", time.Now(), `"reason":"completed"`)), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "notes.jsonl"), filepath.Join(dir, "session_20260301T100000Z_p.jsonl")))
	st, err := New().GroupEnd(dir)
	require.NoError(t, err)
	assert.Equal(t, format.GroupState{Status: "no session file"}, st)
	_, err = New().GroupEnd(filepath.Join(dir, "missing"))
	assert.Error(t, err)
}

func TestIsSessionFile(t *testing.T) {
	assert.True(t, IsSessionFile("session_20260223T143022Z_pod.jsonl"))
	assert.False(t, IsSessionFile("session_x.log"))
	assert.False(t, IsSessionFile("notes.jsonl"))
}
