package codelia

import (
	"encoding/binary"
	"time"

	"github.com/google/uuid"
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

// uuidV4 returns a random (version 4) UUID drawn from the stream, as
// Codelia's crypto.randomUUID() writes run and session ids.
func (x *rng) uuidV4() string {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[0:8], x.Uint64())
	binary.BigEndian.PutUint64(u[8:16], x.Uint64())
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
