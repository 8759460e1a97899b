package integrity

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// Strings are scanned eight bytes at a time (SWAR: SIMD within a register):
// one word tells whether any of its bytes needs a closer look.

// scanString validates a string's contents from b[i] (just after its
// opening quote), UTF-8 included. It returns the index of the closing quote
// and whether the string contains escapes.
func (s *scanner) scanString(i int) (int, bool, bool) {
	b := s.b
	esc := false
	for {
		for i >= 0 && i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i : i+8])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return i, esc, false
		}
		switch c := b[i]; {
		case c == '"':
			return i, esc, true
		case c == '\\':
			esc = true
			n := escapeLen(b, i)
			if n == 0 {
				return i, esc, false
			}
			i += n
		case c < 0x20:
			return i, esc, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, esc, false
			}
			i += size
		}
	}
}

// shortString is scanString's quick answer for a string of at most 15
// bytes with nothing special in it, most keys: ok is false when it cannot
// tell, and scanString must.
func shortString(b []byte, i int) (int, bool, bool) {
	if i < 0 || i+16 > len(b) {
		return 0, false, false
	}
	n := i
	m := special(binary.LittleEndian.Uint64(b[i : i+8]))
	if m == 0 {
		n += 8
		m = special(binary.LittleEndian.Uint64(b[i+8 : i+16]))
	}
	if m == 0 {
		return 0, false, false
	}
	n += bits.TrailingZeros64(m) >> 3
	return n, false, b[n] == '"'
}

// SWAR constants: one byte repeated in each of a word's eight bytes.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special returns a word whose lowest set bit (if any) is the high bit of
// the first byte of x, in memory order, that is a quote, a backslash, a
// control character or not ASCII. Bits above the first such byte may be
// wrong (a subtraction borrows only from a byte it flags).
//
// x ^ 0x02 turns a quote into 0x20 and keeps control characters below 0x20,
// everything else ASCII at 0x21 or more: subtracting 0x21 sets the high bit
// of exactly those (and of some non-ASCII bytes). x ^ 0x5c turns a
// backslash into 0, the only ASCII byte whose high bit subtracting 1 sets.
// Non-ASCII bytes have their high bit in x.
func special(x uint64) uint64 {
	quoteOrControl := (x ^ 0x02*ones) - 0x21*ones
	backslash := (x ^ '\\'*ones) - ones
	return (quoteOrControl | backslash | x) & highs
}

// escapeLen returns the length of the valid escape at b[i] (a backslash),
// or 0.
func escapeLen(b []byte, i int) int {
	if i+1 >= len(b) {
		return 0
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b)-i < 6 {
			return 0
		}
		for _, h := range b[i+2 : i+6] {
			if hexVal(h) < 0 {
				return 0
			}
		}
		return 6
	}
	return 0
}

// hexVal returns the value of a hex digit, or -1.
func hexVal(c byte) int { return int(hexTable[c]) }

// hexTable maps each byte to its hex digit value, or -1.
var hexTable = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = int8(c-'a') + 10
		t[c-'a'+'A'] = int8(c-'a') + 10
	}
	return t
}()
