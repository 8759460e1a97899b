package claudecode

import (
	"fmt"
	"strings"
)

// task is one thing a user asks for in a theme's repository: the prompt,
// where the fix goes and what the model says when done.
type task struct {
	prompt  string
	pattern string // what the model greps for first
	file    string // the file it edits
	old     string // the faulty line
	fix     string // its replacement
	done    string // the final answer
}

// theme is the repository a session works in.
type theme struct {
	cwd     string // the working directory; the project directory encodes it
	branch  string
	files   []string // source files the model reads
	test    string   // the test command
	fail    string   // the test output before the fix
	pass    string   // after it
	build   string   // another command it runs
	tasks   []task
	follows []string // follow-up prompts
	explore []string // subagent prompts (Task tool)
	titles  []string // custom titles
}

// themes are the repositories sessions run in. Two share a project
// directory name shape that cannot be decoded (my_app → my-app).
var themes = []theme{
	{
		cwd: "/home/dev/app", branch: "main",
		files: []string{"auth/login.go", "auth/session.go", "auth/login_test.go", "internal/httpx/middleware.go", "cmd/server/main.go"},
		test:  "go test ./auth/...",
		fail:  "--- FAIL: TestLoginExpiredSession (0.01s)\n    login_test.go:88: got status 200, want 401\nFAIL\nFAIL\tgithub.com/acme/app/auth\t0.412s\nFAIL",
		pass:  "ok  \tgithub.com/acme/app/auth\t0.398s",
		build: "go vet ./... && go build ./...",
		tasks: []task{
			{prompt: "the login test fails, fix it", pattern: "func Login", file: "auth/login.go",
				old: "\tif s.ExpiresAt.After(now) {", fix: "\tif !s.ExpiresAt.After(now) {",
				done: "Fixed: `Login` accepted expired sessions because the expiry check was inverted in auth/login.go. TestLoginExpiredSession passes now, and the rest of ./auth/... is green."},
			{prompt: "sessions should be refreshed when less than 5 minutes are left, add that and a test", pattern: "ExpiresAt", file: "auth/session.go",
				old: "\treturn s, nil", fix: "\tif time.Until(s.ExpiresAt) < 5*time.Minute {\n\t\ts = s.Refresh(now)\n\t}\n\treturn s, nil",
				done: "Added refresh-on-read in auth/session.go: a session with less than 5 minutes left is extended by `Refresh`. New test TestSessionRefreshNearExpiry covers it; all auth tests pass."},
			{prompt: "why does the middleware log every request twice?", pattern: "log.Printf", file: "internal/httpx/middleware.go",
				old: "\tmux.Handle(\"/\", Logging(Logging(h)))", fix: "\tmux.Handle(\"/\", Logging(h))",
				done: "The handler was wrapped in `Logging` twice in internal/httpx/middleware.go. I removed the extra wrapper; each request is logged once now."},
		},
		follows: []string{"also run go vet", "can you add a comment explaining the check?", "commit that with a short message", "ok, now update the changelog"},
		explore: []string{"Find every place that reads Session.ExpiresAt and report how each one compares it with the current time.", "List the HTTP handlers under internal/ and which middleware wraps each."},
		titles:  []string{"login-expiry-fix", "session-refresh"},
	},
	{
		cwd: "/Users/mika/code/dashboard-web", branch: "feat/usage-chart",
		files: []string{"src/lib/format.ts", "src/components/UsageChart.tsx", "src/lib/format.test.ts", "src/api/client.ts", "package.json"},
		test:  "bun test src/lib",
		fail:  "src/lib/format.test.ts:\n✗ formatCurrency > rounds half to even [0.41ms]\n  Expected: \"2.12\"\n  Received: \"2.13\"\n\n 11 pass\n 1 fail\nRan 12 tests across 3 files. [88.00ms]",
		pass:  "src/lib/format.test.ts:\n✓ formatCurrency > rounds half to even [0.22ms]\n\n 12 pass\n 0 fail\nRan 12 tests across 3 files. [79.00ms]",
		build: "bun run typecheck",
		tasks: []task{
			{prompt: "formatCurrency rounds 2.125 up, it should round half to even", pattern: "formatCurrency", file: "src/lib/format.ts",
				old: "  return (Math.round(value * 100) / 100).toFixed(2);", fix: "  return roundHalfEven(value, 2).toFixed(2);",
				done: "`formatCurrency` now rounds half to even through a small `roundHalfEven` helper in src/lib/format.ts; the failing test passes and all 12 tests are green."},
			{prompt: "the usage chart shows the wrong month on the x axis for UTC+ users", pattern: "getMonth", file: "src/components/UsageChart.tsx",
				old: "  const month = new Date(point.t).getMonth();", fix: "  const month = new Date(point.t).getUTCMonth();",
				done: "The chart bucketed points with the local month; it uses `getUTCMonth()` now, matching the API's UTC timestamps. Typecheck and tests pass."},
		},
		follows: []string{"add a test for that", "run the typecheck too", "looks good, can you also handle negative values?", "push the branch"},
		explore: []string{"Search the components for date formatting and list which ones use local time instead of UTC.", "Find how the API client retries failed requests and summarize the policy."},
		titles:  []string{"usage-chart-utc", "currency-rounding"},
	},
	{
		cwd: "/home/priya/src/ingest_worker", branch: "main",
		files: []string{"ingest/parser.py", "ingest/retry.py", "tests/test_parser.py", "ingest/__init__.py", "pyproject.toml"},
		test:  "uv run pytest tests/test_parser.py -q",
		fail:  "F.....                                                                   [100%]\n=================================== FAILURES ===================================\n_________________________ test_parse_row_quoted_comma __________________________\nE       AssertionError: assert ['a', '\"b', 'c\"'] == ['a', 'b,c']\n1 failed, 5 passed in 0.09s",
		pass:  "......                                                                   [100%]\n6 passed in 0.08s",
		build: "uv run ruff check ingest",
		tasks: []task{
			{prompt: "parse_row breaks on quoted commas, use the csv module", pattern: "def parse_row", file: "ingest/parser.py",
				old: "    fields = line.split(',')", fix: "    fields = next(csv.reader([line]))",
				done: "`parse_row` now splits with `csv.reader`, so quoted fields keep their commas. test_parse_row_quoted_comma passes; ruff is clean."},
			{prompt: "retries should back off exponentially with jitter, max 5 attempts", pattern: "def with_retry", file: "ingest/retry.py",
				old: "        time.sleep(1)", fix: "        time.sleep(min(30, 2 ** attempt) * random.uniform(0.5, 1.0))",
				done: "`with_retry` backs off exponentially (capped at 30 s) with 50–100 % jitter and gives up after 5 attempts. Added two tests with a fake clock."},
		},
		follows: []string{"what about empty lines?", "run ruff as well", "add a docstring", "and the type hints?"},
		explore: []string{"Look through ingest/ for every network call and tell me which are wrapped in with_retry.", "Find all CSV parsing in the repo and report which use split(',')."},
		titles:  []string{"csv-quoted-fields", "retry-backoff"},
	},
	{
		cwd: "/home/dev/infra/terraform-modules", branch: "chore/pin-providers",
		files: []string{"modules/bucket/main.tf", "modules/bucket/variables.tf", "modules/vpc/main.tf", "versions.tf", "README.md"},
		test:  "terraform validate",
		fail:  "╷\n│ Error: Unsupported argument\n│ \n│   on modules/bucket/main.tf line 14, in resource \"aws_s3_bucket\" \"this\":\n│   14:   acl = var.acl\n│ \n│ An argument named \"acl\" is not expected here.\n╵",
		pass:  "Success! The configuration is valid.",
		build: "terraform fmt -check -recursive",
		tasks: []task{
			{prompt: "terraform validate fails on the bucket module after the provider upgrade", pattern: "acl", file: "modules/bucket/main.tf",
				old: "  acl = var.acl", fix: "",
				done: "AWS provider 5 moved bucket ACLs to `aws_s3_bucket_acl`. I removed `acl` from `aws_s3_bucket.this` and added the separate resource; `terraform validate` succeeds."},
			{prompt: "pin every provider to a minor version in versions.tf", pattern: "required_providers", file: "versions.tf",
				old: "      version = \">= 4.0\"", fix: "      version = \"~> 5.31\"",
				done: "All providers in versions.tf are pinned with `~>` to their current minor versions (aws ~> 5.31, random ~> 3.6). fmt and validate pass."},
		},
		follows: []string{"also format everything", "update the README table of inputs", "does the vpc module need the same change?", "ok commit it"},
		explore: []string{"Check every module for arguments removed in AWS provider 5 and list them with file and line.", "Summarize which modules expose outputs that nothing else reads."},
		titles:  []string{"provider-pins", "bucket-acl-fix"},
	},
}

