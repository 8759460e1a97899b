package audit

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// PreviewChars is the most characters a preview holds, as the seed's
// rawPreview (200).
const PreviewChars = 200

// Preview is PreviewN with the seed's PreviewChars.
func Preview(b []byte) string { return PreviewN(b, PreviewChars) }

// PreviewN renders the start of a line safely for a terminal or a log: at
// most max characters, printable characters as they are, a
// backslash doubled, the others escaped as strconv.Quote does (\t, \x00,
// \u2028, \xff for a byte that is not UTF-8). A cut preview ends with "…".
// Escapes are never split.
func PreviewN(b []byte, max int) string {
	out := make([]byte, 0, min(len(b), max)+8)
	chars := 0
	var esc []byte
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		esc = escapeRune(esc[:0], r, n, b[0])
		c := utf8.RuneCount(esc)
		if chars+c > max || (chars+c == max && len(b) > n) {
			return string(append(out, "…"...))
		}
		out = append(out, esc...)
		chars += c
		b = b[n:]
	}
	return string(out)
}

func escapeRune(dst []byte, r rune, n int, first byte) []byte {
	switch {
	case r == utf8.RuneError && n == 1:
		dst = append(dst, `\x`...)
		return strconv.AppendUint(padHex(dst, first), uint64(first), 16)
	case r == '\\':
		return append(dst, `\\`...)
	case r == ' ' || unicode.IsPrint(r):
		return utf8.AppendRune(dst, r)
	}
	q := strconv.QuoteRuneToASCII(r) // 'x' with x escaped
	return append(dst, q[1:len(q)-1]...)
}

func padHex(dst []byte, b byte) []byte {
	if b < 0x10 {
		dst = append(dst, '0')
	}
	return dst
}
