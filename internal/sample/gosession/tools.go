package gosession

import (
	"path"
	"strings"
	"time"
)

// The tool calls a session's model makes (the Claude Agent SDK's tools,
// which Goat ports), each with its arguments, its output and how long it
// runs.

func (s *session) grep(t *task) call {
	return call{id: s.x.callID(s.openAI), name: "Grep", args: obj{{"pattern", t.pattern}, {"path", "."}, {"output_mode", "content"}},
		out: t.grepOut(s.th), run: [2]time.Duration{40 * time.Millisecond, 400 * time.Millisecond}}
}

func (s *session) glob() call {
	return call{id: s.x.callID(s.openAI), name: "Glob", args: obj{{"pattern", "**/*.go"}},
		out: strings.Join(s.th.files, "\n"), run: [2]time.Duration{20 * time.Millisecond, 200 * time.Millisecond}}
}

func (s *session) read(t *task) call {
	return call{id: s.x.callID(s.openAI), name: "Read", args: obj{{"file_path", path.Join(s.th.cwd, t.file)}},
		out: t.readOut(s.th), run: [2]time.Duration{10 * time.Millisecond, 120 * time.Millisecond}}
}

func (s *session) edit(t *task) call {
	file := path.Join(s.th.cwd, t.file)
	return call{id: s.x.callID(s.openAI), name: "Edit", args: obj{{"file_path", file}, {"old_string", t.old}, {"new_string", t.fix}},
		out: "The file " + file + " has been updated.", run: [2]time.Duration{20 * time.Millisecond, 300 * time.Millisecond}, edit: t}
}

func (s *session) bash(command, out string) call {
	return call{id: s.x.callID(s.openAI), name: "Bash", args: obj{{"command", command}, {"description", "Run the tests"}},
		out: out, run: [2]time.Duration{1500 * time.Millisecond, 20 * time.Second}}
}
