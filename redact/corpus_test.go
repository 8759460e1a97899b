package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Journals without secrets come back untouched, and a line that goes no
// further than the first pass over its bytes allocates nothing (nor, when
// the race detector does not empty the pool, one that is decoded).
func TestJournalsWithoutSecrets(t *testing.T) {
	cortex, claude := benchCorpora(t)
	r := newRedactor(t, nil)
	fast := 0
	for _, lines := range [][][]byte{cortex, claude} {
		for _, line := range lines {
			out, found := r.Redact("s.jsonl", line, nil)
			require.Empty(t, found, "%s", line)
			require.Same(t, &line[0], &out[0])
			first := !r.set.mayMatch(line)
			if first {
				fast++
			}
			if first || !raceEnabled {
				assert.Zero(t, testing.AllocsPerRun(3, func() { r.Redact("s.jsonl", line, nil) }), "%.200s", line)
			}
		}
	}
	assert.Greater(t, fast, (len(cortex)+len(claude))/2, "most lines end after the first pass")
}
