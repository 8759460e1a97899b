package cortex

import (
	"fmt"
	"strings"
)

// toolCall is one generated tool invocation, before it becomes events.
type toolCall struct {
	name       string
	sideEffect bool
	input      string // the full input, as JSON
	result     string // result_summary (already cut to the limit)
	errCode    *string
	durMs      int64
}

// toolDef describes one tool of the catalog.
type toolDef struct {
	name       string
	sideEffect bool
	weight     int
	dur        [2]int64 // duration range in ms
	input      func(th theme, x *rng) string
	output     func(th theme, x *rng, target, limit int) string
	failure    func(th theme, x *rng, limit int) (code, msg string)
}

// approvalTool is the side-effecting tool that waits for a human approval.
const approvalTool = "deploy_service"

var catalog = []toolDef{
	{name: "read_file", weight: 30, dur: [2]int64{2, 45}, input: inReadFile, output: outCode, failure: failENOENT},
	{name: "search_code", weight: 14, dur: [2]int64{30, 900}, input: inSearch, output: outSearch, failure: failTimeout},
	{name: "bash", sideEffect: true, weight: 12, dur: [2]int64{300, 45000}, input: inBash, output: outTests, failure: failTests},
	{name: "run_tests", weight: 10, dur: [2]int64{1500, 120000}, input: inRunTests, output: outTests, failure: failTests},
	{name: "write_file", sideEffect: true, weight: 10, dur: [2]int64{2, 30}, input: inWriteFile, output: outWrote, failure: failENOENT},
	{name: "http_get", weight: 5, dur: [2]int64{80, 2500}, input: inHTTPGet, output: outHTTP, failure: failHTTP},
	{name: "web_search", weight: 4, dur: [2]int64{600, 4000}, input: inWebSearch, output: outWebSearch, failure: failTimeout},
	{name: "kubectl_get", weight: 6, dur: [2]int64{150, 1200}, input: inKubectl, output: outKubectl, failure: failForbidden},
	{name: "git_commit", sideEffect: true, weight: 4, dur: [2]int64{40, 400}, input: inGitCommit, output: outGitCommit, failure: failNothing},
	{name: "create_pull_request", sideEffect: true, weight: 2, dur: [2]int64{600, 3000}, input: inPR, output: outPR, failure: failHTTP},
	{name: "send_slack_message", sideEffect: true, weight: 2, dur: [2]int64{150, 900}, input: inSlack, output: outSlack, failure: failHTTP},
	{name: approvalTool, sideEffect: true, weight: 0, dur: [2]int64{20000, 180000}, input: inDeploy, output: outDeploy, failure: failHTTP},
}

// toolByName returns the catalog entry for name, or read_file when the
// catalog has no such tool.
func toolByName(name string) toolDef {
	for _, t := range catalog {
		if t.name == name {
			return t
		}
	}
	return catalog[0]
}

// randomTool draws a tool by weight, never the approval tool.
func randomTool(x *rng) toolDef {
	w := make([]int, len(catalog))
	for i, t := range catalog {
		w[i] = t.weight
	}
	return catalog[x.Weighted(w...)]
}

// resultTarget draws a result_summary length: mostly short, sometimes long
// enough to be truncated at the limit.
func resultTarget(x *rng) int {
	switch x.Weighted(65, 25, 7, 3) {
	case 0:
		return x.Between(40, 300)
	case 1:
		return x.Between(300, 1200)
	case 2:
		return x.Between(1400, 3000)
	}
	return x.Between(3000, 9000)
}

// makeCall generates one invocation of def. fail makes it unsuccessful;
// target > 0 forces the result length.
func makeCall(def toolDef, th theme, x *rng, fail bool, target, limit int) toolCall {
	c := toolCall{name: def.name, sideEffect: def.sideEffect, input: def.input(th, x)}
	c.durMs = x.Between64(def.dur[0], def.dur[1])
	if fail {
		code, msg := def.failure(th, x, limit)
		c.errCode, c.result = &code, msg
		return c
	}
	if target <= 0 {
		target = resultTarget(x)
	}
	c.result = def.output(th, x, target, limit)
	return c
}

func inReadFile(th theme, x *rng) string {
	return objJSON(kv{"path", th.path(x, x.Chance(0.2))}, kv{"offset", 0}, kv{"limit", pick(x, []int{200, 400, 2000})})
}

