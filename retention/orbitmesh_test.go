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

	"github.com/journalship/journalship/format"
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

// besideFormat is a format whose Beside names what a test gives it.
type besideFormat struct {
	format.Format
	files, dirs []string
}

func (f besideFormat) Beside(string, time.Time) ([]string, []string) { return f.files, f.dirs }

// TestBesideStaysBelowTheJournal: whatever a format names beside a
// deleted journal, retention deletes only regular files below the
// journal's directory, reached through no symlink, that no format claims
// as a journal, and removes only directories below it.
func TestBesideStaysBelowTheJournal(t *testing.T) {
	e := newEnv(t)
	sessions := filepath.Join(e.root, "sessions")
	write := func(rel string) string {
		p := filepath.Join(sessions, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("{}\n"), 0o644))
		return p
	}
	journal := filepath.Join(sessions, "gone.messages.jsonl")
	own := write("attempts/gone/a1.json")
	otherLog := write("attempts/gone/live.messages.jsonl")
	sibling := write("other.json")
	outside := write("../elsewhere/x.json")
	linked := write("attempts/real/a2.json")
	require.NoError(t, os.Symlink(filepath.Join(sessions, "attempts", "real"), filepath.Join(sessions, "attempts", "link")))
	viaLink := filepath.Join(sessions, "attempts", "link", "a2.json")
	require.NoError(t, os.MkdirAll(filepath.Join(sessions, "empty"), 0o755))

	a := e.agent(nil)
	rt, err := os.OpenRoot(e.root)
	require.NoError(t, err)
	defer rt.Close()
	s := &sweep{Agent: a, r: &Report{Kept: map[string]int{}}, rt: rt, now: e.now}
	s.removeBeside(besideFormat{files: []string{own, otherLog, sibling, outside, viaLink},
		dirs: []string{sessions, filepath.Join(sessions, "empty"), e.root}}, journal)

	assert.False(t, exists(own), "the journal's own file below its directory goes")
	for _, p := range []string{otherLog, sibling, outside, linked} {
		assert.True(t, exists(p), "%s stays", p)
	}
	assert.True(t, exists(sessions), "the journal's own directory stays")
	assert.True(t, exists(e.root))
	assert.False(t, exists(filepath.Join(sessions, "empty")), "an empty directory below it goes")
	assert.Contains(t, e.log.String(), "judged on its own")
}

// TestOrbitMeshDotDotSessionDeletesNoOtherSession: a log named
// "...messages.jsonl" (session id "..") over and shipped, next to a live
// unshipped session: the live session's files all stay.
func TestOrbitMeshDotDotSessionDeletesNoOtherSession(t *testing.T) {
	e := newEnv(t)
	old := e.now.Add(-25 * time.Hour)
	sessions := filepath.Join(e.root, "sessions")
	stamp := func(d time.Duration) string { return old.Add(d).UTC().Format(time.RFC3339Nano) }
	write := func(rel, body string, at time.Time) string {
		p := filepath.Join(sessions, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		require.NoError(t, os.Chtimes(p, at, at))
		return p
	}
	msg := `{"seq":1,"timestamp":"` + stamp(time.Second) + `","projection":"append","kind":"user","contents":"hi"}` + "\n"
	attempt := func(id string) string {
		return `{"attempt_id":"a1","session_id":"` + id + `","started_at":"` + stamp(0) + `","ended_at":"` + stamp(2*time.Second) + `","terminal_reason":"completed"}`
	}
	dots := write("..."+"messages.jsonl", msg, old)
	write("a1.json", attempt(".."), old) // attempts/.. is sessions/ itself
	live := write("live.messages.jsonl", msg, e.now)
	liveDoc := write("live.json", `{"id":"live","state":"running"}`, e.now)
	e.fin.modes["live.messages.jsonl"] = finNothing
	r := e.sweep(nil)
	assert.Equal(t, KeepRunActive, decision(t, r, dots).Reason, "its attempts cannot be read: its run is not known over")
	assert.True(t, exists(dots))
	assert.True(t, exists(live), "the live session's log stays")
	assert.True(t, exists(liveDoc), "and its document")
	assert.True(t, exists(filepath.Join(sessions, "a1.json")), "a file directly in sessions/ is no attempt of the session")
}
