package claudecode

import (
	"encoding/binary"
	"time"

	"github.com/google/uuid"
	"github.com/journalship/journalship/internal/sample"
)

// rng is the Claude Code generator's stream: sample.Rand and the
// format's ids.
type rng struct{ *sample.Rand }

// newRNG returns the random stream number stream of seed. Each session
// draws from its own stream, salted so that another generator given the
// same seed draws differently.
func newRNG(seed int64, stream uint64) *rng {
	return &rng{sample.NewRand(uint64(seed)^0x436c61756465, stream)}
}

// pick returns a random element of s; s must not be empty.
func pick[T any](x *rng, s []T) T { return sample.Pick(x.Rand, s) }

// uuidV4 returns a random (version 4) UUID drawn from the stream, as
// Claude Code's randomUUID() writes session and line ids.
func (x *rng) uuidV4() string {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[0:8], x.Uint64())
	binary.BigEndian.PutUint64(u[8:16], x.Uint64())
	u[6] = 0x40 | u[6]&0x0f
	u[8] = 0x80 | u[8]&0x3f
	return u.String()
}

// Provider ids as the Anthropic API writes them.
func (x *rng) msgID() string   { return "msg_01" + x.Chars(22, base62) }
func (x *rng) reqID() string   { return "req_011C" + x.Chars(21, base62) }
func (x *rng) toolID() string  { return "toolu_01" + x.Chars(22, base62) }
func (x *rng) agentID() string { return "a" + x.Chars(7, hexLow) }

// signature is a thinking block's signature (opaque base64).
func (x *rng) signature() string { return "Eo" + x.Chars(x.Between(60, 110), base64Chars) + "=" }

// ms returns a duration of between lo and hi milliseconds.
func (x *rng) ms(lo, hi int) time.Duration {
	return time.Duration(x.Between(lo, hi)) * time.Millisecond
}

// secs returns a duration of between lo and hi seconds, to the
// millisecond.
func (x *rng) secs(lo, hi int) time.Duration { return x.ms(lo*1000, hi*1000) }

// Alphabets of the ids.
const (
	base62      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexLow      = "0123456789abcdef"
	base64Chars = base62 + "+/"
)
