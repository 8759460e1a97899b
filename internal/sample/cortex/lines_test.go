package cortex

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLinesCount(t *testing.T) {
	tests := []struct {
		n    int
		want int
	}{{-1, 0}, {0, 0}, {1, 1}, {7, 7}, {1000, 1000}}
	for _, tt := range tests {
		got := Lines(3, tt.n)
		assert.Len(t, got, tt.want, "n=%d", tt.n)
		if tt.want == 0 {
			assert.Nil(t, got)
		}
	}
}

func TestLinesDeterministicAndPrefix(t *testing.T) {
	a := Lines(5, 3000)
	assert.Equal(t, a, Lines(5, 3000))
	assert.Equal(t, a[:1234], Lines(5, 1234))
	assert.NotEqual(t, a, Lines(6, 3000))
}

func TestLinesValidAndSized(t *testing.T) {
	lines := Lines(1, 5000)
	types := map[string]int{}
	total := 0
	for i, l := range lines {
		require.False(t, bytes.Contains(l, []byte("\n")), "line %d has no newline", i)
		v := check(string(l))
		require.True(t, v.valid(), "line %d: %s: %.200s", i, v.invalid, l)
		types[v.typ]++
		total += len(l)
		assert.GreaterOrEqual(t, len(l), 200, "line %d", i)
		assert.LessOrEqual(t, len(l), 2300, "line %d", i)
	}
	for typ := range schemas {
		assert.Positive(t, types[typ], "type %s appears", typ)
	}
	avg := total / len(lines)
	assert.InDelta(t, 420, avg, 60, "average line size")
}

func BenchmarkLines(b *testing.B) {
	for b.Loop() {
		Lines(1, 1000)
	}
}
