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

// rng wraps a PCG source: its output is fixed by the Go specification of
// math/rand/v2, so a seed gives the same corpus on every platform.
type rng struct{ r *rand.Rand }

// newRNG returns the random stream number stream of seed. Streams are
// independent, so job i's content does not depend on how many jobs follow.
func newRNG(seed int64, stream uint64) *rng {
	return &rng{r: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15^(stream*0xbf58476d1ce4e5b9)))}
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

// uuidV7 returns a UUIDv7 string whose 48-bit timestamp is t and whose
// other bits come from the stream.
func (x *rng) uuidV7(t time.Time) string {
	var u uuid.UUID
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint16(u[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(u[2:6], uint32(ms))
	binary.BigEndian.PutUint64(u[6:14], x.r.Uint64())
	binary.BigEndian.PutUint16(u[14:16], uint16(x.r.Uint32()))
	u[6] = 0x70 | u[6]&0x0f
	u[8] = 0x80 | u[8]&0x3f
	return u.String()
}

// sha256Hex returns the lowercase hex SHA-256 of the parts joined by NUL.
func sha256Hex(parts ...string) string {
	h := sha256.New()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Kubernetes name alphabets: pod-template hashes and pod suffixes avoid
// vowels and look-alike digits.
const k8sAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// millis returns d milliseconds as a Duration.
func millis(d int64) time.Duration { return time.Duration(d) * time.Millisecond }
