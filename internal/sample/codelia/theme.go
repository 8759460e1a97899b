package codelia

import (
	"fmt"
	"strings"
)

// unit is one piece of code a task is about: a source file, the function
// in it and the test that covers it.
type unit struct {
	dir, file, testFile string
	fn, test            string
	bug, fix            string // the faulty line and its fix, for edits
}

// theme is the repository a run works in.
type theme struct {
	repo, lang, module string
	units              []unit
	listing            []string // top-level entries, for ls
	version            string   // the toolchain line a build prints
}

// themes are the repositories runs work in.
var themes = []theme{
	{
		repo: "ledger-api", lang: "go", module: "github.com/northwind/ledger-api", version: "go1.25.3",
		listing: []string{"AGENTS.md", "Makefile", "README.md", "cmd", "go.mod", "go.sum", "internal", "migrations"},
		units: []unit{
			{dir: "internal/ledger", file: "internal/ledger/balance.go", testFile: "internal/ledger/balance_test.go",
				fn: "Balance", test: "TestBalanceAfterRefund",
				bug: "\t\tsum += e.Amount", fix: "\t\tsum += e.Signed()"},
			{dir: "internal/httpapi", file: "internal/httpapi/accounts.go", testFile: "internal/httpapi/accounts_test.go",
				fn: "listAccounts", test: "TestListAccountsPagination",
				bug: "\tend := offset + limit + 1", fix: "\tend := min(offset+limit, len(accts))"},
			{dir: "internal/store", file: "internal/store/entries.go", testFile: "internal/store/entries_test.go",
				fn: "InsertEntry", test: "TestInsertEntryDuplicate",
				bug: "\tif err != nil && err != sql.ErrNoRows {", fix: "\tif err != nil && !errors.Is(err, sql.ErrNoRows) {"},
		},
	},
	{
		repo: "dashboard-web", lang: "ts", module: "dashboard-web", version: "bun 1.2.21",
		listing: []string{"AGENTS.md", "README.md", "bun.lock", "package.json", "public", "src", "tsconfig.json", "vite.config.ts"},
		units: []unit{
			{dir: "src/lib", file: "src/lib/format.ts", testFile: "src/lib/format.test.ts",
				fn: "formatCurrency", test: "formatCurrency rounds half to even",
				bug: "  return (Math.round(value * 100) / 100).toFixed(2);", fix: "  return roundHalfEven(value, 2).toFixed(2);"},
			{dir: "src/hooks", file: "src/hooks/usePolling.ts", testFile: "src/hooks/usePolling.test.ts",
				fn: "usePolling", test: "usePolling stops when unmounted",
				bug: "  useEffect(() => { timer = setInterval(tick, ms); }, [ms]);", fix: "  useEffect(() => { const t = setInterval(tick, ms); return () => clearInterval(t); }, [ms]);"},
		},
	},
	{
		repo: "ingest-worker", lang: "py", module: "ingest", version: "Python 3.12.7",
		listing: []string{"AGENTS.md", "README.md", "ingest", "pyproject.toml", "tests", "uv.lock"},
		units: []unit{
			{dir: "ingest", file: "ingest/parser.py", testFile: "tests/test_parser.py",
				fn: "parse_row", test: "test_parse_row_empty_fields",
				bug: "    fields = line.split(',')", fix: "    fields = next(csv.reader([line]))"},
			{dir: "ingest", file: "ingest/retry.py", testFile: "tests/test_retry.py",
				fn: "backoff_delay", test: "test_backoff_delay_is_capped",
				bug: "    return base * 2 ** attempt", fix: "    return min(base * 2 ** attempt, cap)"},
		},
	},
}

// testCommand is the command that runs u's tests.
func (th *theme) testCommand(u unit) string {
	switch th.lang {
	case "go":
		return "go test ./" + u.dir + "/..."
	case "ts":
		return "bun test " + u.testFile
	}
	return "uv run pytest " + u.testFile + " -q"
}

