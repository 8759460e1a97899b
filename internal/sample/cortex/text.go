package cortex

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/journalship/journalship/internal/sample"
)

// theme is what a job works on: it keeps a job's tool inputs and outputs
// about one service, in one language.
type theme struct {
	service   string // e.g. "payments-api"
	org       string // e.g. "acme"
	lang      string // "go", "ts" or "py"
	namespace string // Kubernetes namespace
	noun      string // main domain noun, e.g. "refund"
}

var (
	services   = []string{"payments-api", "checkout-web", "ledger-svc", "notify-worker", "search-indexer", "auth-gateway", "billing-cron", "inventory-api"}
	orgs       = []string{"acme", "northwind", "globex", "initech"}
	namespaces = []string{"payments", "storefront", "platform", "data", "prod-eu1"}
	verbs      = []string{"handle", "load", "apply", "compute", "validate", "fetch", "persist", "reconcile", "refresh", "emit", "parse", "retry"}
	nouns      = []string{"refund", "invoice", "ledger", "payment", "webhook", "customer", "charge", "settlement", "session", "token", "order", "cursor"}
	langs      = []string{"go", "ts", "py"}
	dirsByLang = map[string][]string{
		"go": {"internal/billing", "internal/refunds", "cmd/server", "pkg/ledger", "internal/http/handlers", "internal/store"},
		"ts": {"src/handlers", "src/services", "src/lib", "src/routes", "src/jobs"},
		"py": {"app/services", "app/api", "app/models", "app/workers"},
	}
	extByLang = map[string]string{"go": ".go", "ts": ".ts", "py": ".py"}
)

// newTheme draws a job's theme.
func newTheme(x *rng) theme {
	return theme{
		service:   pick(x, services),
		org:       pick(x, orgs),
		lang:      pick(x, langs),
		namespace: pick(x, namespaces),
		noun:      pick(x, nouns),
	}
}

