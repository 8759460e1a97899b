package orbitmesh

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"time"
)

// rng wraps a PCG source: its output is fixed by the Go specification of
// math/rand/v2, so a seed gives the same corpus on every platform.
type rng struct{ r *rand.Rand }

// newRNG returns the random stream number stream of seed. Streams are
// independent, so session i's content does not depend on how many
// sessions follow.
func newRNG(seed int64, stream uint64) *rng {
	return &rng{r: rand.New(rand.NewPCG(uint64(seed)^0x6f72626974, 0x9e3779b97f4a7c15^(stream*0xbf58476d1ce4e5b9)))}
}

// intn returns a number in [0, n); n must be > 0.
func (x *rng) intn(n int) int { return x.r.IntN(n) }

// between returns a number in [lo, hi].
func (x *rng) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + x.r.IntN(hi-lo+1)
}

// chance returns true with probability p.
func (x *rng) chance(p float64) bool { return x.r.Float64() < p }

// pick returns a random element of s; s must not be empty.
func pick[T any](x *rng, s []T) T { return s[x.r.IntN(len(s))] }

// weighted returns index i with probability w[i]/sum(w).
func (x *rng) weighted(w ...int) int {
	total := 0
	for _, v := range w {
		total += v
	}
	n := x.r.IntN(total)
	for i, v := range w {
		if n < v {
			return i
		}
		n -= v
	}
	return len(w) - 1
}

// chars returns n characters drawn from alphabet.
func (x *rng) chars(n int, alphabet string) string {
	var b strings.Builder
	b.Grow(n)
	for range n {
		b.WriteByte(alphabet[x.r.IntN(len(alphabet))])
	}
	return b.String()
}

// ms returns a duration of between lo and hi milliseconds.
func (x *rng) ms(lo, hi int) time.Duration {
	return time.Duration(x.between(lo, hi)) * time.Millisecond
}

// secs returns a duration of between lo and hi seconds, to the
// millisecond.
func (x *rng) secs(lo, hi int) time.Duration { return x.ms(lo*1000, hi*1000) }

// Identifier alphabets: lower-case Crockford base 32 for session ids,
// hex for run and token ids.
const (
	base32Alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	hexAlphabet    = "0123456789abcdef"
)

// sha256Hex returns the lowercase hex SHA-256 of s.
func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
