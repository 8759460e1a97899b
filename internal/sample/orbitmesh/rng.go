package orbitmesh

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// rng is the OrbitMesh generator's stream: sample.Rand and the format's
// durations.
type rng struct{ *sample.Rand }

// newRNG returns the random stream number stream of seed. Streams are
// independent, so session i's content does not depend on how many
// sessions follow.
func newRNG(seed int64, stream uint64) *rng {
	return &rng{sample.NewRand(uint64(seed)^0x6f72626974, stream)}
}

// pick returns a random element of s; s must not be empty.
func pick[T any](x *rng, s []T) T { return sample.Pick(x.Rand, s) }

// ms returns a duration of between lo and hi milliseconds.
func (x *rng) ms(lo, hi int) time.Duration {
	return time.Duration(x.Between(lo, hi)) * time.Millisecond
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
