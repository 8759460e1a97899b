package orbitmesh

import (
	"fmt"
	"strings"
)

// theme is what a session works on: one repository, in one language.
type theme struct {
	repo string // e.g. "payments-api"
	lang string // "go", "ts" or "py"
	pkg  string // the package the task is about
	noun string // the domain noun, e.g. "refund"
	task task
}

// task is what the user asks for (first, or as a follow-up) and what the
// agent answers when it is done.
type task struct{ title, prompt, done string }

var (
	repos = []string{"payments-api", "checkout-web", "ledger-svc", "notify-worker", "search-indexer", "auth-gateway", "orbitmesh", "inventory-api"}
	nouns = []string{"refund", "invoice", "webhook", "session", "token", "order", "cursor", "settlement"}
	langs = []string{"go", "ts", "py"}
	pkgs  = map[string][]string{
		"go": {"internal/retry", "internal/store", "internal/http/handlers", "pkg/ledger", "internal/service"},
		"ts": {"src/services", "src/lib", "src/routes", "src/jobs"},
		"py": {"app/services", "app/api", "app/workers"},
	}
	exts  = map[string]string{"go": ".go", "ts": ".ts", "py": ".py"}
	tasks = []task{
		{"Fix flaky test", "Test{Noun}Retry in {pkg} fails about one run in ten on CI. Find out why and make it deterministic.",
			"Fixed: the test depended on map iteration order. I sorted the keys before comparing; it passed 200 runs in a row."},
		{"Add webhook retries", "Outgoing {noun} webhooks give up after the first 5xx. Add retries with exponential backoff (max 5 attempts) and a test.",
			"Done. {Noun} webhooks now retry 5xx responses with exponential backoff (0.5s to 8s, 5 attempts); {n} tests pass, including the new one."},
		{"Explain {noun} expiry", "How does {pkg} decide that a {noun} is stale? Give me a short summary with file references.",
			"Summary: {file} marks a {noun} stale when its updated_at is older than the TTL read from config (default 15m); callers treat ErrStale as a cache miss."},
		{"Paginate {noun} listing", "The /v1/{noun}s endpoint returns everything at once. Add cursor pagination (limit 100 by default) without breaking existing clients.",
			"Done. /v1/{noun}s takes ?cursor= and ?limit= (default 100, max 1000); without them it returns the first page and a next_cursor. {n} tests pass."},
		{"Fix lint errors", "CI lint is red on main after the last merge. Fix the lint errors in {pkg} without changing behaviour.",
			"The lint errors were two unused parameters and a shadowed err in {file}; fixed without behaviour changes. The linter is clean and {n} tests pass."},
		{"Add {noun} metrics", "Add a counter for failed {noun} writes and a histogram for their latency, labelled by outcome.",
			"Added {noun}_write_failures_total and {noun}_write_duration_seconds, both labelled by outcome; {n} tests pass."},
		{"Migrate {noun} table", "Write the migration that adds a nullable archived_at column to the {noun}s table, and backfill it for rows older than 90 days.",
			"The migration adds archived_at (nullable) and backfills rows older than 90 days in batches of 5000; {n} tests pass."},
	}
	followUps = []task{
		{"", "Thanks. Can you also add a test for the empty {noun} case?", "Added Test{Noun}Empty in {file}; {n} tests pass."},
		{"", "Looks good. Run the full test suite once more before I merge.", "Full suite: {n} tests pass, no flakes in three runs."},
		{"", "Please rename the helper to something clearer and update the callers.", "Renamed it to load{Noun}OrStale and updated its callers; {n} tests pass."},
		{"", "One more thing: the error message should mention the {noun} id.", "The error now reads \"{noun} <id> is stale\"; {n} tests pass."},
		{"", "Can you write a short PR description for this?", "PR description: this change is confined to {pkg}; it adds tests and changes no public API."},
	}
)

// newTheme draws a session's theme.
func newTheme(x *rng) theme {
	th := theme{repo: pick(x, repos), lang: pick(x, langs), noun: pick(x, nouns)}
	th.pkg = pick(x, pkgs[th.lang])
	t := pick(x, tasks)
	th.task = task{title: th.words(x, t.title), prompt: th.words(x, t.prompt), done: th.words(x, t.done)}
	return th
}

// dir is the session's working directory.
func (th theme) dir() string { return "/srv/workspaces/" + th.repo }

// file returns a source file of the theme's package.
func (th theme) file(x *rng) string {
	base := pick(x, []string{th.noun, th.noun + "_store", "handler", "retry", "client"})
	if th.lang == "ts" {
		base = strings.ReplaceAll(base, "_", "-")
	}
	return th.pkg + "/" + base + exts[th.lang]
}

// words fills a template's placeholders: {noun} {Noun} {pkg} {file} {n}.
func (th theme) words(x *rng, tpl string) string {
	r := strings.NewReplacer("{noun}", th.noun, "{Noun}", title(th.noun),
		"{pkg}", th.pkg, "{file}", th.file(x), "{n}", fmt.Sprint(x.Between(12, 480)))
	return r.Replace(tpl)
}

// testCommand is how the theme's tests run.
func (th theme) testCommand() string {
	switch th.lang {
	case "go":
		return "go test ./" + th.pkg + "/..."
	case "ts":
		return "npx vitest run " + th.pkg
	}
	return "pytest -q " + th.pkg
}
