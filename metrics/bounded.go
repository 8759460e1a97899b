package metrics

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Other is the label value that stands for every value past a Bounded's
// limit.
const Other = "other"

// BoundedConfig describes a Bounded.
type BoundedConfig struct {
	// Label is the label's name, for the warning.
	Label string
	// Setting is the setting that raises Max, named in the warning.
	Setting string
	// Max is how many distinct values besides the known ones are kept.
	Max int
	// Known reports the values always kept, a finite set (the price
	// table's models); nil for none. It must not allocate for the common
	// case to stay cheap.
	Known func(string) bool
	// Warn logs the one warning of the first fold; nil for none.
	Warn func(format string, args ...any)
	// Folded counts the values replaced by Other; nil for none.
	Folded prometheus.Counter
}

// Bounded keeps a label whose values come from journal content (model ids)
// to a bounded set of series: a value is kept as is when Known reports it
// or when it is one of the first Max other distinct values seen; every
// later value becomes Other, counted on Folded, and the first one is
// logged once. Bounded values made by With share one limit.
//
// It is safe for concurrent use; a value already kept costs a read lock and
// a map lookup, and no allocation.
type Bounded struct {
	known func(string) bool
	warn  func(format string, args ...any)
	s     *admitted
}

// admitted is the state shared by the Bounded values of one limit.
type admitted struct {
	label, setting string
	max            int
	folded         prometheus.Counter
	mu             sync.RWMutex
	seen           map[string]struct{} // guarded by mu; at most max values
	full           atomic.Bool         // len(seen) == max: no lock to fold
	warned         atomic.Bool
}

// NewBounded returns a Bounded with its own limit.
func NewBounded(c BoundedConfig) *Bounded {
	s := &admitted{label: c.Label, setting: c.Setting, max: max(c.Max, 0), folded: c.Folded, seen: map[string]struct{}{}}
	s.full.Store(s.max == 0)
	return &Bounded{known: c.Known, warn: c.Warn, s: s}
}

// With returns a Bounded that shares b's limit, kept values, fold counter
// and single warning, with its own known values and logger (a pipeline's
// price table and log).
func (b *Bounded) With(known func(string) bool, warn func(format string, args ...any)) *Bounded {
	return &Bounded{known: known, warn: warn, s: b.s}
}

// Value returns v when it is kept, Other when it is folded. A nil Bounded
// keeps every value.
func (b *Bounded) Value(v string) string {
	if b == nil || v == Other {
		return v
	}
	s := b.s
	s.mu.RLock()
	_, ok := s.seen[v]
	s.mu.RUnlock()
	if ok || b.known != nil && b.known(v) || s.admit(v) {
		return v
	}
	b.fold(v)
	return Other
}

// admit keeps v if the limit allows.
func (s *admitted) admit(v string) bool {
	if s.full.Load() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[v]; ok {
		return true
	}
	if len(s.seen) >= s.max {
		return false
	}
	// A copy: v may point into a buffer the caller reuses or that is
	// much larger than v.
	s.seen[strings.Clone(v)] = struct{}{}
	s.full.Store(len(s.seen) >= s.max)
	return true
}

// fold counts v's replacement and logs the first one.
func (b *Bounded) fold(v string) {
	s := b.s
	if s.folded != nil {
		s.folded.Inc()
	}
	if b.warn != nil && s.warned.CompareAndSwap(false, true) {
		b.warn("metrics: the %s label keeps %d distinct values already, besides the known ones; %.64q and every later new value count as %q (raise %s to keep more)",
			s.label, s.max, v, Other, s.setting)
	}
}
