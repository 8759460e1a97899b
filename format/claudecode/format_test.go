package claudecode

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	_ format.Format     = (*Format)(nil)
	_ format.State      = (*State)(nil)
	_ format.SideFiles  = (*State)(nil)
	_ format.SessionDir = (*Format)(nil)
)

func TestConfig(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	assert.Equal(t, Config{MaxTrackedIDs: 1 << 17, MaxMainScan: 256 << 20}, DefaultConfig())
	for _, bad := range []Config{
		{MaxTrackedIDs: 0},
		{MaxTrackedIDs: 1, MaxMainScan: -1},
	} {
		assert.Error(t, bad.Validate(), "%+v", bad)
		_, err := NewWith(bad)
		assert.Error(t, err)
	}
	f, err := NewWith(Config{MaxTrackedIDs: 1})
	require.NoError(t, err, "no main scan is fine")
	assert.Equal(t, Config{MaxTrackedIDs: 1}, f.Config())
}

func TestDescription(t *testing.T) {
	f := New()
	assert.Equal(t, "claude-code", f.Name())
	assert.Equal(t, []string{"user", "assistant", "system", "progress", "attachment", "summary", "file-history-snapshot",
		"queue-operation", "custom-title", "ai-title", "agent-name", "last-prompt", "pr-link", "permission-mode",
		"agent-setting", "bridge-session", "worktree-state", "result", "stream_event"}, f.EventTypes())
	f.EventTypes()[0] = "changed"
	assert.Equal(t, "user", f.EventTypes()[0], "callers get a copy")
	assert.Equal(t, []string{"parent_missing", "uuid_repeat", "tool_result_without_call", "session_id_mismatch",
		"agent_id_mismatch", "usage_regression", "response_replayed", "usage_unverified", "unknown_stop_reason",
		"continuity_unverified"}, f.Annotations())
	f.Annotations()[0] = "changed"
	assert.Equal(t, "parent_missing", f.Annotations()[0])
	assert.NotEmpty(t, f.Layouts())
	assert.Equal(t, format.SeqRule{Used: false}, f.Seq())
	assert.Equal(t, format.ScopeAllLines, f.Scope())
}

func TestSniff(t *testing.T) {
	f := New()
	for _, first := range []string{
		valid["user"], valid["assistant"], valid["queue-operation"], valid["summary"], valid["file-history-snapshot"],
		valid["pr-link"], valid["custom-title"], stream["system"],
		`{"type":"user","sessionId":"x"}`,
		`{"type":"brand-new","sessionId":"x"}`,
		`{"type":"summary"}`,
	} {
		assert.True(t, f.Sniff([]byte(first)), first)
	}
	for _, first := range []string{
		`{"type":"user"}`,
		`{"type":"user","sessionId":5}`,
		`{"sessionId":"x"}`,
		`{"type":7,"sessionId":"x"}`,
		`{"type":"assistant","session_id":"x"}`,
		`{"type":"system","session_id":3}`,
		`{"type":"header","schema_version":1,"run_id":"r","session_id":"s"}`,
		`{"seq":0,"ts":"2026-02-21T10:00:00Z","kind":"message.user"}`,
		`{"type":"user","sessionId":"x"`,
		`not json`,
		``,
	} {
		assert.False(t, f.Sniff([]byte(first)), first)
	}
	assert.False(t, f.Sniff(nil))
}
