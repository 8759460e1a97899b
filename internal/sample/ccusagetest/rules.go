package ccusagetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/pricing"
)

// Rule is one documented difference between ccusage and the truth: Apply
// reports whether it covers line li of file fi of c and, if so, its
// effect on ccusage's report (with the corpus's prices).
type Rule[T Tokens[T]] struct {
	Name  string
	Apply func(t *testing.T, c *sample.Corpus, fi, li int, prices map[string]pricing.Price) ([]Delta[T], bool)
}

// ApplyRules adds to want the effect of every rule on every line of c,
// rule by rule, and returns how many lines each rule applied to.
func ApplyRules[T Tokens[T]](t *testing.T, c *sample.Corpus, rules []Rule[T], prices map[string]pricing.Price, want Report[T]) map[string]int {
	t.Helper()
	applied := map[string]int{}
	for _, rule := range rules {
		for fi, f := range c.Files {
			for li := range f.Lines {
				ds, ok := rule.Apply(t, c, fi, li, prices)
				if !ok {
					continue
				}
				applied[rule.Name]++
				for _, d := range ds {
					want.Add(d)
				}
			}
		}
	}
	return applied
}

// RequireApplied logs how many lines each rule applied to and fails for
// a rule that applied to none: the corpus no longer exercises it.
func RequireApplied[T Tokens[T]](t *testing.T, rules []Rule[T], applied map[string]int) {
	t.Helper()
	for _, rule := range rules {
		t.Logf("rule %-40s applied to %3d lines", rule.Name, applied[rule.Name])
		require.Positive(t, applied[rule.Name], "rule %q applies to no line: the corpus no longer exercises it", rule.Name)
	}
}
