package sample_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/sample/cortex"
)

// TestChunksHoldEveryLineOnce: the chunks decode to every complete line
// of the corpus once, in file order, each chunk within its size bound.
func TestChunksHoldEveryLineOnce(t *testing.T) {
	cfg := cortex.DefaultConfig()
	cfg.Jobs = 6
	c, err := cortex.Generate(cfg)
	require.NoError(t, err)
	const max = 16 << 10
	chunks, lines, bytes := c.Chunks("/root", max, time.Now())
	require.Greater(t, len(chunks), 1)
	dec, err := chunk.NewDecoder(chunk.DefaultConfig())
	require.NoError(t, err)
	var got []string
	gotBytes := 0
	for _, ch := range chunks {
		assert.LessOrEqual(t, len(ch), max)
		require.NoError(t, dec.Decode(ch, func(r *chunk.Record) error {
			got = append(got, string(r.Path)+"@"+string(r.Line))
			gotBytes += len(r.Line)
			return nil
		}))
	}
	var want []string
	for _, f := range c.Files {
		for _, l := range f.Lines {
			want = append(want, filepath.Join("/root", f.Rel)+"@"+l.Text)
		}
	}
	assert.Equal(t, want, got)
	assert.Equal(t, len(want), lines)
	assert.Equal(t, gotBytes, bytes)
}
