package codelia

import (
	"fmt"
	"strings"
)

// call is one tool call an invocation asks for, with the tool's result.
type call struct {
	tool    string
	args    obj
	result  string
	isError bool
}

// step is one model invocation that calls tools: the assistant's text
// ("" for none) and its calls.
type step struct {
	text  string
	calls []call
}

// plan is what a run does: the user's input, the invocations that call
// tools, and the final answer (one more invocation).
type plan struct {
	prompt string
	steps  []step
	final  string
}

// Task kinds.
const (
	taskFix     = iota // run a failing test, read, edit, test again (4 steps)
	taskExplain        // glob, grep, read (3 steps)
	taskReview         // git status and diff, read (2 steps)
	taskList           // ls (1 step)
	taskCount
)

// newPlan draws a plan of the given kind in th.
func newPlan(x *rng, th *theme, kind int) plan {
	u := pick(x, th.units)
	switch kind {
	case taskFix:
		return fixPlan(x, th, u)
	case taskExplain:
		return explainPlan(x, th, u)
	case taskReview:
		return reviewPlan(x, th, u)
	}
	return listPlan(x, th)
}

func fixPlan(x *rng, th *theme, u unit) plan {
	cmd := th.testCommand(u)
	src, first := th.source(x, u)
	prompts := []string{
		fmt.Sprintf("%s is failing, can you fix it?", u.test),
		fmt.Sprintf("fix the failing test in %s", u.dir),
		fmt.Sprintf("`%s` fails since my last change, please take a look", cmd),
	}
	return plan{
		prompt: pick(x, prompts),
		steps: []step{
			{text: "I'll run the tests first to see the failure.", calls: []call{failed(bash(cmd, th.testFailure(x, u)+"\n(exit code 1)"))}},
			{text: "", calls: []call{read(u.file, first, 40, src)}},
			{text: fmt.Sprintf("The loop in `%s` is the culprit; fixing it.", u.fn), calls: []call{edit(u.file, u.bug, u.fix)}},
			{text: "", calls: []call{bash(cmd, th.testSuccess(x, u))}},
		},
		final: fmt.Sprintf("Fixed `%s` in %s: the line `%s` is now `%s`. `%s` passes.",
			u.fn, u.file, strings.TrimSpace(u.bug), strings.TrimSpace(u.fix), cmd),
	}
}

func explainPlan(x *rng, th *theme, u unit) plan {
	pattern, files := th.globHits()
	src, first := th.source(x, u)
	prompts := []string{
		fmt.Sprintf("where is %s defined and what does it do?", u.fn),
		fmt.Sprintf("explain how %s works", u.fn),
	}
	return plan{
		prompt: pick(x, prompts),
		steps: []step{
			{text: "", calls: []call{glob(pattern, files)}},
			{text: "", calls: []call{grep(declaration(th.lang, u.fn), th.grepHits(x, u))}},
			{text: "", calls: []call{read(u.file, first, 40, src)}},
		},
		final: fmt.Sprintf("`%s` is defined in %s (line %d). It is covered by `%s` in %s.",
			u.fn, u.file, first+1, u.test, u.testFile),
	}
}

func reviewPlan(x *rng, th *theme, u unit) plan {
	src, first := th.source(x, u)
	status := fmt.Sprintf(" M %s\n M %s\n?? notes.md\n", u.file, u.testFile)
	added, removed := x.Between(3, 40), x.Between(1, 12)
	stat := fmt.Sprintf(" %s | %d ++++----\n %s | %d +++++\n 2 files changed, %d insertions(+), %d deletions(-)\n",
		u.file, added, u.testFile, removed+4, added+4, removed)
	return plan{
		prompt: "summarize my uncommitted changes",
		steps: []step{
			{text: "", calls: []call{bash("git status --short", status), bash("git diff --stat", stat)}},
			{text: "", calls: []call{read(u.file, first, 40, src)}},
		},
		final: fmt.Sprintf("You changed `%s` in %s and its test in %s (%d insertions, %d deletions); notes.md is untracked.",
			u.fn, u.file, u.testFile, added+4, removed),
	}
}

func listPlan(x *rng, th *theme) plan {
	out := strings.Join(th.listing, "\n") + "\n"
	return plan{
		prompt: pick(x, []string{"list files", "what's in this repo?"}),
		steps:  []step{{text: "", calls: []call{bash("ls", out)}}},
		final:  "Here are the files: " + strings.Join(th.listing, ", ") + ".",
	}
}

func bash(cmd, out string) call {
	return call{tool: "bash", args: obj{{"command", cmd}}, result: out}
}

// failed marks a call's result as an error (a command that exits non-zero).
func failed(c call) call {
	c.isError = true
	return c
}

func read(path string, offset, limit int, out string) call {
	return call{tool: "read", args: obj{{"file_path", path}, {"offset", offset}, {"limit", limit}}, result: out}
}

func grep(pattern, out string) call {
	return call{tool: "grep", args: obj{{"pattern", pattern}, {"path", "."}}, result: out}
}

func glob(pattern, out string) call {
	return call{tool: "glob", args: obj{{"pattern", pattern}}, result: out}
}

func edit(path, old, repl string) call {
	return call{tool: "edit", args: obj{{"file_path", path}, {"old_string", old}, {"new_string", repl}},
		result: "Edited " + path + ": replaced 1 occurrence"}
}

// toolDefs are the tool definitions every llm.request carries.
var toolDefs = []obj{
	toolDef("bash", "Runs a shell command in the workspace.", obj{{"command", strProp}}, "command"),
	toolDef("read", "Reads a file, with line numbers.", obj{{"file_path", strProp}, {"offset", intProp}, {"limit", intProp}}, "file_path"),
	toolDef("grep", "Searches file contents with a regular expression.", obj{{"pattern", strProp}, {"path", strProp}}, "pattern"),
	toolDef("glob", "Lists files matching a glob pattern.", obj{{"pattern", strProp}}, "pattern"),
	toolDef("edit", "Replaces text in a file.", obj{{"file_path", strProp}, {"old_string", strProp}, {"new_string", strProp}}, "file_path", "old_string", "new_string"),
}

var (
	strProp = obj{{"type", "string"}}
	intProp = obj{{"type", "integer"}}
)

func toolDef(name, desc string, props obj, required ...string) obj {
	return obj{{"type", "function"}, {"function", obj{{"name", name}, {"description", desc},
		{"parameters", obj{{"type", "object"}, {"properties", props}, {"required", required}}}}}}
}
