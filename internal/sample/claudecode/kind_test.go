package claudecode

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestStampClaudeCode: a Claude Code line's own time is its top-level
// timestamp (not the time of the subagent message an agent_progress line
// embeds before it), a file-history-snapshot's snapshot.timestamp; every
// other time moves as much; a line without a time of its own stays.
func TestStampClaudeCode(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 1, 500_000_000, time.UTC)
	progress := `{"parentUuid":"p","type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","uuid":"u1","timestamp":"2026-03-02T10:04:28.732Z"}},"uuid":"u2","timestamp":"2026-03-02T10:04:28.814Z"}`
	got, d := stampLine(progress, at)
	assert.Equal(t, `{"parentUuid":"p","type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","uuid":"u1","timestamp":"2026-03-01T00:00:01.418Z"}},"uuid":"u2","timestamp":"2026-03-01T00:00:01.500Z"}`, got)
	assert.Equal(t, at.Sub(time.Date(2026, 3, 2, 10, 4, 28, 814_000_000, time.UTC)), d)
	back, _ := stampLine(got, time.Date(2026, 3, 2, 10, 4, 28, 814_000_000, time.UTC))
	assert.Equal(t, progress, back)

	snapshot := `{"type":"file-history-snapshot","messageId":"m","snapshot":{"messageId":"m","trackedFileBackups":{"a.go":{"backupFileName":"x@v1","version":1,"backupTime":"2026-03-02T10:04:00.100Z"}},"timestamp":"2026-03-02T10:04:00.806Z"},"isSnapshotUpdate":false}`
	got, _ = stampLine(snapshot, at)
	assert.Equal(t, `{"type":"file-history-snapshot","messageId":"m","snapshot":{"messageId":"m","trackedFileBackups":{"a.go":{"backupFileName":"x@v1","version":1,"backupTime":"2026-03-01T00:00:00.794Z"}},"timestamp":"2026-03-01T00:00:01.500Z"},"isSnapshotUpdate":false}`, got)

	title := `{"type":"custom-title","customTitle":"fix the chart","sessionId":"s"}`
	got, d = stampLine(title, at)
	assert.Equal(t, title, got)
	assert.Zero(t, d)
}
