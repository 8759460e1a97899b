package integrity

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// String values are decoded exactly as the Cortex Plane validator always
// decoded them (fastjson's best-effort unescaping), so that extracted values
// and length checks do not change. That differs from encoding/json only for UTF-16
// surrogate escapes that do not form a pair: a lone surrogate escape is kept
// as its six characters of text ("\ud800"), and a surrogate escape followed
// by any other \u escape decodes both as one U+FFFD.

// Unescape appends the decoded text of s, the contents of a JSON string
// that the scanner accepted (Slot.Str, Member.Key), to dst. It allocates
// only when dst must grow: reuse a scratch buffer.
func Unescape(dst, s []byte) []byte {
	for len(s) > 0 {
		n := bytes.IndexByte(s, '\\')
		if n < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:n]...)
		var r rune
		var size int
		r, size, s = decodeEscape(s[n:])
		if r < 0 {
			dst = append(dst, s[:size]...) // kept as written
			s = s[size:]
			continue
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// decodeEscape decodes the escape at the start of s (a backslash). It
// returns the rune and the rest of s, or, for an escape that is kept as
// written, r = -1 and its size (s is then returned unconsumed).
func decodeEscape(s []byte) (r rune, size int, rest []byte) {
	switch c := s[1]; c {
	case 'b':
		return '\b', 0, s[2:]
	case 'f':
		return '\f', 0, s[2:]
	case 'n':
		return '\n', 0, s[2:]
	case 'r':
		return '\r', 0, s[2:]
	case 't':
		return '\t', 0, s[2:]
	case 'u':
	default: // '"', '\\', '/'
		return rune(c), 0, s[2:]
	}
	x := hex4(s[2:6])
	if !utf16.IsSurrogate(x) {
		return x, 0, s[6:]
	}
	if len(s) < 12 || s[6] != '\\' || s[7] != 'u' {
		return -1, 6, s // a lone surrogate stays as text
	}
	return utf16.DecodeRune(x, hex4(s[8:12])), 0, s[12:]
}

// hex4 reads four hex digits the scanner has checked.
func hex4(h []byte) rune {
	return rune(hexVal(h[0])<<12 | hexVal(h[1])<<8 | hexVal(h[2])<<4 | hexVal(h[3]))
}

// escapedChars counts the code points of the decoded text of s without
// decoding it.
func escapedChars(s []byte) int {
	n := 0
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return n + utf8.RuneCount(s)
		}
		n += utf8.RuneCount(s[:i])
		r, size, rest := decodeEscape(s[i:])
		if r < 0 {
			n += size // six ASCII characters
			s = s[i+size:]
			continue
		}
		n++
		s = rest
	}
	return n
}

// Longer tells whether a string value s (still escaped when esc, as
// Slot.Str returns it) has more than max characters, counted as JSON
// Schema's maxLength counts them: code points of the decoded text. Decoding
// never lengthens a string, so short ones are settled by their size.
func Longer(s []byte, esc bool, max int) bool {
	switch {
	case len(s) <= max:
		return false
	case esc:
		return escapedChars(s) > max
	}
	return utf8.RuneCount(s) > max
}
