// Package recent counts how often keys come, remembering only the most
// recent ones, so that a process that must know whether it saw something
// before (a chunk that panicked, an entry whose cost it counted) keeps a
// bounded memory.
package recent

import "sync"

// Counts counts keys, keeping the last keys that came, up to a limit: when a new key
// comes to a full memory, the oldest is forgotten. It is safe for
// concurrent use.
type Counts struct {
	mu    sync.Mutex
	count map[uint64]entry
	ring  []uint64 // keys by arrival; ring[next] is evicted next
	next  int
}

type entry struct {
	n    int
	slot int // the key's place in ring
}

// NewCounts returns Counts remembering at most limit keys (at least 1).
func NewCounts(limit int) *Counts {
	return &Counts{count: make(map[uint64]entry), ring: make([]uint64, max(limit, 1))}
}

// Add counts key once more and returns its count: 1 the first time (or
// the first time since it was forgotten).
func (c *Counts) Add(key uint64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.count[key]; ok {
		e.n++
		c.count[key] = e
		return e.n
	}
	if old, ok := c.count[c.ring[c.next]]; ok && old.slot == c.next {
		delete(c.count, c.ring[c.next])
	}
	c.ring[c.next] = key
	c.count[key] = entry{n: 1, slot: c.next}
	c.next = (c.next + 1) % len(c.ring)
	return 1
}

// Forget drops key's count.
func (c *Counts) Forget(key uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.count, key)
}

// Len returns how many keys are counted.
func (c *Counts) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.count)
}
