package claudecode

import (
	"os"
	"sync"
	"syscall"
)

// A session's subagents each start by reading the same main transcript
// (Load): on the Claude Code corpus of tools/flbmeasure, half the
// subagent files share theirs with another, and the reads were a tenth
// of the plugin's CPU inside Fluent Bit. So what one read learned is
// kept, and a State started while the main transcript is unchanged
// learns the same facts in the same order without reading it.

// sideFact is one fact of a main transcript: a line's uuid, or (response)
// an assistant line's message.id, by hash.
type sideFact struct {
	h        uint64
	response bool
}

// factsKey names one read of a main transcript: the file (device, inode)
// as it was (size, modification time), and the bounds of the read. A
// transcript grows by appends, which change its size; one rewritten in
// place to the same size within one tick of the file system's clock
// would be taken for the one read.
type factsKey struct {
	path         string
	dev, ino     uint64
	size, mtime  int64
	maxScan, max int64
}

// factsKey returns the key of a read of main by s; ok is false when the
// file's device and inode are not known here.
func (s *State) factsKey(main string, fi os.FileInfo) (factsKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return factsKey{}, false
	}
	return factsKey{path: main, dev: uint64(st.Dev), ino: uint64(st.Ino), size: fi.Size(),
		mtime: fi.ModTime().UnixNano(), maxScan: s.maxScan, max: int64(s.max)}, true
}

// Bounds of the kept reads: the newest mainFactsKept main transcripts,
// each of at most maxKeptFacts facts (16 bytes each: at most 4 MiB in
// all, for the life of the process); a larger one is read by every
// subagent.
const (
	mainFactsKept = 16
	maxKeptFacts  = 1 << 14
)

// factsCache keeps the facts of the newest reads, one per main
// transcript, the oldest replaced first.
type factsCache struct {
	mu    sync.Mutex
	byKey map[string]factsEntry // by path
	order []string              // paths, oldest first
}

type factsEntry struct {
	key   factsKey
	facts []sideFact // never changed once kept: States share it
}

var mainFacts = &factsCache{byKey: map[string]factsEntry{}}

// get returns the facts of the read named key, if kept.
func (c *factsCache) get(key factsKey) ([]sideFact, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key.path]
	if !ok || e.key != key {
		return nil, false
	}
	return e.facts, true
}

// put keeps facts as the read named key, replacing the main transcript's
// earlier read.
func (c *factsCache) put(key factsKey, facts []sideFact) {
	if len(facts) > maxKeptFacts {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key.path]; !ok {
		if len(c.order) == mainFactsKept {
			delete(c.byKey, c.order[0])
			c.order = append(c.order[:0], c.order[1:]...)
		}
		c.order = append(c.order, key.path)
	}
	c.byKey[key.path] = factsEntry{key: key, facts: facts}
}
