package recent

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCountsAreBounded: the counts keep the last max keys.
func TestCountsAreBounded(t *testing.T) {
	const max = 64
	c := NewCounts(max)
	for k := range uint64(max) {
		assert.Equal(t, 1, c.Add(k))
	}
	assert.Equal(t, 2, c.Add(0), "a key seen again counts on")
	assert.Equal(t, 1, c.Add(max), "a new key ...")
	assert.Equal(t, max, c.Len(), "... takes the place of the oldest")
	assert.Equal(t, 1, c.Add(0), "which starts again")

	c.Forget(5)
	assert.Equal(t, 1, c.Add(5), "a forgotten key starts again")
	for k := range uint64(max) {
		c.Add(1<<40 + k)
	}
	assert.Equal(t, max, c.Len(), "still bounded with forgotten keys in the ring")
}

// TestCountsConcurrent: concurrent callers count every arrival.
func TestCountsConcurrent(t *testing.T) {
	c := NewCounts(16)
	var wg sync.WaitGroup
	firsts := make(chan int, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.Add(7) == 1 {
				firsts <- 1
			}
		}()
	}
	wg.Wait()
	close(firsts)
	assert.Len(t, firsts, 1, "one caller sees the key first")
	assert.Equal(t, 9, c.Add(7))
}
