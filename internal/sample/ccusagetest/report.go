package ccusagetest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tokens are a ccusage report's token counters (each report has its own):
// compared exactly, summed and negated.
type Tokens[T any] interface {
	comparable
	Plus(T) T
	Neg() T
}

// Key is a session and a model of it.
type Key struct{ Session, Model string }

// Sums are tokens and their cost.
type Sums[T Tokens[T]] struct {
	Tok  T
	Cost float64
}

// Report is a per-session and per-session-and-model account of tokens
// and cost, in ccusage's terms: its own, or the truth's made into them.
type Report[T Tokens[T]] struct {
	Sessions map[string]*Sums[T]
	Models   map[Key]*Sums[T]
	Totals   Sums[T]
}

// NewReport returns an empty Report.
func NewReport[T Tokens[T]]() Report[T] {
	return Report[T]{Sessions: map[string]*Sums[T]{}, Models: map[Key]*Sums[T]{}}
}

// Delta is one line's or one rule's effect on a report: tokens and cost
// added to a session and, unless Model is "" (usage ccusage counts under
// no model), to the session's model.
type Delta[T Tokens[T]] struct {
	Session, Model string
	Tok            T
	Cost           float64
}

// Neg is d taken away.
func (d Delta[T]) Neg() Delta[T] {
	return Delta[T]{Session: d.Session, Model: d.Model, Tok: d.Tok.Neg(), Cost: -d.Cost}
}

// Add adds d to r.
func (r Report[T]) Add(d Delta[T]) {
	if r.Sessions[d.Session] == nil {
		r.Sessions[d.Session] = &Sums[T]{}
	}
	sums := []*Sums[T]{r.Sessions[d.Session]}
	if d.Model != "" {
		k := Key{d.Session, d.Model}
		if r.Models[k] == nil {
			r.Models[k] = &Sums[T]{}
		}
		sums = append(sums, r.Models[k])
	}
	for _, s := range sums {
		s.Tok = s.Tok.Plus(d.Tok)
		s.Cost += d.Cost
	}
}

// Compare fails t unless got (ccusage's report) has want's tokens exactly
// and its cost to float rounding, per session, per session and model, and
// in total (want's sessions summed).
func Compare[T Tokens[T]](t testing.TB, want, got Report[T]) {
	t.Helper()
	var diffs []string
	check := func(what string, w, g *Sums[T]) {
		if w == nil {
			w = &Sums[T]{}
		}
		if g == nil {
			g = &Sums[T]{}
		}
		if w.Tok != g.Tok {
			diffs = append(diffs, fmt.Sprintf("%s: tokens: want %+v, ccusage %+v", what, w.Tok, g.Tok))
		}
		if math.IsNaN(g.Cost) || math.Abs(w.Cost-g.Cost) > 1e-9*math.Max(1, math.Abs(w.Cost)) {
			diffs = append(diffs, fmt.Sprintf("%s: cost: want %.9f, ccusage %.9f", what, w.Cost, g.Cost))
		}
	}
	var total Sums[T]
	for _, id := range sortedKeys(want.Sessions, got.Sessions) {
		w := want.Sessions[id]
		check("session "+id, w, got.Sessions[id])
		if w != nil {
			total.Tok = total.Tok.Plus(w.Tok)
			total.Cost += w.Cost
		}
	}
	for _, k := range sortedKeys(want.Models, got.Models) {
		check("session "+k.Session+" model "+k.Model, want.Models[k], got.Models[k])
	}
	check("totals", &total, &got.Totals)
	require.Empty(t, diffs, "differences no rule explains:\n%s", strings.Join(diffs, "\n"))
	require.NotEmpty(t, got.Sessions)
}

// sortedKeys are the keys of both maps, sorted.
func sortedKeys[K comparable, S any](a, b map[K]*S) []K {
	seen := map[K]bool{}
	var out []K
	for _, m := range []map[K]*S{a, b} {
		for k, v := range m {
			if seen[k] || v == nil {
				continue
			}
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(x, y K) int { return strings.Compare(fmt.Sprint(x), fmt.Sprint(y)) })
	return out
}
