package claudecode

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/stretchr/testify/assert"
)

func TestClaim(t *testing.T) {
	const upper = "5B1E0C7A-4D2F-4A8E-9C31-0F6A2D7E9B10"
	for _, c := range []struct {
		name, path string
		want       format.Path
		project    string
	}{
		{"main transcript", mainPath,
			format.Path{SessionID: sessionID, Group: mainPath}, project},
		{"upper-case uuid, kept as written", root + "/" + project + "/" + upper + ".jsonl",
			format.Path{SessionID: upper, Group: root + "/" + project + "/" + upper + ".jsonl"}, project},
		{"any root name", "/data/cc/-srv-app/" + sessionID + ".jsonl",
			format.Path{SessionID: sessionID, Group: "/data/cc/-srv-app/" + sessionID + ".jsonl"}, "-srv-app"},
		{"a Windows working directory", "/data/cc/C--src-app/" + sessionID + ".jsonl",
			format.Path{SessionID: sessionID, Group: "/data/cc/C--src-app/" + sessionID + ".jsonl"}, "C--src-app"},
		{"a relative path", project + "/" + sessionID + ".jsonl",
			format.Path{SessionID: sessionID, Group: project + "/" + sessionID + ".jsonl"}, project},
		{"subagent transcript", agentPath,
			format.Path{SessionID: sessionID, AgentID: "a7f3e21", Group: mainPath}, project},
		{"subagent of a session directory that is no uuid", root + "/" + project + "/s1/subagents/agent-a7f3e21.jsonl",
			format.Path{AgentID: "a7f3e21", Group: root + "/" + project + "/s1.jsonl", Problem: problemSessionDir}, project},
		{"subagent with a long agent id", root + "/" + project + "/" + sessionID + "/subagents/agent-aside_question-9f8e7d6c.jsonl",
			format.Path{SessionID: sessionID, AgentID: "aside_question-9f8e7d6c", Group: mainPath}, project},
		{"legacy subagent", root + "/" + project + "/agent-5d4c3b2a.jsonl",
			format.Path{AgentID: "5d4c3b2a", Group: root + "/" + project + "/agent-5d4c3b2a.jsonl"}, project},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := New()
			p, ok := f.Claim(c.path)
			assert.True(t, ok)
			c.want.Format = Name
			assert.Equal(t, c.want, p)
			assert.Equal(t, c.project, f.NewState(p).(*State).Project())
		})
	}
}

func TestClaimRefuses(t *testing.T) {
	f := New()
	for _, path := range []string{
		"",
		"/",
		sessionID + ".jsonl", // no project directory
		"/" + sessionID + ".jsonl",
		root + "//" + sessionID + ".jsonl",
		root + "/" + project + "/" + sessionID + ".json",
		root + "/" + project + "/" + sessionID + ".jsonl.bak",
		// Other names: never claimed by path (the format's root finds a
		// transcript under another name by its content).
		root + "/" + project + "/notes.jsonl",
		root + "/" + project + "/5b1e0c7a4d2f4a8e9c310f6a2d7e9b10.jsonl",
		root + "/" + project + "/agent-.jsonl",
		"/srv/captures/nightly/run-1.jsonl",
		"/var/log/app/other.jsonl",
		// A project directory is an encoded working directory: another
		// runtime's <dir>/<uuid>.jsonl is not (a Codelia run).
		"/data/codelia/sessions/2026/02/03/" + sessionID + ".jsonl",
		"/data/x/app/" + sessionID + ".jsonl",
		"/data/x/app/" + sessionID + "/subagents/agent-a7f3e21.jsonl",
		"/data/x/C-/" + sessionID + ".jsonl",
		root + "/" + project + "/.jsonl",
		root + "/" + project + "/" + sessionID + "/subagents/agent-a7f3e21.meta.json",
		root + "/" + project + "/sessions-index.json",
		root + "/" + project + "/" + sessionID + "/tool-results/toolu_01.jsonl",
		root + "/" + project + "/" + sessionID + "/tool-results/sub/x.jsonl",
		root + "/" + project + "/memory/notes.jsonl",
		root + "/" + project + "/memory/x/notes.jsonl",
		root + "/" + project + "/" + sessionID + "/other.jsonl", // inside a session directory
		root + "/" + project + "/" + sessionID + "/" + otherID + ".jsonl",
		root + "/" + project + "/" + sessionID + "/subagents/notes.jsonl",
		root + "/" + project + "/" + sessionID + "/subagents/agent-.jsonl",
		"/subagents/agent-a7f3e21.jsonl",
		"./" + sessionID + ".jsonl",
		root + "/../" + sessionID + ".jsonl",
		root + "/" + project + "/../subagents/agent-a7f3e21.jsonl",
		sessionID + "/subagents/agent-a7f3e21.jsonl",
		// The Go pkg/session store, inside Claude Code's tree or not.
		root + "/" + project + "/sessions/" + sessionID + "/messages.jsonl",
		root + "/" + project + "/sessions/" + sessionID + "/transcript.jsonl",
		"/var/goat/sessions/s-1/messages.jsonl",
		"/var/goat/sessions/s-1/transcript.jsonl",
	} {
		_, ok := f.Claim(path)
		assert.False(t, ok, path)
	}
}

func TestSessionDir(t *testing.T) {
	f := New()
	dir, ok := f.SessionDir(mainPath)
	assert.True(t, ok)
	assert.Equal(t, root+"/"+project+"/"+sessionID, dir)
	for _, p := range []string{agentPath, root + "/" + project + "/agent-x.jsonl", "/a/b.txt", ""} {
		_, ok = f.SessionDir(p)
		assert.False(t, ok, p)
	}
}

func TestMainTranscript(t *testing.T) {
	m, ok := MainTranscript(agentPath)
	assert.True(t, ok)
	assert.Equal(t, mainPath, m)
	m, ok = MainTranscript("-p/s1/subagents/agent-x.jsonl")
	assert.True(t, ok)
	assert.Equal(t, "-p/s1.jsonl", m)
	for _, p := range []string{mainPath, root + "/" + project + "/agent-x.jsonl", "/a/b.txt", ""} {
		_, ok = MainTranscript(p)
		assert.False(t, ok, p)
	}
}

func TestRefuses(t *testing.T) {
	f := New()
	for _, p := range []string{
		root + "/" + project + "/sessions/" + sessionID + "/transcript.jsonl",
		"/var/goat/sessions/s-1/messages.jsonl",
		root + "/" + project + "/" + sessionID + "/subagents/agent-a7f3e21.meta.json",
		root + "/" + project + "/" + sessionID + "/tool-results/toolu_01.jsonl",
		root + "/" + project + "/memory/notes.jsonl",
	} {
		assert.True(t, f.Refuses(p), p)
	}
	for _, p := range []string{mainPath, agentPath, "/srv/captures/nightly/run-1.jsonl", "x.jsonl"} {
		assert.False(t, f.Refuses(p), p)
	}
}