// testFailure is what the test command prints while u's bug is there.
func (th *theme) testFailure(x *rng, u unit) string {
	line := x.Between(24, 140)
	switch th.lang {
	case "go":
		want := x.Between(10, 99) * 10
		return fmt.Sprintf("--- FAIL: %s (0.00s)\n    %s:%d: %s() = %d, want %d\nFAIL\nFAIL\t%s/%s\t0.%03ds\nFAIL\n",
			u.test, baseName(u.testFile), line, u.fn, want+x.Between(1, 9)*10, want, th.module, u.dir, x.Between(100, 999))
	case "ts":
		return fmt.Sprintf("%s:\n(fail) %s [%d.%02dms]\n\nerror: expect(received).toBe(expected)\n\nExpected: \"12.34\"\nReceived: \"12.35\"\n\n      at %s:%d:%d\n\n 0 pass\n 1 fail\nRan 1 tests across 1 files. [%dms]\n",
			u.testFile, u.test, x.Between(0, 9), x.Between(0, 99), u.testFile, line, x.Between(5, 30), x.Between(20, 200))
	}
	return fmt.Sprintf("F.....                                                                   [100%%]\n=================================== FAILURES ===================================\n____________________________ %s ____________________________\n%s:%d: in %s\n    assert result == expected\nE   AssertionError\n=========================== short test summary info ============================\nFAILED %s::%s - AssertionError\n1 failed, 5 passed in 0.%02ds\n",
		u.test, u.file, line, u.fn, u.testFile, u.test, x.Between(10, 99))
}

// testSuccess is what the test command prints once the tests pass.
func (th *theme) testSuccess(x *rng, u unit) string {
	switch th.lang {
	case "go":
		return fmt.Sprintf("ok  \t%s/%s\t0.%03ds\n", th.module, u.dir, x.Between(100, 999))
	case "ts":
		return fmt.Sprintf("%s:\n(pass) %s [%d.%02dms]\n\n 1 pass\n 0 fail\nRan 1 tests across 1 files. [%dms]\n",
			u.testFile, u.test, x.Between(0, 9), x.Between(0, 99), x.Between(20, 200))
	}
	return fmt.Sprintf("......                                                                   [100%%]\n6 passed in 0.%02ds\n", x.Between(10, 99))
}

// source is a few numbered lines of u's file around its bug, as the read
// tool returns them.
func (th *theme) source(x *rng, u unit) (text string, first int) {
	first = x.Between(12, 90)
	var lines []string
	switch th.lang {
	case "go":
		lines = []string{"// " + u.fn + " is documented here.", "func " + u.fn + "(entries []Entry) int64 {", "\tvar sum int64", "\tfor _, e := range entries {", u.bug, "\t}", "\treturn sum", "}"}
	case "ts":
		lines = []string{"/** " + u.fn + " */", "export function " + u.fn + "(value: number): string {", "  if (!Number.isFinite(value)) return \"-\";", u.bug, "}"}
	default:
		lines = []string{"def " + u.fn + "(line: str) -> Row:", "    \"\"\"" + u.fn + " parses one input line.\"\"\"", "    line = line.rstrip(\"\\n\")", u.bug, "    return Row.from_fields(fields)"}
	}
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", first+i, l)
	}
	return b.String(), first
}

// grepHits is what grep prints when looking for u's function.
func (th *theme) grepHits(x *rng, u unit) string {
	return fmt.Sprintf("%s:%d:%s\n%s:%d:%s\n%s:%d:%s\n",
		u.file, x.Between(10, 60), declaration(th.lang, u.fn),
		u.testFile, x.Between(10, 40), "\t"+callOf(th.lang, u.fn),
		u.testFile, x.Between(41, 90), "\t"+callOf(th.lang, u.fn))
}

// globHits lists the theme's source files matching a pattern.
func (th *theme) globHits() (pattern, out string) {
	var files []string
	for _, u := range th.units {
		files = append(files, u.file, u.testFile)
	}
	return "**/*." + th.lang, strings.Join(files, "\n") + "\n"
}

func declaration(lang, fn string) string {
	switch lang {
	case "go":
		return "func " + fn + "("
	case "ts":
		return "export function " + fn + "("
	}
	return "def " + fn + "("
}

func callOf(lang, fn string) string {
	switch lang {
	case "go":
		return "got := " + fn + "(tc.in)"
	case "ts":
		return "const got = " + fn + "(tc.input);"
	}
	return "result = " + fn + "(case)"
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
