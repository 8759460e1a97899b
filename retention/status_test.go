package retention

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJournalStatusByTheFormatsJudge: the latest session's last line,
// judged by its format, says whether the job is over for good; a pause, an
// unknown reason, a torn or missing end is not.
func TestJournalStatusByTheFormatsJudge(t *testing.T) {
	end := time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, tail string
		terminal   bool
		status     string
	}{
		{"completed", line("SESSION_END", end, `"reason":"completed"`), true, "completed"},
		{"failed", line("SESSION_END", end, `"reason":"failed"`), true, "failed"},
		{"cancelled", line("SESSION_END", end, `"reason":"cancelled"`), true, "cancelled"},
		{"paused", line("SESSION_END", end, `"reason":"approval_pause"`), false, "approval_pause"},
		{"unknown reason", line("SESSION_END", end, `"reason":"exploded"`), false, "exploded"},
		{"no end", line("LLM_REQUEST", end, ""), false, "running, its latest session has not ended"},
		{"torn end", `{"type":"SESSION_END","timestamp":"2026-03-01T11:00:00.000Z","rea`, false, "running, its latest session has not ended"},
		{"corrupt end", "{not json\n", false, "running, its latest session has not ended"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "job1")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			// An older session that ended does not end the job.
			older := session(end.Add(-3*time.Hour), end.Add(-2*time.Hour), "completed")
			require.NoError(t, os.WriteFile(filepath.Join(dir, "session_20260301T080000Z_p.jsonl"), []byte(older), 0o644))
			latest := session(end.Add(-time.Hour), time.Time{}, "") + c.tail
			require.NoError(t, os.WriteFile(filepath.Join(dir, "session_20260301T100000Z_p.jsonl"), []byte(latest), 0o644))
			st, err := JournalStatus{}.Job(context.Background(), dir)
			require.NoError(t, err)
			assert.Equal(t, c.terminal, st.Terminal)
			assert.Equal(t, c.status, st.Status)
			if c.terminal {
				assert.True(t, st.FinishedAt.Equal(end), "finished at the end line's time: %v", st.FinishedAt)
			}
		})
	}
}
