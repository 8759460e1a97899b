package codelia

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"
)

// rng wraps a PCG source: its output is fixed by the Go specification of
// math/rand/v2, so a seed gives the same corpus on every platform.
type rng struct{ r *rand.Rand }

// newRNG returns the random stream number stream of seed. Each run draws
// from its own stream.
func newRNG(seed int64, stream uint64) *rng {
	return &rng{r: rand.New(rand.NewPCG(uint64(seed)^0x436f64656c6961, 0x9e3779b97f4a7c15^(stream*0xbf58476d1ce4e5b9)))}
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

// between64 returns a number in [lo, hi].
func (x *rng) between64(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + x.r.Int64N(hi-lo+1)
}

// chance returns true with probability p.
func (x *rng) chance(p float64) bool { return x.r.Float64() < p }

// pick returns a random element of s; s must not be empty.
func pick[T any](x *rng, s []T) T { return s[x.r.IntN(len(s))] }

// chars returns n characters drawn from alphabet.
func (x *rng) chars(n int, alphabet string) string {
	var b strings.Builder
	b.Grow(n)
	for range n {
		b.WriteByte(alphabet[x.r.IntN(len(alphabet))])
	}
	return b.String()
}

// uuidV4 returns a random (version 4) UUID drawn from the stream, as
// Codelia's crypto.randomUUID() writes run and session ids.
func (x *rng) uuidV4() string {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[0:8], x.r.Uint64())
	binary.BigEndian.PutUint64(u[8:16], x.r.Uint64())
	u[6] = 0x40 | u[6]&0x0f
	u[8] = 0x80 | u[8]&0x3f
	return u.String()
}

// ms returns a duration of n milliseconds.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// Alphabets of provider ids.
const (
	alnum  = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexLow = "0123456789abcdef"
)
