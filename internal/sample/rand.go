package sample

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Rand is a generator's random stream. It wraps a PCG source, whose output
// the Go specification of math/rand/v2 fixes, so a seed gives the same
// corpus on every platform. Every generator (Cortex Plane, Codelia,
// OrbitMesh, …) draws from it; each embeds it in its own type for the ids
// of its format.
type Rand struct{ r *rand.Rand }

// NewRand returns the stream number stream of seed. Streams are
// independent, so job or session i's content does not depend on how many
// follow. A generator salts seed so that two generators given one seed
// draw differently.
func NewRand(seed, stream uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15^(stream*0xbf58476d1ce4e5b9)))}
}

// Intn returns a number in [0, n); n must be > 0.
func (x *Rand) Intn(n int) int { return x.r.IntN(n) }

// Between returns a number in [lo, hi].
func (x *Rand) Between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + x.r.IntN(hi-lo+1)
}

// Between64 returns a number in [lo, hi].
func (x *Rand) Between64(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + x.r.Int64N(hi-lo+1)
}

// Chance returns true with probability p.
func (x *Rand) Chance(p float64) bool { return x.r.Float64() < p }

// Weighted returns index i with probability w[i]/sum(w).
func (x *Rand) Weighted(w ...int) int {
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

// Chars returns n characters drawn from alphabet.
func (x *Rand) Chars(n int, alphabet string) string {
	var b strings.Builder
	b.Grow(n)
	for range n {
		b.WriteByte(alphabet[x.r.IntN(len(alphabet))])
	}
	return b.String()
}

// Uint64 returns 64 random bits.
func (x *Rand) Uint64() uint64 { return x.r.Uint64() }

// Uint32 returns 32 random bits.
func (x *Rand) Uint32() uint32 { return x.r.Uint32() }

// Pick returns a random element of s; s must not be empty.
func Pick[T any](x *Rand, s []T) T { return s[x.r.IntN(len(s))] }

// UUIDv4 returns a random (version 4) UUID drawn from the stream, as
// crypto.randomUUID() writes ids.
func (x *Rand) UUIDv4() string {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[0:8], x.Uint64())
	binary.BigEndian.PutUint64(u[8:16], x.Uint64())
	u[6] = 0x40 | u[6]&0x0f
	u[8] = 0x80 | u[8]&0x3f
	return u.String()
}

// Millis returns a duration of between lo and hi milliseconds.
func (x *Rand) Millis(lo, hi int) time.Duration {
	return time.Duration(x.Between(lo, hi)) * time.Millisecond
}

// Secs returns a duration of between lo and hi seconds, to the
// millisecond.
func (x *Rand) Secs(lo, hi int) time.Duration { return x.Millis(lo*1000, hi*1000) }

// SHA256Hex returns the lowercase hex SHA-256 of the parts joined by NUL.
func SHA256Hex(parts ...string) string {
	h := sha256.New()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}
