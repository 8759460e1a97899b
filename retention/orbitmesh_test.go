package retention

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/realdata"
)

// copyTree copies the directory src into dst with every file's mtime set
// to mtime (the real files are read where they are, never written).
func copyTree(t *testing.T, src, dst string, mtime time.Time) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(to, data, 0o644))
		return os.Chtimes(to, mtime, mtime)
	})
	require.NoError(t, err)
}

// TestOrbitMeshRealSessionsDeletedWhole sweeps a copy of the base
// directory OrbitMesh's own storage wrote: each session is over (its
// latest attempt has a terminal reason) and shipped, so its log goes with
// its session document, its attempts directory and its consumed resume
// token; the runtime's sessions directory stays.
func TestOrbitMeshRealSessionsDeletedWhole(t *testing.T) {
	src := realdata.Dir(t, "orbitmesh")
	e := newEnv(t)
	copyTree(t, src, e.root, e.now.Add(-25*time.Hour))
	sessions := filepath.Join(e.root, "sessions")
	logs, err := filepath.Glob(filepath.Join(sessions, "*.messages.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, logs)

	r := e.sweep(nil)
	assert.Zero(t, r.Errors)
	for _, log := range logs {
		id := strings.TrimSuffix(filepath.Base(log), ".messages.jsonl")
		assert.Equal(t, RuleRunOver, decision(t, r, log).Rule, id)
		assert.False(t, exists(log), "%s: the log", id)
		assert.False(t, exists(filepath.Join(sessions, id+".json")), "%s: the session document", id)
		assert.False(t, exists(filepath.Join(sessions, "attempts", id)), "%s: the attempts directory", id)
	}
	tokens, err := filepath.Glob(filepath.Join(sessions, "resume_tokens", "*.json"))
	require.NoError(t, err)
	assert.Empty(t, tokens, "the consumed resume token goes with its session")
	assert.True(t, exists(sessions), "the runtime's sessions directory stays (it recreates the emptied attempts and resume_tokens)")
}

// TestOrbitMeshActiveTokenAndUnshippedSessionStay: a session not in Loki
// keeps everything; an over session's still active resume token stays.
func TestOrbitMeshActiveTokenAndUnshippedSessionStay(t *testing.T) {
	e := newEnv(t)
	old := e.now.Add(-25 * time.Hour)
	sessions := filepath.Join(e.root, "sessions")
	stamp := func(d time.Duration) string { return old.Add(d).UTC().Format(time.RFC3339Nano) }
	write := func(rel, body string) string {
		p := filepath.Join(sessions, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
	for _, id := range []string{"s1", "s2"} {
		write(id+".messages.jsonl", `{"seq":1,"timestamp":"`+stamp(time.Second)+`","projection":"append","kind":"user","contents":"hi"}`+"\n")
		write(id+".json", `{"id":"`+id+`","state":"suspended"}`)
		write("attempts/"+id+"/a1.json", `{"attempt_id":"a1","session_id":"`+id+`","started_at":"`+stamp(0)+`","ended_at":"`+stamp(2*time.Second)+
			`","terminal_reason":"interrupted","interruption_reason":"waiting for tool result: c1"}`)
		write("resume_tokens/t"+id+".json", `{"token_id":"t`+id+`","session_id":"`+id+`","attempt_id":"a1","created_at":"`+stamp(time.Second)+
			`","expires_at":"`+e.now.Add(time.Hour).UTC().Format(time.RFC3339Nano)+`"}`)
	}
	e.fin.modes["s2.messages.jsonl"] = finNothing
	r := e.sweep(nil)
	assert.Zero(t, r.Errors)
	assert.False(t, exists(filepath.Join(sessions, "s1.messages.jsonl")))
	assert.False(t, exists(filepath.Join(sessions, "attempts", "s1")))
	assert.True(t, exists(filepath.Join(sessions, "resume_tokens", "ts1.json")), "an active token stays")
	for _, rel := range []string{"s2.messages.jsonl", "s2.json", "attempts/s2/a1.json", "resume_tokens/ts2.json"} {
		assert.True(t, exists(filepath.Join(sessions, rel)), "not shipped: %s stays", rel)
	}
	assert.Equal(t, KeepUnshipped, decision(t, r, filepath.Join(sessions, "s2.messages.jsonl")).Reason)
}