func inSearch(th theme, x *rng) string {
	return objJSON(kv{"query", th.words(x, pick(x, []string{"{verb}{Noun}", "Err{Noun}", "{noun}.amount", "\"{noun}.{verb}\""}))},
		kv{"glob", "**/*" + extByLang[th.lang]}, kv{"max_results", 50})
}

func inBash(th theme, x *rng) string {
	cmds := map[string][]string{
		"go": {"go test ./internal/... -run Test{Verb}{Noun} -count=1", "go vet ./...", "golangci-lint run ./internal/{noun}/..."},
		"ts": {"npx vitest run src/{noun}.test.ts", "npm run lint -- --max-warnings=0", "npx tsc --noEmit"},
		"py": {"pytest tests/test_{noun}.py -q", "ruff check app/", "mypy app/services"},
	}
	return objJSON(kv{"command", th.words(x, pick(x, cmds[th.lang]))}, kv{"cwd", "/workspace/" + th.service}, kv{"timeout_ms", 120000})
}

func inRunTests(th theme, x *rng) string {
	return objJSON(kv{"target", th.path(x, true)}, kv{"verbose", x.Chance(0.3)})
}

func inWriteFile(th theme, x *rng) string {
	content := fill(x.Between(100, 1400), 1<<20, func() string { return th.codeLine(x) })
	return objJSON(kv{"path", th.path(x, x.Chance(0.3))}, kv{"content", content})
}

func inHTTPGet(th theme, x *rng) string {
	return objJSON(kv{"url", th.words(x, "https://{svc}.{ns}.svc.cluster.local/internal/{noun}s/{n}?expand=ledger&debug=true")},
		kv{"headers", objJSON(kv{"Accept", "application/json"})})
}

func inWebSearch(th theme, x *rng) string {
	return objJSON(kv{"query", th.words(x, pick(x, []string{
		"{noun} idempotency key best practices", "decimal rounding half even {noun} amounts", "kubernetes CrashLoopBackOff exit code 137 {svc}",
	}))})
}

func inKubectl(th theme, x *rng) string {
	return objJSON(kv{"resource", pick(x, []string{"pods", "deployments", "events"})}, kv{"namespace", th.namespace}, kv{"selector", "app=" + th.service})
}

func inGitCommit(th theme, x *rng) string {
	return objJSON(kv{"message", th.words(x, "fix({noun}): {verb} {noun} amounts with half-even rounding\n\nRefs #{n}")}, kv{"all", true})
}

func inPR(th theme, x *rng) string {
	return objJSON(kv{"repo", th.org + "/" + th.service}, kv{"title", th.words(x, "Fix {noun} {verb} rounding")},
		kv{"base", "main"}, kv{"head", th.words(x, "agent/{noun}-{verb}-{n}")})
}

func inSlack(th theme, x *rng) string {
	return objJSON(kv{"channel", "#" + th.service + "-alerts"}, kv{"text", th.words(x, "Opened a fix for the {noun} {verb} failures, PR incoming :rocket:")})
}

func inDeploy(th theme, x *rng) string {
	return objJSON(kv{"service", th.service}, kv{"version", fmt.Sprintf("v2.%d.%d", x.Between(3, 40), x.Between(0, 12))},
		kv{"environment", "production"}, kv{"strategy", "canary"})
}

func outCode(th theme, x *rng, target, limit int) string {
	return fill(target, limit, func() string { return th.codeLine(x) })
}

func outSearch(th theme, x *rng, target, limit int) string {
	return fill(target, limit, func() string {
		return fmt.Sprintf("%s:%d:%s", th.path(x, false), x.Between(3, 900), strings.TrimSpace(th.codeLine(x)))
	})
}

func outTests(th theme, x *rng, target, limit int) string {
	return fill(target, limit, func() string { return th.words(x, pick(x, testLinesByLang[th.lang])) })
}

func outWrote(th theme, x *rng, _, limit int) string {
	return truncRunes(fmt.Sprintf("Wrote %d bytes to %s", x.Between(120, 9000), th.path(x, false)), limit, "…")
}

