package claudecode

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// call is one tool call: the tool_use block's input and what its
// tool_result line says.
type call struct {
	id, name string
	input    obj
	out      int64         // output tokens of the tool_use block
	content  any           // the tool_result content: a string or blocks
	isError  bool          // is_error
	tur      any           // toolUseResult
	tokens   int64         // what the result adds to the prompt
	dur      time.Duration // how long the tool runs
	progress []obj         // progress data written while it runs
	src      *rec          // the assistant line carrying the tool_use
	sub      *transcript   // a Task's subagent
}

func (c *call) progressID(p obj) string {
	for _, m := range p {
		if m.K == "type" && m.V == "bash_progress" {
			return "bash-progress-0"
		}
	}
	return c.id
}

// use is the tool_use block of c.
func (c *call) use() block { return block{kind: blockToolUse, call: c, out: c.out} }

func (s *session) newCall(name string, input obj) *call {
	return &call{id: s.x.toolID(), name: name, input: input, out: int64(s.x.Between(40, 180)), dur: s.x.Millis(40, 900)}
}

// abs is the absolute path of a repository file.
func (s *session) abs(file string) string { return path.Join(s.th.cwd, file) }

// numbered renders file lines as Read returns them ("     1\t…").
func numbered(start int, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", start+i, l)
	}
	return b.String()
}

func (s *session) read(file string, tk task) *call {
	x := s.x
	start := x.Between(1, 60)
	body := numbered(start, "// "+path.Base(file), "", tk.old, "", "\treturn nil")
	if tk.file != file {
		body = numbered(start, "// "+path.Base(file), "", "\t// unchanged", "")
	}
	total := start + x.Between(20, 400)
	c := s.newCall("Read", obj{{"file_path", s.abs(file)}})
	c.content = body
	c.tur = obj{{"type", "text"}, {"file", obj{{"filePath", s.abs(file)}, {"content", body}, {"numLines", 5}, {"startLine", start}, {"totalLines", total}}}}
	c.tokens = int64(total * x.Between(9, 14))
	return c
}

func (s *session) grep(pattern string) *call {
	x := s.x
	files := []string{s.th.files[x.Intn(len(s.th.files))], s.th.files[x.Intn(len(s.th.files))]}
	if files[0] == files[1] {
		files = files[:1]
	}
	c := s.newCall("Grep", obj{{"pattern", pattern}, {"output_mode", "files_with_matches"}})
	c.content = fmt.Sprintf("Found %d files\n%s", len(files), strings.Join(files, "\n"))
	c.tur = obj{{"mode", "files_with_matches"}, {"filenames", files}, {"numFiles", len(files)}}
	c.tokens = int64(x.Between(30, 200))
	return c
}

func (s *session) glob(pattern string) *call {
	x := s.x
	c := s.newCall("Glob", obj{{"pattern", pattern}})
	files := make([]string, 0, 3)
	for _, f := range s.th.files[:x.Between(1, 3)] {
		files = append(files, s.abs(f))
	}
	c.content = strings.Join(files, "\n")
	c.tur = obj{{"filenames", files}, {"durationMs", x.Between(3, 60)}, {"numFiles", len(files)}, {"truncated", false}}
	c.tokens = int64(x.Between(40, 300))
	return c
}

func (s *session) bash(cmd, desc, out string, isErr bool) *call {
	x := s.x
	c := s.newCall("Bash", obj{{"command", cmd}, {"description", desc}})
	if isErr {
		c.content = "Exit code 1\n" + out
	} else {
		c.content = out
	}
	c.isError = isErr
	c.tur = obj{{"stdout", out}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}}
	c.tokens = int64(len(out)/3 + x.Between(50, 2500))
	c.dur = x.Millis(800, 9000)
	if !s.main.legacyCLI() && x.Chance(0.5) {
		first, _, _ := strings.Cut(out, "\n")
		c.progress = []obj{{{"type", "bash_progress"}, {"output", first}, {"fullOutput", first}, {"elapsedTimeSeconds", x.Between(2, 6)}, {"totalLines", strings.Count(out, "\n") + 1}}}
	}
	return c
}

func (s *session) edit(file, old, fix string) *call {
	x := s.x
	c := s.newCall("Edit", obj{{"file_path", s.abs(file)}, {"old_string", old}, {"new_string", fix}})
	c.out = int64(x.Between(90, 600))
	c.content = "The file " + s.abs(file) + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" + numbered(x.Between(10, 80), fix)
	at := x.Between(5, 120)
	c.tur = obj{{"filePath", s.abs(file)}, {"oldString", old}, {"newString", fix}, {"originalFile", "// " + path.Base(file) + "\n" + old + "\n"},
		{"structuredPatch", []obj{{{"oldStart", at}, {"oldLines", 1}, {"newStart", at}, {"newLines", strings.Count(fix, "\n") + 1}, {"lines", []string{"-" + old, "+" + fix}}}}},
		{"userModified", false}, {"replaceAll", false}}
	c.tokens = int64(x.Between(80, 400))
	if !s.main.legacyCLI() && s.hooks {
		c.progress = []obj{{{"type", "hook_progress"}, {"hookEvent", "PostToolUse"}, {"hookName", "PostToolUse:Edit"}, {"command", s.th.build}}}
	}
	return c
}

func (s *session) todo(items ...string) *call {
	x := s.x
	todos := make([]obj, len(items))
	for i, it := range items {
		st := "pending"
		if i == 0 {
			st = "in_progress"
		}
		todos[i] = obj{{"content", it}, {"status", st}, {"activeForm", strings.ToUpper(it[:1]) + it[1:]}}
	}
	c := s.newCall("TodoWrite", obj{{"todos", todos}})
	c.content = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"
	c.tur = obj{{"oldTodos", []obj{}}, {"newTodos", todos}}
	c.tokens = int64(x.Between(60, 160))
	return c
}

// mcp is a call to an MCP server's tool.
func (s *session) mcp(name string, input obj, out string) *call {
	c := s.newCall(name, input)
	c.content = []obj{{{"type", "text"}, {"text", out}}}
	c.tur = []obj{{{"type", "text"}, {"text", out}}}
	c.tokens = int64(len(out)/3 + s.x.Between(20, 200))
	return c
}

// reject is how a tool call the user refused is answered.
func (c *call) reject() {
	c.content = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
	c.isError = true
	c.tur = "User rejected tool use"
	c.progress = nil
	c.tokens = 60
}
