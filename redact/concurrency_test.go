package redact

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One Redactor serves many goroutines at once (run with -race): each gets
// what it would get alone.
func TestConcurrentUse(t *testing.T) {
	tps, fps := gitleaksExamples()
	r := newRedactor(t, func(c *Config) { c.Hash, c.KeyFile = true, t.TempDir()+"/k" })
	var lines [][]byte
	for i, e := range append(tps[:200:200], fps[:100]...) {
		lines = append(lines, shapes[i%len(shapes)].line(e.Sample))
	}
	type result struct {
		out   string
		found []Finding
	}
	want := make([]result, len(lines))
	for i, l := range lines {
		out, found := r.Redact("s.jsonl", l, nil)
		want[i] = result{string(out), found}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			buf := make([]byte, 0, 256)
			for k := range 3 * len(lines) {
				i := (k*7 + g*13) % len(lines)
				out, found := r.Redact("s.jsonl", lines[i], buf)
				if !assert.Equal(t, want[i].out, string(out), fmt.Sprint(i)) || !assert.Equal(t, want[i].found, found) {
					return
				}
				if len(found) > 0 {
					buf = out[:0]
				}
			}
		})
	}
	wg.Wait()
	require.NotEmpty(t, want)
}