func outHTTP(th theme, x *rng, target, limit int) string {
	head := fmt.Sprintf("HTTP/1.1 200 OK\ncontent-type: application/json; charset=utf-8\nx-request-id: %s\n\n", x.Chars(16, "0123456789abcdef"))
	return head + fill(max(target-len(head), 1), limit-len(head), func() string {
		return objJSON(kv{"id", th.words(x, "{noun}_{n}")}, kv{"amount", x.Between(1, 99999)}, kv{"currency", pick(x, []string{"EUR", "USD", "GBP"})},
			kv{"status", pick(x, []string{"settled", "pending", "reversed"})}, kv{"note", th.words(x, "<auto> {verb}d by {svc} & reconciled")})
	})
}

func outWebSearch(th theme, x *rng, target, limit int) string {
	i := 0
	return fill(target, limit, func() string {
		i++
		return th.words(x, fmt.Sprintf("%d. How to {verb} {noun}s safely — engineering blog\n   https://example.org/blog/{noun}-{verb}-%d\n   \"Always {verb} the {noun} inside the same transaction…\"", i, i))
	})
}

func outKubectl(th theme, x *rng, target, limit int) string {
	head := "NAME                                  READY   STATUS             RESTARTS        AGE"
	return fill(target, limit, func() string {
		if head != "" {
			h := head
			head = ""
			return h
		}
		status := pick(x, []string{"Running", "Running", "Running", "CrashLoopBackOff", "OOMKilled"})
		return fmt.Sprintf("%-37s %d/1     %-18s %-15d %dh%dm", th.service+"-"+x.Chars(9, k8sAlphabet)+"-"+x.Chars(5, k8sAlphabet),
			x.Between(0, 1), status, x.Between(0, 14), x.Between(0, 30), x.Between(0, 59))
	})
}

func outGitCommit(th theme, x *rng, _, limit int) string {
	return truncRunes(th.words(x, fmt.Sprintf("[agent/{noun}-fix %s] fix({noun}): {verb} {noun} amounts with half-even rounding\n %d files changed, %d insertions(+), %d deletions(-)",
		x.Chars(7, "0123456789abcdef"), x.Between(1, 6), x.Between(2, 140), x.Between(0, 60))), limit, "…")
}

func outPR(th theme, x *rng, _, limit int) string {
	n := x.Between(100, 4000)
	return truncRunes(fmt.Sprintf("Created pull request #%d: https://github.com/%s/%s/pull/%d", n, th.org, th.service, n), limit, "…")
}

func outSlack(th theme, x *rng, _, limit int) string {
	return truncRunes(fmt.Sprintf("{\"ok\":true,\"channel\":\"C0%s\",\"ts\":\"17%d.%06d\"}", x.Chars(8, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"), x.Between(10000000, 99999999), x.Intn(1000000)), limit, "…")
}

func outDeploy(th theme, x *rng, _, limit int) string {
	return truncRunes(th.words(x, fmt.Sprintf("rollout {svc}: canary 10%% healthy, 50%% healthy, 100%% healthy\ndeployment \"{svc}\" successfully rolled out (revision %d)", x.Between(12, 300))), limit, "…")
}

func failENOENT(th theme, x *rng, limit int) (string, string) {
	return "ENOENT", truncRunes(fmt.Sprintf("open /workspace/%s/%s: no such file or directory", th.service, th.path(x, false)), limit, "…")
}

func failTimeout(_ theme, x *rng, limit int) (string, string) {
	return "TIMEOUT", truncRunes(fmt.Sprintf("tool timed out after %dms", pick(x, []int{30000, 60000})), limit, "…")
}

func failTests(th theme, x *rng, limit int) (string, string) {
	return "EXIT_CODE_1", fill(x.Between(200, 1600), limit, func() string { return th.words(x, pick(x, failLinesByLang[th.lang])) })
}

func failHTTP(th theme, x *rng, limit int) (string, string) {
	code := pick(x, []int{429, 502, 503})
	return fmt.Sprintf("HTTP_%d", code), truncRunes(fmt.Sprintf("upstream returned %d: <html><head><title>%d</title></head><body>%s</body></html>", code, code, th.service), limit, "…")
}

func failForbidden(th theme, _ *rng, limit int) (string, string) {
	return "FORBIDDEN", truncRunes(fmt.Sprintf("pods is forbidden: User \"system:serviceaccount:agents:cortex-agent\" cannot list resource \"pods\" in API group \"\" in the namespace \"%s\"", th.namespace), limit, "…")
}

func failNothing(_ theme, _ *rng, limit int) (string, string) {
	return "EXIT_CODE_1", truncRunes("On branch agent/fix\nnothing to commit, working tree clean", limit, "…")
}
