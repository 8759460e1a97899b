package claudecode

import (
	"path/filepath"
	"strings"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// The Path.Problem of claimed paths that are not quite the layout.
const (
	problemSessionDir = "session directory name is not a session UUID"
)

// The file kinds of the layout (docs/formats/claude-code.md, Layout).
type fileKind uint8

const (
	kindMain     fileKind = iota // <root>/<project>/<session>.jsonl, or another name there
	kindSubagent                 // <root>/<project>/<session>/subagents/agent-<agent>.jsonl
	kindLegacy                   // <root>/<project>/agent-<agent>.jsonl
)

// layout is what a journal's path says.
type layout struct {
	kind    fileKind
	session string // "" when the path names none (or a wrong one)
	agent   string // subagent and legacy files
	project string
	main    string // the session's main transcript (subagent files)
	problem string
}

// Claim implements format.Format, from the path alone: a main transcript
// <root>/<project>/<uuid>.jsonl (SessionID: the uuid), a subagent
// transcript <root>/<project>/<session>/subagents/agent-<agent>.jsonl
// (SessionID: the session, AgentID: the agent, Group: the session's main
// transcript, which retention deletes with it), a legacy subagent
// transcript <root>/<project>/agent-<agent>.jsonl (AgentID: the agent; the
// lines name the session). Never claimed: other names (a transcript under
// the format's own root is still found by its content), names not ending
// in .jsonl, files in a tool-results or memory
// directory or directly in a session directory, the Go pkg/session
// journals messages.jsonl and transcript.jsonl, anything else in a
// subagents directory. The root's name is not checked.
func (*Format) Claim(path string) (format.Path, bool) {
	l, ok := parse(path)
	if !ok {
		return format.Path{}, false
	}
	p := format.Path{Format: Name, SessionID: l.session, AgentID: l.agent, Group: path, Problem: l.problem}
	if l.kind == kindSubagent {
		p.Group = l.main
	}
	return p, true
}

// MainTranscript returns the main transcript of the session a subagent
// transcript belongs to (<root>/<project>/<session>.jsonl for
// <root>/<project>/<session>/subagents/agent-<agent>.jsonl); ok is false
// for any other path (a legacy agent-<agent>.jsonl names no session).
func MainTranscript(path string) (string, bool) {
	l, ok := parse(path)
	if !ok || l.kind != kindSubagent {
		return "", false
	}
	return l.main, true
}

// parse reads path as the layout.
func parse(path string) (layout, bool) {
	parts := strings.Split(filepath.ToSlash(path), "/")
	n := len(parts)
	stem, ok := strings.CutSuffix(parts[n-1], ".jsonl")
	if !ok || stem == "" || n < 2 || !named(parts[n-2]) {
		return layout{}, false
	}
	parent := parts[n-2]
	agent, isAgent := agentOf(stem)
	if parent == "subagents" {
		// <root>/<project>/<session>/subagents/agent-<agent>.jsonl only.
		if !isAgent || n < 4 || !named(parts[n-3]) || !isProject(parts[n-4]) {
			return layout{}, false
		}
		session := parts[n-3]
		l := layout{kind: kindSubagent, agent: agent, project: parts[n-4],
			main: filepath.Dir(filepath.Dir(filepath.Dir(path))) + string(filepath.Separator) + session + ".jsonl"}
		if isUUID(session) {
			l.session = session
		} else {
			l.problem = problemSessionDir
		}
		return l, true
	}
	switch {
	case refused(parts):
		return layout{}, false // tool outputs, memory files, the Go pkg/session store's journals
	case isUUID(parent):
		return layout{}, false // inside a session directory
	case !isProject(parent):
		return layout{}, false // another runtime's <dir>/<uuid>.jsonl (a Codelia run)
	}
	l := layout{project: parent}
	switch {
	case isUUID(stem):
		l.session = stem
	case isAgent:
		l.kind, l.agent = kindLegacy, agent
	default:
		// Not claimed: without a root of its own the format would claim
		// every <dir>/<name>.jsonl on the node. A transcript under another
		// name, under the format's root, is still found by its content.
		return layout{}, false
	}
	return l, true
}

// agentOf returns the agent id of a file name stem agent-<agent>.
func agentOf(stem string) (string, bool) {
	a, ok := strings.CutPrefix(stem, "agent-")
	return a, ok && a != ""
}

// isProject tells whether a directory name is a project directory as Claude
// Code names them: the working directory with every character outside
// [A-Za-z0-9] replaced by "-", so an absolute Unix path starts with "-"
// ("/home/dev/app" → "-home-dev-app") and a Windows one with its drive
// ("C:\src" → "C--src"). Other runtimes' directories (Codelia's dated
// sessions/2026/02/03/<uuid>.jsonl) are not.
func isProject(name string) bool {
	switch {
	case len(name) >= 2 && name[0] == '-':
		return true
	case len(name) >= 3 && name[1] == '-' && name[2] == '-':
		c := name[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return false
}

// named tells whether a path element names a directory of its own.
func named(name string) bool { return name != "" && name != "." && name != ".." }

func excludedDir(name string) bool { return name == "tool-results" || name == "memory" }

func isUUID(s string) bool { return integrity.IsUUID([]byte(s)) }

// SessionDir implements format.SessionDir: a main transcript
// <root>/<project>/<session>.jsonl owns the directory <root>/<project>/<session>/
// (its subagents' transcripts, their sidecars, stored tool outputs), which
// retention deletes with it.
func (*Format) SessionDir(path string) (string, bool) {
	l, ok := parse(path)
	if !ok || l.kind != kindMain || l.session == "" {
		return "", false
	}
	return strings.TrimSuffix(path, ".jsonl"), true
}

// Refuses implements format.Refuser: files Claude Code never writes as a
// transcript, whatever their first line (a Go pkg/session store's
// transcript.jsonl starts with an SDK system line, as a stream-json
// capture does): the pkg/session journals, sidecars, stored tool outputs
// and memory files.
func (*Format) Refuses(path string) bool {
	return refused(strings.Split(filepath.ToSlash(path), "/"))
}

// refused tells whether the path elements parts name a file that is never
// a transcript (see Refuses).
func refused(parts []string) bool {
	n := len(parts)
	switch base := parts[n-1]; {
	case base == "messages.jsonl" || base == "transcript.jsonl", strings.HasSuffix(base, ".meta.json"):
		return true
	case n >= 2 && excludedDir(parts[n-2]), n >= 3 && excludedDir(parts[n-3]):
		return true
	}
	return false
}
