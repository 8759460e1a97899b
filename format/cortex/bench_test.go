package cortex

import (
	"testing"

	"github.com/journalship/journalship/integrity"
	cortexsample "github.com/journalship/journalship/internal/sample/cortex"
)

// BenchmarkValidate judges realistic lines (all event types, ~430 B).
func BenchmarkValidate(b *testing.B) {
	v, _ := NewValidator(DefaultConfig())
	benchValidate(b, v.Validate)
}

// benchValidate runs validate over 1000 sample lines per op, reporting
// bytes and ns per line.
func benchValidate(b *testing.B, validate func([]byte, bool, *integrity.Arena, *Event)) {
	lines := cortexsample.Lines(1, 1000)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	a := integrity.NewArena(1 << 20)
	var ev Event
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer() // the sample lines take ~15 ms to generate: not validation
	for range b.N {
		a.Reset(1 << 20)
		for _, l := range lines {
			validate(l, false, a, &ev)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}
