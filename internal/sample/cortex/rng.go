package cortex

import (
	"encoding/binary"
	"time"

	"github.com/google/uuid"

	"github.com/journalship/journalship/internal/sample"
)

// rng is the Cortex Plane generator's stream: Rand and the format's ids.
type rng struct{ *sample.Rand }

// newRNG returns the random stream number stream of seed.
func newRNG(seed int64, stream uint64) *rng { return &rng{sample.NewRand(uint64(seed), stream)} }

// pick returns a random element of s; s must not be empty.
func pick[T any](x *rng, s []T) T { return sample.Pick(x.Rand, s) }

// uuidV7 returns a UUIDv7 string whose 48-bit timestamp is t and whose
// other bits come from the stream.
func (x *rng) uuidV7(t time.Time) string {
	var u uuid.UUID
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint16(u[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(u[2:6], uint32(ms))
	binary.BigEndian.PutUint64(u[6:14], x.Uint64())
	binary.BigEndian.PutUint16(u[14:16], uint16(x.Uint32()))
	u[6] = 0x70 | u[6]&0x0f
	u[8] = 0x80 | u[8]&0x3f
	return u.String()
}

// Kubernetes name alphabets: pod-template hashes and pod suffixes avoid
// vowels and look-alike digits.
const k8sAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// millis returns d milliseconds as a Duration.
func millis(d int64) time.Duration { return time.Duration(d) * time.Millisecond }