// project is the directory name Claude Code gives the working directory
// cwd: every character outside [A-Za-z0-9] replaced by '-'.
func project(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
}

// Thoughts, openers and reports the model writes.
var (
	thoughts = []string{
		"The user wants %s. I should find where that lives before changing anything.",
		"Let me look at how %s is implemented and what the tests expect.",
		"I need to check the surrounding code first; %s may be used elsewhere.",
		"The failure points at %s. Reading the file will tell me whether the check or the test is wrong.",
	}
	openers = []string{
		"Let me look at the code first.",
		"I'll search for where that is handled.",
		"Let me check the relevant files.",
		"I'll run the tests to see the current state.",
		"Let me read both files.",
	}
	afterEdit = []string{
		"Now let me run the tests.",
		"Let me verify the change.",
		"I'll re-run the test suite.",
	}
	reports = []string{
		"Found %d places. Two compare with time.Now() directly, the others go through the clock interface; details below.\n\n1. %s — direct comparison\n2. %s — via clock.Now()",
		"Summary: %d matches. %s is the only one that needs a change; %s already does it right.",
	}
)

// fill formats a template with the arguments it asks for.
func fill(tmpl string, args ...any) string {
	n := strings.Count(tmpl, "%")
	return fmt.Sprintf(tmpl, args[:min(n, len(args))]...)
}
