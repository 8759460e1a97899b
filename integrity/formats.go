package integrity

import "encoding/binary"

// String formats of journal fields, checked eight bytes at a time.

// IsUUID accepts the hyphenated 36-character form only, as JSON Schema's
// "uuid" format (RFC 4122) does: hex digits of either case, hyphens at
// 8, 13, 18 and 23, any version and variant.
func IsUUID(s []byte) bool {
	if len(s) != 36 {
		return false
	}
	// Words at 0, 8, 16, 24 and 28 (overlapping) cover the 36 bytes; the
	// hyphens are bytes 0 and 5 of the second word, 2 and 7 of the third.
	const (
		h1 = 0xff | 0xff<<40
		h2 = 0xff<<16 | 0xff<<56
	)
	w1 := binary.LittleEndian.Uint64(s[8:])
	w2 := binary.LittleEndian.Uint64(s[16:])
	if w1&h1 != '-'*ones&h1 || w2&h2 != '-'*ones&h2 {
		return false
	}
	return notHex(binary.LittleEndian.Uint64(s[0:]))|
		notHex(w1&^h1|'0'*ones&h1)|
		notHex(w2&^h2|'0'*ones&h2)|
		notHex(binary.LittleEndian.Uint64(s[24:]))|
		notHex(binary.LittleEndian.Uint64(s[28:])) == 0
}

// IsHex64 matches ^[a-f0-9]{64}$.
func IsHex64(s []byte) bool {
	if len(s) != 64 {
		return false
	}
	bad := uint64(0)
	for i := 0; i < 64; i += 8 {
		bad |= notLowerHex(binary.LittleEndian.Uint64(s[i:]))
	}
	return bad == 0
}

// inRange returns the high bit of each byte of x (all ASCII) that is in
// [lo, hi].
func inRange(x uint64, lo, hi byte) uint64 {
	return (x + (0x80-uint64(lo))*ones) &^ (x + (0x7f-uint64(hi))*ones) & highs
}

// notHex is zero when the eight bytes of x are hex digits of either case.
func notHex(x uint64) uint64 {
	return x&highs | ^(inRange(x, '0', '9')|inRange(x|0x20*ones, 'a', 'f'))&highs
}

// notLowerHex is zero when the eight bytes of x are in [0-9a-f].
func notLowerHex(x uint64) uint64 {
	return x&highs | ^(inRange(x, '0', '9')|inRange(x, 'a', 'f'))&highs
}

// Shape is a fixed string format a value is expected to have (Key.Shape).
type Shape uint8

// The shapes.
const (
	ShapeNone  Shape = iota // any value
	ShapeUUID               // 36 characters, see IsUUID
	ShapeHex64              // 64 lowercase hex digits, see IsHex64
)

// shaped returns the index after the string starting at b[i] (its opening
// quote) when it has exactly the shape sh, else 0. Such a string has no
// quote, backslash, control character or non-ASCII byte, so scanning it
// would find the same end.
func shaped(b []byte, i int, sh Shape) int {
	switch sh {
	case ShapeUUID:
		if end := i + 38; end <= len(b) && b[end-1] == '"' && IsUUID(b[i+1:end-1]) {
			return end
		}
	case ShapeHex64:
		if end := i + 66; end <= len(b) && b[end-1] == '"' && IsHex64(b[i+1:end-1]) {
			return end
		}
	}
	return 0
}
