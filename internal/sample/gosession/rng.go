package gosession

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// obj and kv are sample's ordered JSON object and its member, under the
// short names the records are written with.
type (
	obj = sample.Obj
	kv  = sample.KV
)

// rng is the generator's stream: sample.Rand and the format's ids.
type rng struct{ *sample.Rand }

// newRNG returns the random stream number stream of seed. Each session
// draws from its own stream, salted so that another generator given the
// same seed draws differently.
func newRNG(seed int64, stream uint64) *rng {
	return &rng{sample.NewRand(uint64(seed)^0x476f53657373, stream)}
}

// pick returns a random element of s; s must not be empty.
func pick[T any](x *rng, s []T) T { return sample.Pick(x.Rand, s) }

// span returns a duration between lo and hi, to the nanosecond (Go
// writes time.Now() with nanoseconds).
func (x *rng) span(lo, hi time.Duration) time.Duration {
	return time.Duration(x.Between64(int64(lo), int64(hi)))
}

// callID is a tool call id: Anthropic's toolu_01… (Goat passes the
// provider's ids through) or the OpenAI-compatible call_….
func (x *rng) callID(openAI bool) string {
	if openAI {
		return "call_" + x.Chars(24, base62)
	}
	return "toolu_01" + x.Chars(22, base62)
}

const base62 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
