package gosession

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/stretchr/testify/assert"
)

func TestClaim(t *testing.T) {
	f := New()
	const dir = "/home/dev/.claude/projects/-home-dev-app/sessions/0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	for _, name := range []string{"messages.jsonl", "transcript.jsonl"} {
		p, ok := f.Claim(dir + "/" + name)
		assert.True(t, ok, name)
		assert.Equal(t, format.Path{Format: Name, SessionID: "0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", Group: dir + "/messages.jsonl"}, p,
			"messages.jsonl is the session's main journal, transcript.jsonl its member")
	}
	sd, ok := f.SessionDir(dir + "/messages.jsonl")
	assert.True(t, ok)
	assert.Equal(t, dir, sd, "the session directory goes with messages.jsonl, metadata.json and checkpoints/ included")
	_, ok = f.SessionDir(dir + "/transcript.jsonl")
	assert.False(t, ok, "transcript.jsonl is a member, not a main journal")
	_, ok = f.SessionDir(dir + "/metadata.json")
	assert.False(t, ok)
	p, ok := f.Claim("sess/messages.jsonl")
	assert.True(t, ok, "a relative path")
	assert.Equal(t, "sess", p.SessionID)
	assert.Equal(t, "sess/messages.jsonl", p.Group)
	p, ok = f.Claim("/data/goat/any name at all/transcript.jsonl")
	assert.True(t, ok, "any non-empty directory name is a session id")
	assert.Equal(t, "any name at all", p.SessionID)

	for _, refused := range []string{
		dir + "/metadata.json",
		dir + "/messages.jsonl.lock",
		dir + "/transcript.jsonl.lock",
		dir + "/checkpoints/cp-001/manifest.json",
		dir + "/checkpoints/cp-001/messages.jsonl",
		dir + "/checkpoints/cp-001/blobs/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		dir + "/messages.json",
		dir + "/Messages.jsonl",
		dir + "/messages.jsonl/",
		dir + "/messages.jsonl.1",
		dir + "/old-messages.jsonl",
		dir + ".jsonl",
		// Claude Code's transcripts, main and subagent, beside Goat's store.
		"/home/dev/.claude/projects/-home-dev-app/0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl",
		"/home/dev/.claude/projects/-home-dev-app/0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/subagents/agent-a1b2c3.jsonl",
		"/home/dev/.claude/projects/-home-dev-app/0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/subagents/agent-a1b2c3.meta.json",
		"/home/dev/.claude/projects/-home-dev-app/agent-a1b2c3.jsonl",
		// The other formats' layouts.
		"/home/dev/.codelia/sessions/2026/02/03/8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl",
		"/var/lib/orbitmesh/sessions/sess_123.messages.jsonl",
		"/data/sessions/0b0e6a66-6a8e-4c48-9d6c-3d6a4f0e7a11/session_20260203T120000Z_pod-a.jsonl",
		// No session directory.
		"messages.jsonl", "/messages.jsonl", "./messages.jsonl", "../transcript.jsonl", "",
	} {
		_, ok := f.Claim(refused)
		assert.False(t, ok, refused)
		assert.Equal(t, NotAJournal, JournalOf(refused), refused)
	}
}

func TestJournalOf(t *testing.T) {
	assert.Equal(t, Messages, JournalOf("/b/s/messages.jsonl"))
	assert.Equal(t, Transcript, JournalOf("/b/s/transcript.jsonl"))
	assert.Equal(t, NotAJournal, JournalOf("/b/s/metadata.json"))
	assert.Equal(t, "/b/s", SessionDir("/b/s/transcript.jsonl"))
	for _, c := range []string{"/b/s/metadata.json", "/b/s/checkpoints", "/b/s/checkpoints/c/manifest.json"} {
		_, ok := New().Claim(c)
		assert.False(t, ok, "a side file is never claimed")
	}
}
