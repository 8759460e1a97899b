package orbitmesh

import (
	"encoding/json"
	"fmt"
	"strings"
)

// call is one tool call, with what the agent says when it makes it and
// the output its tool returns.
type call struct {
	tc     toolCall
	plan   string
	output string
	isErr  bool
}

// Tools the agent calls without waiting, tools whose result comes from
// outside (a wait for a tool_result) and tools that need an approval.
var (
	quickTools    = []string{"read_file", "grep", "run_tests", "apply_patch", "shell"}
	approvalTools = []string{"apply_migration", "deploy_preview", "git_push"}
)

// ciTool runs the repository's CI pipeline; its result arrives minutes
// later, so the run waits for it.
const ciTool = "run_ci"

// newCall draws a call of the named tool with realistic arguments and
// output.
func (s *session) newCall(name string) call {
	x, th := s.x, s.th
	file := th.file(x)
	c := call{tc: toolCall{ID: "call_" + x.Chars(12, base32Alphabet), Name: name}}
	var args map[string]any
	switch name {
	case "read_file":
		args, c.output = map[string]any{"path": file}, th.source(file)
		c.plan = fmt.Sprintf("Let me read %s to see how %ss are handled.", file, th.noun)
	case "grep":
		pat := pick(x, []string{th.noun + "ID", "Retry", "ttl", "archived_at"})
		args, c.output = map[string]any{"pattern": pat, "path": th.pkg}, th.grepOutput(x, pat)
		c.plan = fmt.Sprintf("Searching %s for %s.", th.pkg, pat)
	case "run_tests":
		args = map[string]any{"command": th.testCommand()}
		c.output, c.isErr = th.testOutput(x)
		c.plan = pick(x, []string{"Running the tests.", "Running the tests again to check the fix.", "Running the " + th.pkg + " tests to reproduce."})
	case "apply_patch":
		args = map[string]any{"path": file, "hunks": x.Between(1, 4)}
		c.output = fmt.Sprintf("patched %s: +%d -%d", file, x.Between(2, 40), x.Between(0, 18))
		c.plan = fmt.Sprintf("Applying the change to %s.", file)
	case "shell":
		args = map[string]any{"command": "git status --short"}
		c.output = fmt.Sprintf(" M %s\n M %s\n?? %s", file, th.file(x), strings.TrimSuffix(file, exts[th.lang])+"_test"+exts[th.lang])
		c.plan = "Checking what changed so far."
	case ciTool:
		n := x.Between(40000, 99999)
		args = map[string]any{"pipeline": "ci.yml", "ref": "agent/" + th.noun + "-" + x.Chars(4, hexAlphabet)}
		c.output = fmt.Sprintf("pipeline #%d passed: lint, unit (%d tests), integration (%d tests)", n, x.Between(80, 900), x.Between(5, 60))
		c.plan = "Triggering CI on the branch; I'll continue when the pipeline reports back."
	default:
		args, c.output = s.approvalCall(name)
		c.plan = fmt.Sprintf("This needs your approval: %s.", name)
	}
	a, _ := json.Marshal(args) // maps of strings and ints always marshal
	c.tc.Arguments = string(a)
	return c
}

// approvalCall returns the arguments and output of a tool that needs an
// approval.
func (s *session) approvalCall(name string) (map[string]any, string) {
	x, th := s.x, s.th
	switch name {
	case "apply_migration":
		id := s.clock.UTC().Format("20060102_1504") + "_add_archived_at"
		return map[string]any{"migration": id, "database": th.repo}, fmt.Sprintf("migration %s applied (1 statement, %d.%ds)", id, x.Intn(3), x.Intn(10))
	case "deploy_preview":
		pr := x.Between(100, 4000)
		return map[string]any{"service": th.repo, "pr": pr}, fmt.Sprintf("preview deployed to https://pr-%d.%s.preview.internal", pr, th.repo)
	}
	branch := "agent/" + th.noun + "-" + x.Chars(6, hexAlphabet)
	return map[string]any{"remote": "origin", "branch": branch}, "pushed " + branch + " to origin"
}

// source returns a few lines of file.
func (th theme) source(file string) string {
	switch th.lang {
	case "go":
		return fmt.Sprintf("// %s\nfunc (s *Store) Load%s(ctx context.Context, id string) (*%s, error) {\n\tif time.Since(row.UpdatedAt) > s.ttl {\n\t\treturn nil, ErrStale\n\t}", file, title(th.noun), title(th.noun))
	case "ts":
		return fmt.Sprintf("// %s\nexport async function load%s(id: string): Promise<%s> {\n  const row = await db.%ss.find(id);\n  if (Date.now() - row.updatedAt > TTL_MS) throw new StaleError(id);", file, title(th.noun), title(th.noun), th.noun)
	}
	return fmt.Sprintf("# %s\ndef load_%s(%s_id: str) -> %s:\n    row = db.%ss.get(%s_id)\n    if row.updated_at < now() - TTL:\n        raise Stale(%s_id)", file, th.noun, th.noun, title(th.noun), th.noun, th.noun, th.noun)
}

func (th theme) grepOutput(x *rng, pat string) string {
	var lines []string
	for range x.Between(1, 4) {
		lines = append(lines, fmt.Sprintf("%s:%d:\t%s", th.file(x), x.Between(12, 420), pat))
	}
	return strings.Join(lines, "\n")
}

// testOutput returns a test run's output, failing one time in five.
func (th theme) testOutput(x *rng) (string, bool) {
	if x.Chance(0.2) {
		return fmt.Sprintf("--- FAIL: Test%sRetry (0.%02ds)\n    %s_test%s:%d: got 2 attempts, want 3\nFAIL", title(th.noun), x.Intn(100), th.noun, exts[th.lang], x.Between(20, 200)), true
	}
	return fmt.Sprintf("ok  \t%s\t%d.%03ds\t(%d tests)", th.pkg, x.Intn(4), x.Intn(1000), x.Between(8, 160)), false
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
