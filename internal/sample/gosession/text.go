package gosession

import (
	"fmt"
	"strings"
)

// task is one thing a user asks for in a theme's repository: the prompt,
// where the fix goes and what the model says when done.
type task struct {
	prompt  string
	pattern string // what the model greps for first
	file    string // the file it reads and edits
	sig     string // the enclosing function's first line
	old     string // the faulty line
	fix     string // its replacement
	done    string // the final answer
}

// theme is the repository a session works in.
type theme struct {
	cwd     string
	pkg     string
	agents  []string // agent_name values ("" the most common)
	system  string   // the system prompt some sessions persist
	files   []string // what Glob lists
	test    string   // the test command
	fail    string   // its output before the fix
	pass    string   // after it
	tasks   []task
	follows []string // follow-up prompts answered without tools
	answers []string // their answers
}

// themes are the repositories sessions run in.
var themes = []theme{
	{
		cwd: "/home/dev/app", pkg: "auth", agents: []string{"", "", "fixer"},
		system: "You are a careful Go engineer working in /home/dev/app. Run the tests before you finish.",
		files:  []string{"auth/login.go", "auth/login_test.go", "auth/session.go", "auth/token.go"},
		test:   "go test ./auth/...",
		fail:   "--- FAIL: TestLoginEmptyPassword (0.00s)\n    login_test.go:21: Login(\"bob\", \"\") = nil, want ErrEmptyPassword\nFAIL\nFAIL\tgithub.com/dev/app/auth\t0.012s",
		pass:   "ok  \tgithub.com/dev/app/auth\t0.011s",
		tasks: []task{
			{"fix the failing login test", "func Login", "auth/login.go", "func Login(user, password string) error {",
				"if user == \"\" {", "if user == \"\" || password == \"\" {", "Fixed: Login now rejects an empty password as well as an empty user; `go test ./auth/...` passes."},
			{"sessions never expire, can you check the TTL handling?", "ttl", "auth/session.go", "func (s *Session) Expired(now time.Time) bool {",
				"return now.After(s.Created.Add(s.TTL * time.Second))", "return now.After(s.Created.Add(s.TTL))", "The TTL was multiplied by a second twice (it is already a Duration). Expired now compares against Created+TTL and the tests pass."},
		},
		follows: []string{"does the token refresh path have the same problem?", "thanks, anything else worth a look in auth/?"},
		answers: []string{"No: token.go computes the expiry from a Duration directly, so it was never scaled twice.", "token.go swallows the error of rand.Read; worth returning it, but it is not covered by a failing test."},
	},
	{
		cwd: "/srv/ingest", pkg: "queue", agents: []string{"", "ingest-bot"},
		system: "You maintain the ingest worker. Keep changes minimal and explain them.",
		files:  []string{"internal/queue/retry.go", "internal/queue/retry_test.go", "internal/queue/consumer.go", "cmd/worker/main.go"},
		test:   "go test ./internal/queue/...",
		fail:   "--- FAIL: TestBackoffCapped (0.00s)\n    retry_test.go:34: backoff(12) = 1h8m16s, want <= 30s\nFAIL\nFAIL\tgithub.com/acme/ingest/internal/queue\t0.020s",
		pass:   "ok  \tgithub.com/acme/ingest/internal/queue\t0.019s",
		tasks: []task{
			{"the retry backoff grows without bound, cap it at 30s", "func backoff", "internal/queue/retry.go", "func backoff(attempt int) time.Duration {",
				"return base << attempt", "return min(base<<attempt, maxBackoff)", "backoff is now capped at maxBackoff (30s); TestBackoffCapped passes."},
			{"messages are acked before they are processed, please fix", "Ack(", "internal/queue/consumer.go", "func (c *Consumer) handle(m *Message) error {",
				"m.Ack()", "defer m.Ack()", "The consumer acked on receipt; it now acks after the handler returns, so a crash redelivers the message."},
		},
		follows: []string{"how many retries do we allow now?", "is the consumer change safe with the batch size at 500?"},
		answers: []string{"maxAttempts is still 8: with the cap the last waits are 30s each, about 3 minutes in total.", "Yes: acking after the handler only delays the ack; the batch size does not change."},
	},
	{
		cwd: "/Users/mika/code/billing", pkg: "invoice", agents: []string{"", "reviewer"},
		system: "You are reviewing and fixing the billing service. Amounts are in cents.",
		files:  []string{"invoice/tax.go", "invoice/tax_test.go", "invoice/total.go", "invoice/round.go"},
		test:   "go test ./invoice/...",
		fail:   "--- FAIL: TestTaxRounding (0.00s)\n    tax_test.go:48: Tax(1999, 0.2) = 399, want 400\nFAIL\nFAIL\tgithub.com/mika/billing/invoice\t0.008s",
		pass:   "ok  \tgithub.com/mika/billing/invoice\t0.007s",
		tasks: []task{
			{"tax is off by a cent on some invoices", "func Tax", "invoice/tax.go", "func Tax(cents int64, rate float64) int64 {",
				"return int64(float64(cents) * rate)", "return int64(math.Round(float64(cents) * rate))", "Tax truncated instead of rounding; it now rounds half away from zero, matching the invoices."},
			{"the total ignores discounts on credit notes", "Discount", "invoice/total.go", "func Total(lines []Line) int64 {",
				"if l.Kind == Sale {", "if l.Kind == Sale || l.Kind == CreditNote {", "Discounts now apply to credit notes too; TestTotalCreditNote covers it."},
		},
		follows: []string{"can you summarise what changed for the changelog?", "do we need a migration for existing invoices?"},
		answers: []string{"- invoice: round tax to the nearest cent instead of truncating\n- invoice: apply discounts to credit notes", "No: stored invoices keep their amounts; only new ones are computed with the fix."},
	},
	{
		cwd: "/home/ci/deployctl", pkg: "cmd", agents: []string{"", "release"},
		system: "You work on deployctl, a small CLI. Prefer the standard library.",
		files:  []string{"cmd/root.go", "cmd/deploy.go", "cmd/deploy_test.go", "internal/config/load.go"},
		test:   "go test ./cmd/...",
		fail:   "--- FAIL: TestDeployDryRun (0.01s)\n    deploy_test.go:17: dry run applied 3 changes, want 0\nFAIL\nFAIL\tgithub.com/ci/deployctl/cmd\t0.031s",
		pass:   "ok  \tgithub.com/ci/deployctl/cmd\t0.029s",
		tasks: []task{
			{"--dry-run still applies the changes", "dryRun", "cmd/deploy.go", "func runDeploy(cmd *cobra.Command, args []string) error {",
				"return apply(plan)", "if dryRun {\n\t\treturn printPlan(plan)\n\t}\n\treturn apply(plan)", "runDeploy ignored --dry-run; it now prints the plan and returns without applying."},
			{"the config loader panics on an empty file", "func Load", "internal/config/load.go", "func Load(path string) (*Config, error) {",
				"return c, yaml.Unmarshal(b, c)", "if len(bytes.TrimSpace(b)) == 0 {\n\t\treturn c, nil\n\t}\n\treturn c, yaml.Unmarshal(b, c)", "An empty file now yields the default config instead of a nil map panic."},
		},
		follows: []string{"what does --dry-run print now?", "should we add a flag to skip the confirmation?"},
		answers: []string{"The plan, one change per line (`+ create`, `~ update`, `- delete`), then `dry run: nothing applied`.", "There is already --yes in root.go; it only needs to be documented in the README."},
	},
}

// grepOut is Grep's answer for a task.
func (t *task) grepOut(th *theme) string {
	test := strings.TrimSuffix(t.file, ".go") + "_test.go"
	return fmt.Sprintf("%s:14:%s\n%s:9:\t// %s", t.file, t.sig, test, t.pattern)
}

// readOut is Read's answer: the file's start with line numbers, as the
// Read tool writes it.
func (t *task) readOut(th *theme) string {
	return fmt.Sprintf("     1\tpackage %s\n     2\t\n    14\t%s\n    15\t\t%s\n    16\t}\n", th.pkg, t.sig, t.old)
}

// source is the file's content a checkpoint saves before the edit.
func (t *task) source(th *theme) string {
	return fmt.Sprintf("package %s\n\n%s\n\t%s\n}\n", th.pkg, t.sig, t.old)
}

// thoughts are what an assistant message says beside its tool calls, by
// its first call's tool.
var thoughts = map[string]string{
	"Grep": "I'll find where that is handled.",
	"Glob": "Let me look at the layout first.",
	"Read": "Reading the file to see the surrounding logic.",
	"Edit": "Now I'll make the change.",
	"Bash": "Running the tests.",
}
