package redact

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/journalship/journalship/internal/secretsample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// example is a true or false positive a Gitleaks rule is validated with.
type example secretsample.Example

// gitleaksRules returns the rules Gitleaks reports for e, generic ones
// left out unless generic.
func (e example) gitleaksRules(generic bool) map[string]bool {
	out := map[string]bool{}
	for _, f := range e.Gitleaks {
		if generic || !strings.Contains(f.Rule, "generic") {
			out[f.Rule] = true
		}
	}
	return out
}

// assertAsGitleaks checks that the findings name only rules Gitleaks
// reports for e and that none of the secrets Gitleaks reports is left.
func assertAsGitleaks(t *testing.T, e example, out []byte, found []Finding, generic bool) {
	t.Helper()
	rules := e.gitleaksRules(generic)
	for _, f := range found {
		assert.True(t, rules[f.Rule], "%s: %s found, Gitleaks reports %v", e.Rule, f.Rule, e.Gitleaks)
	}
	for _, f := range e.Gitleaks {
		if rules[f.Rule] {
			assert.NotContains(t, string(out), f.Secret, "%s: a secret of %s is left", e.Rule, f.Rule)
		}
	}
}

// gitleaksExamples returns Gitleaks' own examples (internal/secretsample).
var gitleaksExamples = sync.OnceValues(func() (tps, fps []example) {
	for _, e := range secretsample.TruePositives() {
		tps = append(tps, example(e))
	}
	for _, e := range secretsample.FalsePositives() {
		fps = append(fps, example(e))
	}
	return tps, fps
})

// shapes embed a text in journal lines the way agent runtimes write it.
var shapes = []struct {
	name string
	line func(s string) []byte
}{
	{"top-level string", func(s string) []byte {
		return mustJSON(map[string]any{"type": "TOOL_RESULT", "seq": 7, "output": s})
	}},
	{"nested object", func(s string) []byte {
		return mustJSON(map[string]any{"type": "assistant", "message": map[string]any{"content": map[string]any{"text": s}}})
	}},
	{"array", func(s string) []byte {
		return mustJSON(map[string]any{"content": []any{1, "before", s, true, nil}})
	}},
	{"tool result with escaped newlines", func(s string) []byte {
		return mustJSON(map[string]any{"tool_result": "$ cat .env\n# settings\n" + s + "\nDEBUG=false\n"})
	}},
	{"escaped JSON in a string", func(s string) []byte {
		return mustJSON(map[string]any{"type": "user", "toolUseResult": string(mustJSON(map[string]any{"stdout": s, "exit_code": 0}))})
	}},
	{"secret-like key names", func(s string) []byte {
		return mustJSON(map[string]any{"api_key": s, "password": "see the vault", "token_count": 12})
	}},
}

func mustJSON(v any) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}

func newRedactor(t testing.TB, edit func(*Config)) *Redactor {
	t.Helper()
	cfg := DefaultConfig()
	if edit != nil {
		edit(&cfg)
	}
	r, err := New(cfg)
	require.NoError(t, err)
	return r
}

func TestGitleaksTruePositivesAreRedactedInEveryShape(t *testing.T) {
	tps, _ := gitleaksExamples()
	r := newRedactor(t, nil)
	rules := map[string]bool{}
	for _, id := range r.Rules() {
		rules[id] = true
	}
	tested := 0
	for _, tp := range tps {
		if !rules[tp.Rule] {
			continue // a generic rule, off by default (see TestGenericRules)
		}
		tested++
		for _, sh := range shapes {
			line := sh.line(tp.Sample)
			out, found := r.Redact("/data/sessions/j/s.jsonl", line, nil)
			require.NotEmpty(t, found, "%s, %s: %s", tp.Rule, sh.name, line)
			assertRedacted(t, line, out, found, tp.Secrets)
			assert.True(t, ruleFound(found, tp.Rule) || tp.gitleaksRules(false)[found[0].Rule],
				"%s, %s: found %v", tp.Rule, sh.name, found)
		}
		out, found := r.Redact("raw.jsonl", []byte(tp.Sample), nil) // not JSON: redacted as text
		require.NotEmpty(t, found, "%s as text", tp.Rule)
		assertAsGitleaks(t, tp, out, found, false)
	}
	assert.Greater(t, tested, 500, "examples of rules in force")
}