// words fills a template's placeholders: {verb} {Verb} {noun} {Noun} {n}
// {d} (a duration in seconds) {svc}.
func (th theme) words(x *rng, tpl string) string {
	v, n := pick(x, verbs), pick(x, nouns)
	if x.Chance(0.5) {
		n = th.noun
	}
	r := strings.NewReplacer(
		"{verb}", v, "{Verb}", title(v), "{noun}", n, "{Noun}", title(n),
		"{n}", fmt.Sprint(x.Between(2, 980)), "{d}", fmt.Sprintf("%d.%03d", x.Intn(4), x.Intn(1000)),
		"{svc}", th.service, "{org}", th.org, "{ns}", th.namespace,
	)
	return r.Replace(tpl)
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// path returns a plausible source path in the theme's language.
func (th theme) path(x *rng, test bool) string {
	name := pick(x, nouns)
	if x.Chance(0.5) {
		name = th.noun
	}
	dir := pick(x, dirsByLang[th.lang])
	switch {
	case test && th.lang == "go":
		return dir + "/" + name + "_test.go"
	case test && th.lang == "ts":
		return dir + "/" + name + ".test.ts"
	case test:
		return "tests/test_" + name + ".py"
	}
	return dir + "/" + name + extByLang[th.lang]
}

var codeByLang = map[string][]string{
	"go": {
		"func (s *{Noun}Service) {Verb}{Noun}(ctx context.Context, id string) error {",
		"\t{noun}, err := s.store.Get{Noun}(ctx, id)",
		"\tif err != nil {",
		"\t\treturn fmt.Errorf(\"{verb} {noun} %s: %w\", id, err)",
		"\t}",
		"\tif {noun}.Amount < 0 && !{noun}.Reversed {",
		"\t\treturn Err{Noun}Negative",
		"\tamount := decimal.NewFromInt({n}).Div(decimal.NewFromInt(100))",
		"\ts.log.Info(\"{verb} {noun}\", \"id\", id, \"amount\", amount.String())",
		"\treturn nil",
		"}",
		"",
		"// {Verb}{Noun} {verb}s the {noun} & records it in the ledger (see RFC-{n}).",
		"\tctx, cancel := context.WithTimeout(ctx, {n}*time.Millisecond)",
		"\tdefer cancel()",
	},
	"ts": {
		"export async function {verb}{Noun}(id: string): Promise<{Noun}> {",
		"  const {noun} = await db.{noun}.findUnique({ where: { id } });",
		"  if (!{noun}) throw new NotFoundError(`{noun} ${id} not found`);",
		"  logger.info({ id, amount: {noun}.amount }, \"{verb} {noun}\");",
		"  return {noun};",
		"}",
		"",
		"import { {Noun}Client } from \"../lib/{noun}-client\";",
		"  if ({noun}.amount <= 0 && {noun}.status !== \"reversed\") {",
		"    await queue.publish(\"{noun}.{verb}\", { id, attempt: {n} });",
		"  }",
		"// TODO(#{n}): {verb} {noun} in batches of <= 500",
	},
	"py": {
		"def {verb}_{noun}(self, {noun}_id: str) -> {Noun}:",
		"    {noun} = self.repo.get({noun}_id)",
		"    if {noun} is None:",
		"        raise {Noun}NotFound({noun}_id)",
		"    logger.info(\"{verb} %s\", {noun}_id)",
		"    return {noun}",
		"",
		"class {Noun}Service:",
		"    \"\"\"{Verb}s {noun}s & keeps the ledger consistent.\"\"\"",
		"    if {noun}.amount < Decimal(\"0.{n}\"):",
		"        await self.bus.emit(\"{noun}.{verb}\", {\"id\": {noun}_id, \"attempt\": {n}})",
	},
}

// codeLine returns one line of source code.
func (th theme) codeLine(x *rng) string { return th.words(x, pick(x, codeByLang[th.lang])) }

var testLinesByLang = map[string][]string{
	"go": {
		"=== RUN   Test{Verb}{Noun}",
		"--- PASS: Test{Verb}{Noun} ({d}s)",
		"--- PASS: Test{Verb}{Noun}/negative_amount ({d}s)",
		"ok  \tgithub.com/{org}/{svc}/internal/{noun}\t{d}s",
		"ok  \tgithub.com/{org}/{svc}/pkg/{noun}\t(cached)",
	},
	"ts": {
		" ✓ src/{noun}.test.ts > {verb}s a {noun} ({n}ms)",
		" ✓ src/{noun}.test.ts > rejects an empty {noun} ({n}ms)",
		" Test Files  {n} passed ({n})",
		"      Tests  {n} passed ({n})",
	},
	"py": {
		"tests/test_{noun}.py::test_{verb}_{noun} PASSED",
		"tests/test_{noun}.py::test_{verb}_{noun}[negative] PASSED",
		"======================== {n} passed in {d}s ========================",
	},
}

var failLinesByLang = map[string][]string{
	"go": {
		"--- FAIL: Test{Verb}{Noun} ({d}s)",
		"    {noun}_test.go:{n}: {verb}{Noun}() = {n}, want {n}",
		"FAIL\tgithub.com/{org}/{svc}/internal/{noun}\t{d}s",
	},
	"ts": {
		" × src/{noun}.test.ts > {verb}s a {noun} ({n}ms)",
		"   → expected {n} to be {n} // Object.is equality",
		" Test Files  1 failed | {n} passed ({n})",
	},
	"py": {
		"tests/test_{noun}.py::test_{verb}_{noun} FAILED",
		"E       AssertionError: assert {n} == {n}",
		"==================== 1 failed, {n} passed in {d}s ====================",
	},
}

// fill joins generated lines with "\n" until the text reaches target
// characters, then cuts it to at most limit characters.
func fill(target, limit int, line func() string) string {
	var b strings.Builder
	for b.Len() < target {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line())
	}
	return truncRunes(b.String(), limit, "\n…[truncated]")
}

// truncRunes returns s if it has at most limit characters, else a prefix
// ending with marker that has exactly limit characters.
func truncRunes(s string, limit int, marker string) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	keep := limit - utf8.RuneCountInString(marker)
	i := 0
	for n := 0; n < keep; n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + marker
}

// kv is one key of a tool input, kept in order.
type kv struct {
	k string
	v any
}

// objJSON renders kvs as a compact JSON object without HTML escaping, the
// way JSON.stringify does.
func objJSON(kvs ...kv) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range kvs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(rawJSON(p.k))
		b.WriteByte(':')
		b.Write(rawJSON(p.v))
	}
	b.WriteByte('}')
	return b.String()
}

// rawJSON is sample.Marshal of v, which is always a string, number, bool
// or slice of those and so cannot fail.
func rawJSON(v any) []byte {
	b, err := sample.Marshal(v)
	if err != nil {
		return []byte(`null`)
	}
	return b
}
