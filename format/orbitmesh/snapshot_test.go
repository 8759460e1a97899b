package orbitmesh

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specSnapshot is the snapshot of docs/formats/orbitmesh.md.
const specSnapshot = `{
  "id": "sess_123",
  "title": "Fix flaky test",
  "working_dir": "/repo",
  "provider": {"type": "native", "model": "gpt-5.3-codex"},
  "created_at": "2026-02-21T10:00:00Z",
  "updated_at": "2026-02-21T10:03:14Z",
  "last_seq": 148,
  "run": {
    "run_id": "run_9f5",
    "boot_id": "boot_20260221_1",
    "started_at": "2026-02-21T10:01:03Z",
    "ended_at": null,
    "wait": {
      "kind": "tool_result",
      "since_seq": 146,
      "resume_token_id": "rt_5f0",
      "deadline_at": "2026-02-21T10:11:03Z"
    }
  },
  "recovery": {
    "last_boot_seen": "boot_20260221_1",
    "interruption": null
  }
}
`

// session writes a session's files under dir/sessions (nil: not written)
// and returns the log's path.
func session(t *testing.T, meta, tokens []byte) string {
	dir := filepath.Join(t.TempDir(), "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	log := filepath.Join(dir, "sess_123.messages.jsonl")
	c := Companions(log)
	if meta != nil {
		require.NoError(t, os.WriteFile(c[0], meta, 0o644))
	}
	if tokens != nil {
		require.NoError(t, os.WriteFile(c[1], tokens, 0o644))
	}
	return log
}

func TestReadSnapshot(t *testing.T) {
	s := ReadSnapshot(session(t, []byte(specSnapshot), []byte(`{"rt_5f0":{"state":"active","expires_at":"2026-02-21T10:11:03Z"},"rt_4a1":{"status":"Consumed"}}`)))
	deadline := time.Date(2026, 2, 21, 10, 11, 3, 0, time.UTC)
	assert.Equal(t, Snapshot{Read: true, Model: "gpt-5.3-codex", HasModel: true, RunID: "run_9f5", HasRunID: true,
		BootID: "boot_20260221_1", HasBoot: true, LastBootSeen: "boot_20260221_1", HasLastBootSeen: true,
		WaitToken: "rt_5f0", HasWaitToken: true, WaitDeadline: deadline, HasWaitDeadline: true,
		LastSeq: 148, HasLastSeq: true, HasTokens: true, Tokens: map[string]Token{
			"rt_5f0": {State: TokenActive, ExpiresAt: deadline, HasExpiry: true},
			"rt_4a1": {State: TokenConsumed},
		}}, s)
}

func TestReadSnapshotUnknown(t *testing.T) {
	huge := []byte(`{"last_seq":1,"pad":"` + strings.Repeat("x", MaxSnapshotBytes) + `"}`)
	cases := []struct {
		name         string
		meta, tokens []byte
	}{
		{"absent", nil, nil},
		{"empty", []byte{}, []byte{}},
		{"half-written", []byte(specSnapshot[:len(specSnapshot)/2]), []byte(`{"rt_5f0":{"sta`)},
		{"invalid JSON", []byte(`{"last_seq":148,}`), []byte(`[{"id":"rt"},]`)},
		{"two values", []byte(`{"last_seq":148}{"last_seq":149}`), []byte(`{} []`)},
		{"not an object", []byte(`[1,2]`), []byte(`"rt_5f0"`)},
		{"null", []byte(`null`), []byte(`null`)},
		{"huge", huge, huge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, Snapshot{}, ReadSnapshot(session(t, c.meta, c.tokens)))
		})
	}
	assert.Equal(t, Snapshot{}, ReadSnapshot("/nonexistent/x.messages.jsonl"))
	assert.Equal(t, Snapshot{}, ReadSnapshot("/nonexistent/x.json"))

	// A directory where a file should be.
	log := session(t, nil, nil)
	require.NoError(t, os.Mkdir(Companions(log)[0], 0o755))
	assert.Equal(t, Snapshot{}, ReadSnapshot(log))
}

func TestParseSnapshotWrongTypes(t *testing.T) {
	s := ParseSnapshot([]byte(`{"provider":"gpt","last_seq":"148","run":{"run_id":5,"boot_id":"","ended_at":false,
		"wait":{"resume_token_id":null,"deadline_at":"soon"}},"recovery":[]}`), []byte(`{"tokens":"x"}`))
	assert.Equal(t, Snapshot{Read: true, HasTokens: true, Tokens: map[string]Token{}}, s,
		"every field unknown; an object without entries is an empty index")

	for _, n := range []string{`-1`, `1.5`, `1e30`, `99999999999999999999`} {
		s = ParseSnapshot([]byte(`{"last_seq":`+n+`}`), nil)
		assert.False(t, s.HasLastSeq, n)
	}
	s = ParseSnapshot([]byte(`{"last_seq":1e2,"run":{"ended_at":"2026-02-21T10:05:00Z"}}`), nil)
	assert.False(t, s.HasLastSeq, "1e2 is not read as an integer")
	assert.True(t, s.RunEnded)
}

func TestParseTokens(t *testing.T) {
	cases := []struct {
		name, tokens string
		want         map[string]Token
	}{
		{"object", `{"a":{"state":"active"},"b":{"status":"revoked"},"c":{"state":"expired"},"d":{"state":"weird"},"e":5}`,
			map[string]Token{"a": {State: TokenActive}, "b": {State: TokenRevoked}, "c": {State: TokenExpired}, "d": {}}},
		{"list", `[{"id":"a","state":"consumed"},{"token_id":"b","status":"minted"},{"resume_token_id":"c"},{"state":"active"},7]`,
			map[string]Token{"a": {State: TokenConsumed}, "b": {State: TokenActive}, "c": {}}},
		{"wrapped list", `{"version":1,"tokens":[{"id":"a","state":"revoked","expires_at":5}]}`,
			map[string]Token{"a": {State: TokenRevoked}}},
		{"wrapped object", `{"tokens":{"a":{"state":"ACTIVE"}}}`, map[string]Token{"a": {State: TokenActive}}},
		{"empty", `[]`, map[string]Token{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ParseSnapshot(nil, []byte(c.tokens))
			assert.False(t, s.Read)
			assert.True(t, s.HasTokens)
			assert.Equal(t, c.want, s.Tokens)
		})
	}
	var b strings.Builder
	b.WriteString("[")
	for i := range MaxTokens + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id":"t` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `_` + strconv.Itoa(i) + `"}`)
	}
	b.WriteString("]")
	s := ParseSnapshot(nil, []byte(b.String()))
	assert.Len(t, s.Tokens, MaxTokens)
	assert.True(t, s.TokensTruncated)
	assert.Equal(t, "revoked", TokenRevoked.String())
	assert.Equal(t, "unknown", TokenState(99).String())
}
