package orbitmesh

import "github.com/journalship/journalship/internal/sample"

// rng is the OrbitMesh generator's stream: sample.Rand (its durations
// among them) under the format's salt.
type rng struct{ *sample.Rand }

// newRNG returns the random stream number stream of seed. Streams are
// independent, so session i's content does not depend on how many
// sessions follow.
func newRNG(seed int64, stream uint64) *rng {
	return &rng{sample.NewRand(uint64(seed)^0x6f72626974, stream)}
}

// pick returns a random element of s; s must not be empty.
func pick[T any](x *rng, s []T) T { return sample.Pick(x.Rand, s) }

// Identifier alphabets: lower-case Crockford base 32 for session ids,
// hex for run, attempt and token ids, base 62 for Claude's message ids.
const (
	base32Alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	hexAlphabet    = "0123456789abcdef"
	base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)
