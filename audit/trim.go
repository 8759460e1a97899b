package audit

import (
	"encoding/binary"
	"unicode/utf8"
)

// jsSpace reports whether r is removed by JavaScript's String.prototype.trim
// (ECMAScript WhiteSpace and LineTerminator).
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// jsTrim trims b as JavaScript's trim trims the string Node decodes from b.
// An invalid byte decodes to U+FFFD, which is not a space, so it stops the
// trim as its replacement would.
func jsTrim(b []byte) []byte {
	for len(b) > 0 {
		r, n := rune(b[0]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(b)
		}
		if !jsSpace(r) || r == utf8.RuneError {
			break
		}
		b = b[n:]
	}
	for len(b) > 0 {
		r, n := rune(b[len(b)-1]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeLastRune(b)
		}
		if !jsSpace(r) || r == utf8.RuneError {
			break
		}
		b = b[:len(b)-n]
	}
	return b
}

// reasonTooLong is the reason an over-long line is invalid.
const reasonTooLong = "longer than MaxLineBytes"

// hasControl reports whether b holds a byte below 0x20 (tab, CR and the
// other control characters), eight bytes at a time.
func hasControl(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		if (w-0x20*ones)&^w&highs != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}
