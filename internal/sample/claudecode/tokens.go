package claudecode

import "time"

// Prompts stay under this size: past it Claude Code compacts the
// conversation (and ccusage prices each counter above 200 000 tokens at
// the premium rate, which the comparison avoids).
const compactAt = 160_000

// cacheMode is how a session writes the prompt cache.
type cacheMode uint8

const (
	cache5m    cacheMode = iota // every write to the 5-minute cache
	cache1h                     // every write to the 1-hour cache
	cacheMixed                  // a cold cache writes part to 1 h (the system prompt), the rest to 5 m
)

// tokenCtx follows the prompt a transcript sends: its size, what is in
// the provider's cache and until when.
type tokenCtx struct {
	base    int64     // the system prompt, tools and memory files
	size    int64     // the prompt so far (the last request's, compaction aside)
	pending int64     // content added since the last request (outputs, results, prompts)
	global  int64     // the part of base cached across sessions (0: none)
	cached  int64     // the prefix the last request left in the cache
	warm    time.Time // the cache expires then
	mode    cacheMode
}

func newTokenCtx(x *rng, base int64, mode cacheMode) tokenCtx {
	c := tokenCtx{base: base, size: base, mode: mode}
	if x.Chance(0.7) {
		c.global = base * int64(x.Between(55, 80)) / 100
	}
	return c
}

// request is the usage of a request sent at at: a few uncached tokens
// (the part after the last cache breakpoint), the cached prefix read when
// the cache is warm (else the cross-session part), the rest written.
func (c *tokenCtx) request(x *rng, at time.Time) usage {
	p := c.size + c.pending
	u := usage{in: int64(x.Between(1, 12))}
	cold := c.cached == 0 || at.After(c.warm)
	if cold {
		u.cr = c.global
	} else {
		u.cr = c.cached
	}
	u.cr = min(u.cr, p-u.in)
	u.cw = p - u.in - u.cr
	switch c.mode {
	case cache1h:
		u.cw1h = u.cw
	case cacheMixed:
		if cold {
			u.cw1h = u.cw * int64(x.Between(30, 70)) / 100
		}
	}
	c.size, c.pending, c.cached = p, 0, p-u.in
	ttl := 5 * time.Minute
	if c.mode == cache1h {
		ttl = time.Hour
	}
	c.warm = at.Add(ttl)
	return u
}

// add counts content the next prompt carries.
func (c *tokenCtx) add(n int64) { c.pending += n }

// full reports whether the next prompt would pass the compaction
// threshold.
func (c *tokenCtx) full() bool { return c.size+c.pending > compactAt }

// compact replaces the conversation by a summary of n tokens and returns
// the size before (compactMetadata.preTokens). The system prompt stays
// in the cache; the conversation's prefix is gone.
func (c *tokenCtx) compact(n int64) int64 {
	pre := c.size + c.pending
	c.size, c.pending = c.base+n, 0
	c.cached = min(c.cached, c.base)
	return pre
}

// snapshots are the output_tokens the lines of one response write. A
// CLI before 2.1.97 wrote a streaming snapshot per block: growing from
// a few tokens, the last still below the real count; later ones write
// the final count on every line.
func snapshots(x *rng, n int, real int64, old bool) []int64 {
	out := make([]int64, n)
	if !old || real < int64(2*n+2) {
		for i := range out {
			out[i] = real
		}
		return out
	}
	last := max(int64(n), real*int64(x.Between(30, 75))/100)
	last = min(last, real-1)
	out[n-1] = last
	lo := int64(1)
	for i := range n - 1 {
		hi := last - int64(n-1-i)
		if i == 0 {
			hi = min(hi, int64(x.Between(1, 12)))
		}
		out[i] = x.Between64(lo, max(lo, hi))
		lo = out[i] + 1
	}
	return out
}
