package ccusagetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type tok struct{ In, Out int64 }

func (a tok) Plus(b tok) tok { return tok{a.In + b.In, a.Out + b.Out} }
func (a tok) Neg() tok       { return tok{-a.In, -a.Out} }

// recorder is a testing.TB that records a failure instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) FailNow()              { r.failed = true; panic(r) }
func (r *recorder) Fatalf(string, ...any) { r.FailNow() }
func (r *recorder) Logf(string, ...any)   {}
func (r *recorder) Fatal(...any)          { r.FailNow() }

func compareFails(t *testing.T, want, got Report[tok]) (failed bool) {
	r := &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		failed = r.failed
	}()
	Compare(r, want, got)
	return r.failed
}

// TestCompare: equal reports pass; a difference in a session's or a
// model's tokens or cost, or in the totals, fails; a delta and its
// negation cancel out; usage under no model adds to its session only.
func TestCompare(t *testing.T) {
	build := func(ds ...Delta[tok]) Report[tok] {
		r := NewReport[tok]()
		for _, d := range ds {
			r.Add(d)
		}
		for _, s := range r.Sessions {
			r.Totals = Sums[tok]{Tok: r.Totals.Tok.Plus(s.Tok), Cost: r.Totals.Cost + s.Cost}
		}
		return r
	}
	a := Delta[tok]{Session: "s", Model: "m", Tok: tok{3, 4}, Cost: 0.5}
	b := Delta[tok]{Session: "s", Model: "n", Tok: tok{1, 1}, Cost: 0.25}
	assert.False(t, compareFails(t, build(a, b), build(b, a)))
	assert.False(t, compareFails(t, build(a, b, b, b.Neg()), build(a, b)), "a delta and its negation cancel")
	assert.True(t, compareFails(t, build(a, b), build(a)), "a model missing")
	assert.True(t, compareFails(t, build(a), build(Delta[tok]{Session: "s", Model: "m", Tok: tok{3, 5}, Cost: 0.5})), "tokens")
	assert.True(t, compareFails(t, build(a), build(Delta[tok]{Session: "s", Model: "m", Tok: tok{3, 4}, Cost: 0.51})), "cost")
	noModel := build(Delta[tok]{Session: "s", Tok: tok{1, 0}})
	assert.Empty(t, noModel.Models, "usage under no model counts in its session only")
	assert.Equal(t, tok{1, 0}, noModel.Sessions["s"].Tok)
	got := build(a)
	got.Totals.Cost = 9
	assert.True(t, compareFails(t, build(a), got), "totals")
}
