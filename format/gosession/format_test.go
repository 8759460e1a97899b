package gosession

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/codelia"
	"github.com/journalship/journalship/format/cortex"
	"github.com/journalship/journalship/format/orbitmesh"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	_ format.Format    = (*Format)(nil)
	_ format.SideFiles = (*State)(nil)
)

func TestConfig(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	assert.Equal(t, Config{MaxTrackedIDs: 1 << 20, MaxOpenCalls: 1024, MaxMetadataBytes: 1 << 20, MaxParentScanBytes: 64 << 20}, DefaultConfig())
	for _, bad := range []Config{
		{MaxOpenCalls: 1, MaxMetadataBytes: 1},
		{MaxTrackedIDs: 1, MaxMetadataBytes: 1},
		{MaxTrackedIDs: 1, MaxOpenCalls: 1},
		{MaxTrackedIDs: -1, MaxOpenCalls: 1, MaxMetadataBytes: 1},
		{MaxTrackedIDs: 1, MaxOpenCalls: 1, MaxMetadataBytes: 1, MaxParentScanBytes: -1},
	} {
		assert.Error(t, bad.Validate(), "%+v", bad)
		_, err := NewWith(bad)
		assert.Error(t, err)
	}
	f, err := NewWith(Config{MaxTrackedIDs: 2, MaxOpenCalls: 3, MaxMetadataBytes: 4})
	require.NoError(t, err)
	assert.Equal(t, Config{MaxTrackedIDs: 2, MaxOpenCalls: 3, MaxMetadataBytes: 4}, f.Config())
}

func TestDescription(t *testing.T) {
	f := New()
	assert.Equal(t, "go-session", f.Name())
	assert.Equal(t, []string{"user", "assistant", "tool", "system", "transcript", "metadata", "checkpoint"}, f.EventTypes())
	f.EventTypes()[0] = "changed"
	assert.Equal(t, "user", f.EventTypes()[0], "callers get a copy")
	assert.Equal(t, []string{"uuid_repeat", "timestamp_regression", "tool_result_without_call",
		"metadata_id_mismatch", "cost_includes_parent", "cost_in_parent"}, f.Annotations())
	f.Annotations()[0] = "changed"
	assert.Equal(t, NoteUUIDRepeat, f.Annotations()[0])
	assert.NotEmpty(t, f.Layouts())
	assert.Equal(t, format.SeqRule{Used: false}, f.Seq())
	assert.Equal(t, format.ScopeAllLines, f.Scope())
	assert.Equal(t, "", Journal(9).String())
	assert.Equal(t, "messages.jsonl", Messages.String())
	assert.Equal(t, "transcript.jsonl", Transcript.String())
}

// claudeCode are first lines of Claude Code transcripts (docs/formats/
// claude-code.md): none is this format's.
var claudeCode = []string{
	`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/app","sessionId":"0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","version":"2.1.90","type":"user","message":{"role":"user","content":"hi"},"uuid":"6f0c2a9e-8d41-4b7a-a1e3-2c5d9f0b7e14","timestamp":"2026-03-02T10:00:03.512Z"}`,
	`{"parentUuid":"6f0c2a9e-8d41-4b7a-a1e3-2c5d9f0b7e14","sessionId":"0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[]},"uuid":"9a7e3b10-5c2d-4e8f-b6a9-0d1e2f3a4b5c","timestamp":"2026-03-02T10:00:05Z"}`,
	`{"parentUuid":null,"sessionId":"0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","type":"system","subtype":"compact_boundary","uuid":"9a7e3b10-5c2d-4e8f-b6a9-0d1e2f3a4b5c","timestamp":"2026-03-02T10:00:05Z"}`,
	`{"type":"summary","summary":"Fixing the login test","leafUuid":"9a7e3b10-5c2d-4e8f-b6a9-0d1e2f3a4b5c"}`,
	`{"type":"file-history-snapshot","messageId":"6f0c2a9e-8d41-4b7a-a1e3-2c5d9f0b7e14","snapshot":{"timestamp":"2026-03-02T10:00:03Z"},"isSnapshotUpdate":false}`,
	`{"type":"queue-operation","operation":"enqueue","sessionId":"0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","timestamp":"2026-03-02T10:00:03Z","content":"next"}`,
	`{"type":"pr-link","sessionId":"0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","prNumber":7,"timestamp":"2026-03-02T10:00:03Z"}`,
}

func TestSniff(t *testing.T) {
	f := New()
	for _, l := range []string{
		valid[TypeUser], valid[TypeAssistant], valid[TypeTool], valid[TypeSystem],
		`{"role":"user","uuid":"x"}`,
		`{"type":"system","subtype":"init","session_id":"s","model":"m"}`,
		`{"type":"assistant","uuid":"u","message":{"role":"assistant","content":[]}}`,
		`{"type":"result","subtype":"success","session_id":"s","total_cost_usd":0.1}`,
		`{"type":"stream_event","session_id":"s","event":{}}`,
	} {
		assert.True(t, f.Sniff([]byte(l)), l)
	}
	for _, l := range append([]string{
		`{"role":"user","content":"no uuid"}`,
		`{"role":"user","uuid":""}`,
		`{"role":"developer","uuid":"x"}`,
		`{"role":5,"uuid":"x"}`,
		`{"type":"system","subtype":"init"}`,
		`{"type":"header","session_id":"s"}`,
		`{"type":"result","session_id":5}`,
		`{"type":"user","sessionId":"s","session_id":"s"}`,
		`{"type":"user","parentUuid":null,"uuid":"u"}`,
		`not json`, ``, `[1]`,
	}, claudeCode...) {
		assert.False(t, f.Sniff([]byte(l)), l)
	}
}

// TestSniffAgainstTheOtherFormats: no first line of another format's
// testdata is this format's, and none of this format's is theirs.
func TestSniffAgainstTheOtherFormats(t *testing.T) {
	f := New()
	others := []format.Format{codelia.New(), orbitmesh.New(), cortex.New()}
	var foreign []string
	for _, pattern := range []string{"../codelia/testdata/*.jsonl", "../orbitmesh/testdata/*.messages.jsonl"} {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		require.NotEmpty(t, files, pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			for l := range bytes.SplitSeq(data, []byte("\n")) {
				foreign = append(foreign, string(l))
			}
		}
	}
	foreign = append(foreign,
		`{"type":"SESSION_START","timestamp":"2026-02-03T12:00:00Z","job_id":"0b0e6a66-6a8e-4c48-9d6c-3d6a4f0e7a11","session_id":"s","agent_id":"a","seq":0,"schema_version":1}`,
		`{"type":"LLM_RESPONSE","timestamp":"2026-02-03T12:00:01Z","job_id":"j","session_id":"s","seq":1}`)
	for _, l := range foreign {
		assert.False(t, f.Sniff([]byte(l)), l)
	}
	files, err := filepath.Glob("testdata/sessions/*/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			for _, o := range others {
				assert.False(t, o.Sniff(l), "%s sniffs %s", o.Name(), l)
			}
		}
	}
}
