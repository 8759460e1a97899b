package formattest

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// TotalBytes is the length of the lines together.
func TotalBytes(lines [][]byte) int {
	total := 0
	for _, l := range lines {
		total += len(l)
	}
	return total
}

// BenchJudge benchmarks j judging lines into st, one line per op in turn
// (bytes per op: their mean length), once the buffers have grown by a
// first pass over them.
func BenchJudge(b *testing.B, j format.Judge, st format.State, lines [][]byte) {
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	for _, l := range lines { // grow the buffers once
		a.Reset(1 << 16)
		j.Judge(l, st, a, &ev)
	}
	b.SetBytes(int64(TotalBytes(lines) / len(lines)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a.Reset(1 << 16)
		j.Judge(lines[i], st, a, &ev)
		if i++; i == len(lines) {
			i = 0
		}
	}
}
