package metrics

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// warnings records the warnings a Bounded logs.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) warn(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, fmt.Sprintf(format, args...))
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}

func tableModels(v string) bool { return v == "gpt-4.1" || v == "claude-sonnet-4-5" }

func newTestBounded(max int, w *warnings) (*Bounded, prometheus.Counter) {
	folded := prometheus.NewCounter(prometheus.CounterOpts{Name: "folded"})
	return NewBounded(BoundedConfig{Label: "model", Setting: "Max_Models", Max: max, Known: tableModels, Warn: w.warn, Folded: folded}), folded
}

func TestBoundedKeepsKnownAndTheFirstOthers(t *testing.T) {
	w := &warnings{}
	b, folded := newTestBounded(3, w)
	for _, v := range []string{"a", "b", "a", "c"} {
		assert.Equal(t, v, b.Value(v), "one of the first 3 others")
	}
	assert.Equal(t, Other, b.Value("d"), "the 4th other is folded")
	assert.Equal(t, Other, b.Value("e"))
	assert.Equal(t, Other, b.Value("d"), "a folded value stays folded")
	assert.Equal(t, "gpt-4.1", b.Value("gpt-4.1"), "known values are kept past the limit")
	assert.Equal(t, "claude-sonnet-4-5", b.Value("claude-sonnet-4-5"))
	for _, v := range []string{"a", "b", "c"} {
		assert.Equal(t, v, b.Value(v), "kept values stay kept")
	}
	assert.Equal(t, Other, b.Value(Other), "a journal's own \"other\" is not a fold")
	assert.Equal(t, 3.0, testutil.ToFloat64(folded), "d, e, d")

	lines := w.all()
	require.Len(t, lines, 1, "one warning, at the first fold")
	assert.Contains(t, lines[0], `"d"`)
	assert.Contains(t, lines[0], "Max_Models")
	assert.Contains(t, lines[0], "model label keeps 3")
}

func TestBoundedKnownValuesDoNotUseTheLimit(t *testing.T) {
	b, folded := newTestBounded(1, &warnings{})
	for range 3 {
		b.Value("gpt-4.1")
		b.Value("claude-sonnet-4-5")
	}
	assert.Equal(t, "x", b.Value("x"), "the one slot is still free")
	assert.Equal(t, Other, b.Value("y"))
	assert.Equal(t, 1.0, testutil.ToFloat64(folded))
}

func TestBoundedZeroKeepsOnlyKnown(t *testing.T) {
	b, _ := newTestBounded(0, &warnings{})
	assert.Equal(t, Other, b.Value("x"))
	assert.Equal(t, "gpt-4.1", b.Value("gpt-4.1"))
}

func TestBoundedNilKeepsEverything(t *testing.T) {
	var b *Bounded
	assert.Equal(t, "anything", b.Value("anything"))
	var s *Set
	assert.Nil(t, s.Models(nil, nil))
}

func TestBoundedWithSharesTheLimitAndTheWarning(t *testing.T) {
	w1, w2 := &warnings{}, &warnings{}
	b, folded := newTestBounded(2, w1)
	acme := b.With(func(v string) bool { return v == "acme-model" }, w2.warn)
	assert.Equal(t, "a", b.Value("a"))
	assert.Equal(t, "b", acme.Value("b"))
	assert.Equal(t, "a", acme.Value("a"), "kept by the other pipeline")
	assert.Equal(t, Other, acme.Value("c"), "the shared limit is reached")
	assert.Equal(t, Other, b.Value("acme-model"), "another pipeline's known value")
	assert.Equal(t, "acme-model", acme.Value("acme-model"))
	assert.Equal(t, 2.0, testutil.ToFloat64(folded))
	assert.Len(t, w2.all(), 1, "the first fold warns through its own logger")
	assert.Empty(t, w1.all(), "once per limit")
}

func TestBoundedConcurrentCallersKeepExactlyMax(t *testing.T) {
	const max, workers, values = 50, 8, 400
	w := &warnings{}
	b, folded := newTestBounded(max, w)
	var kept sync.Map
	var folds atomic.Int64
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range values {
				v := "m-" + strconv.Itoa((i*7+g*13)%values)
				switch got := b.Value(v); got {
				case v:
					kept.Store(v, true)
				case Other:
					folds.Add(1)
				default:
					t.Errorf("Value(%q) = %q", v, got)
				}
				assert.Equal(t, "gpt-4.1", b.Value("gpt-4.1"))
			}
		}()
	}
	wg.Wait()
	n := 0
	kept.Range(func(any, any) bool { n++; return true })
	assert.Equal(t, max, n, "exactly max distinct values kept")
	assert.Equal(t, float64(folds.Load()), testutil.ToFloat64(folded), "every fold counted")
	assert.Equal(t, int64(workers*values-workers*max), folds.Load(), "every worker saw all values; each kept one is kept for all")
	assert.Len(t, w.all(), 1)
}

func TestSetModelsFoldsPastTheProcessLimit(t *testing.T) {
	s := newSet(2)
	assert.Equal(t, 0.0, testutil.ToFloat64(s.LabelValuesFolded.WithLabelValues("model")), "preset at 0")
	a := s.Models(tableModels, nil)
	b := s.Models(nil, nil)
	a.Value("x")
	b.Value("y")
	assert.Equal(t, Other, a.Value("z"))
	assert.Equal(t, Other, b.Value("gpt-4.1"), "b's table does not name it")
	assert.Equal(t, 2.0, testutil.ToFloat64(s.LabelValuesFolded.WithLabelValues("model")))
	assert.Equal(t, 1, testutil.CollectAndCount(s.LabelValuesFolded))
}

func TestAcquireTakesTheModelLimit(t *testing.T) {
	s, err := Acquire(Config{MaxModelValues: 1})
	require.NoError(t, err)
	defer func() { require.NoError(t, Release()) }()
	m := s.Models(nil, nil)
	assert.Equal(t, "x", m.Value("x"))
	assert.Equal(t, Other, m.Value("y"))
}

func TestBoundedKeptValueDoesNotAllocate(t *testing.T) {
	b, _ := newTestBounded(10, &warnings{})
	v := "claude-opus-4-6-20260101"
	b.Value(v)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { b.Value(v) }))
	assert.Zero(t, testing.AllocsPerRun(1000, func() { b.Value("gpt-4.1") }), "known")
}

func BenchmarkBoundedValue(b *testing.B) {
	bd, _ := newTestBounded(DefaultMaxModelValues, &warnings{})
	kept := "claude-opus-4-6-20260101"
	bd.Value(kept)
	for i := range DefaultMaxModelValues {
		bd.Value("filler-" + strconv.Itoa(i)) // the limit reached
	}
	b.Run("kept", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bd.Value(kept)
		}
	})
	b.Run("known", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bd.Value("gpt-4.1")
		}
	})
	b.Run("folded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bd.Value("never-seen")
		}
	})
	b.Run("kept_parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				bd.Value(kept)
			}
		})
	})
}