// ruleFound reports whether a finding names rule.
func ruleFound(found []Finding, rule string) bool {
	for _, f := range found {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// assertRedacted checks that out is valid JSON with line's structure and
// keys, that no secret is left in it at any depth, and that it is line
// with the findings' bytes replaced by markers and nothing else changed.
func assertRedacted(t *testing.T, line, out []byte, found []Finding, secrets []string) {
	t.Helper()
	require.True(t, json.Valid(out), "output is not JSON: %s", out)
	for _, s := range secrets {
		for _, str := range allStrings(t, out) {
			require.NotContains(t, str, s, "secret left in %s", out)
		}
	}
	rebuilt, prev := []byte{}, 0
	for _, f := range found {
		require.GreaterOrEqual(t, f.Start, prev, "findings in order")
		rebuilt = append(rebuilt, line[prev:f.Start]...)
		end := strings.Index(string(out[len(rebuilt):]), ">")
		require.Positive(t, end)
		marker := string(out[len(rebuilt) : len(rebuilt)+end+1])
		require.True(t, strings.HasPrefix(marker, "<REDACTED-SECRET:"+f.Rule), "marker %q for %s", marker, f.Rule)
		rebuilt = append(rebuilt, marker...)
		prev = f.End
	}
	rebuilt = append(rebuilt, line[prev:]...)
	require.Equal(t, string(rebuilt), string(out), "only the findings' bytes change")
	assertSameShape(t, decode(t, line), decode(t, out))
}

// allStrings returns every key and string of a JSON document, and those
// of the documents its strings hold.
func allStrings(t *testing.T, doc []byte) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
			var inner any
			if json.Unmarshal([]byte(x), &inner) == nil {
				walk(inner)
			}
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(decode(t, doc))
	return out
}

func decode(t *testing.T, doc []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(doc, &v), "%s", doc)
	return v
}

// assertSameShape checks that b has a's structure, keys and non-string
// values; a string may differ only by holding a replacement.
func assertSameShape(t *testing.T, a, b any) {
	t.Helper()
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		require.True(t, ok)
		require.Len(t, y, len(x))
		for k, v := range x {
			w, ok := y[k]
			require.True(t, ok, "key %q kept", k)
			assertSameShape(t, v, w)
		}
	case []any:
		y, ok := b.([]any)
		require.True(t, ok)
		require.Len(t, y, len(x))
		for i := range x {
			assertSameShape(t, x[i], y[i])
		}
	case string:
		y, ok := b.(string)
		require.True(t, ok)
		if x != y {
			require.Contains(t, y, "<REDACTED-SECRET:")
		}
	default:
		require.Equal(t, a, b)
	}
}

func TestGitleaksFalsePositivesAreLeftAlone(t *testing.T) {
	_, fps := gitleaksExamples()
	r := newRedactor(t, nil)
	for _, fp := range fps {
		for _, line := range [][]byte{[]byte(fp.Sample), shapes[0].line(fp.Sample)} {
			out, found := r.Redact("s.jsonl", line, nil)
			assert.False(t, ruleFound(found, fp.Rule), "%s: %s → %v", fp.Rule, line, found)
			// Another rule may take the sample for its own secret (an
			// Anthropic admin key is no API key, a JWT is one whatever the
			// header it is in), as Gitleaks does.
			assertAsGitleaks(t, fp, out, found, false)
			if len(found) == 0 {
				assert.Same(t, &line[0], &out[0], "nothing found: the line itself")
			}
		}
	}
}
