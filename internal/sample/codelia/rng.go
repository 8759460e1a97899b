package codelia

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// rng is the Codelia generator's stream: sample.Rand and the format's ids.
type rng struct{ *sample.Rand }

// newRNG returns the random stream number stream of seed. Each run draws
// from its own stream.
func newRNG(seed int64, stream uint64) *rng {
	return &rng{sample.NewRand(uint64(seed)^0x436f64656c6961, stream)}
}

// pick returns a random element of s; s must not be empty.
func pick[T any](x *rng, s []T) T { return sample.Pick(x.Rand, s) }

// ms returns a duration of n milliseconds.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// Alphabets of provider ids.
const (
	alnum  = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexLow = "0123456789abcdef"
)
