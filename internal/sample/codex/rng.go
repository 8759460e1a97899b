package codex

import "github.com/journalship/journalship/internal/sample"

// rng is the Codex generator's stream: sample.Rand and the format's ids.
type rng struct{ *sample.Rand }

// newRNG returns the random stream number stream of seed, salted so that
// another generator given the same seed draws differently.
func newRNG(seed int64, stream uint64) *rng {
	return &rng{sample.NewRand(uint64(seed)^0x436f646578, stream)}
}

// callID is a call_id as the Responses API writes them.
func (x *rng) callID() string {
	return "call_" + x.Chars(24, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
}
