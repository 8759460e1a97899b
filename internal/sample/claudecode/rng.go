package claudecode

import "github.com/journalship/journalship/internal/sample"

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

// Provider ids as the Anthropic API writes them.
func (x *rng) msgID() string   { return "msg_01" + x.Chars(22, base62) }
func (x *rng) reqID() string   { return "req_011C" + x.Chars(21, base62) }
func (x *rng) toolID() string  { return "toolu_01" + x.Chars(22, base62) }
func (x *rng) agentID() string { return "a" + x.Chars(7, hexLow) }

// signature is a thinking block's signature (opaque base64).
func (x *rng) signature() string { return "Eo" + x.Chars(x.Between(60, 110), base64Chars) + "=" }

// Alphabets of the ids.
const (
	base62      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexLow      = "0123456789abcdef"
	base64Chars = base62 + "+/"
)
