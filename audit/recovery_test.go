package audit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crash is a session that dies in step 1: one tool call finished before
// the checkpoint, two after it, two started and never finished, and a
// TOOL_RESULT cut mid-write.
func crash() (string, map[string]int64) {
	lines := []string{
		sessionStart(0),
		checkpointLoaded(1),
		llmRequest(2, 0),
		toolStart(3, inv(1), "read_file", false),
		toolResult(4, inv(1), "read_file", true),
		checkpointWritten(5, ckpt1, 0),
		llmRequest(6, 1),
		toolStart(7, inv(2), "write_file", true),
		toolResult(8, inv(2), "write_file", true),
		toolStart(9, inv(3), "deploy_service", true),
		toolResult(10, inv(3), "deploy_service", false), // failed, but completed
		toolStart(11, inv(4), "kubectl_apply", true),
		toolStart(12, inv(5), "read_file", false),
	}
	content := journal(lines...) + `{"type":"TOOL_RESULT","timestamp":"2026-02-23T14:30:22.123Z","inv`
	offsets := map[string]int64{}
	var off int64
	for i, l := range lines {
		offsets[string(rune('a'+i))] = off
		off += int64(len(l)) + 1
	}
	offsets["tail"] = off
	return content, offsets
}

func TestRecoveryFactsOfACrash(t *testing.T) {
	content, off := crash()
	r := auditString(t, content, DefaultConfig())

	require.NotNil(t, r.LastCheckpoint)
	assert.Equal(t, Checkpoint{ID: ckpt1, Step: 0, Seq: 5, Offset: off["f"]}, *r.LastCheckpoint)
	assert.Equal(t, []string{inv(2), inv(3)}, r.CompletedAfterCheckpoint, "the Phase-2 skip list")
	assert.Equal(t, []ToolCall{
		{InvocationID: inv(4), ToolName: "kubectl_apply", SideEffect: true, Offset: off["l"]},
		{InvocationID: inv(5), ToolName: "read_file", SideEffect: false, Offset: off["m"]},
	}, r.StartedNotFinished)
	assert.False(t, r.SessionEnded)
	assert.True(t, r.TailTruncated)
	assert.Equal(t, off["tail"], r.TailOffset)
	assert.Equal(t, SeverityTruncatedTail, r.Severity)
	assert.True(t, r.UsableForRecovery)
	assert.Equal(t, Warning, r.Level())
}

func TestRecoveryUsesTheLastCheckpoint(t *testing.T) {
	content := journal(
		sessionStart(0),
		toolStart(1, inv(1), "bash", true),
		toolResult(2, inv(1), "bash", true),
		checkpointWritten(3, ckpt1, 0),
		toolStart(4, inv(2), "bash", true),
		toolResult(5, inv(2), "bash", true),
		toolResult(6, inv(2), "bash", true), // a repeated result is listed once
		checkpointWritten(7, ckpt2, 1),
		toolStart(8, inv(3), "bash", false),
		toolResult(9, inv(3), "bash", true),
	)
	r := auditString(t, content, DefaultConfig())
	require.NotNil(t, r.LastCheckpoint)
	assert.Equal(t, ckpt2, r.LastCheckpoint.ID)
	assert.Equal(t, int64(1), r.LastCheckpoint.Step)
	assert.Equal(t, []string{inv(3)}, r.CompletedAfterCheckpoint)
	assert.Empty(t, r.StartedNotFinished)
}

func TestRecoveryWithoutACheckpointHasNoSkipList(t *testing.T) {
	// The seed: "Mismatch or not found -> Phase 1 only".
	content := journal(sessionStart(0), toolStart(1, inv(1), "bash", true), toolResult(2, inv(1), "bash", true),
		toolStart(3, inv(2), "deploy_service", true))
	r := auditString(t, content, DefaultConfig())
	assert.Nil(t, r.LastCheckpoint)
	assert.Empty(t, r.CompletedAfterCheckpoint)
	assert.Equal(t, []ToolCall{{InvocationID: inv(2), ToolName: "deploy_service", SideEffect: true, Offset: int64(len(journal(sessionStart(0), toolStart(1, inv(1), "bash", true), toolResult(2, inv(1), "bash", true))))}}, r.StartedNotFinished)
}

func TestRecoveryIgnoresLinesTheSeedRefuses(t *testing.T) {
	// A CHECKPOINT_WRITTEN whose last "type" is not a string is corrupt for
	// the seed: recovery does not see it.
	bad := strings.TrimSuffix(checkpointWritten(3, ckpt2, 1), "}") + `,"type":null}`
	lines := with(head10(), []string{checkpointWritten(10, ckpt1, 0), bad, toolResult(12, inv(1), "bash", true), errorEvent(13)})
	r := auditString(t, journal(lines...), DefaultConfig())
	require.NotNil(t, r.LastCheckpoint)
	assert.Equal(t, ckpt1, r.LastCheckpoint.ID)
	assert.Equal(t, []string{inv(1)}, r.CompletedAfterCheckpoint)
	assert.Equal(t, 1, r.CorruptLines)
}
