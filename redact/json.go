package redact

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/journalship/journalship/integrity"
)

// jsonString is one string of a JSON document: its content (between the
// quotes) in the document and in the view.
type jsonString struct {
	raw, rawEnd   int
	view, viewEnd int
	key           bool // an object key: never rewritten
	escaped       bool // the content holds escapes
	doc           bool // a value whose content is a JSON object or array, scanned as such
}

// jsonDoc is a JSON document read for detection: the view is the document
// with the content of every string decoded (quotes and everything outside
// strings as they are), which is what the rules run over. It is reused
// from line to line.
type jsonDoc struct {
	raw     []byte
	view    []byte // raw itself when no string holds an escape
	strs    []jsonString
	buf     []byte // the view's storage when it differs from raw
	stack   []byte // open containers
	copied  int    // raw[:copied] is in buf
	escaped bool
	flat    []byte // storage of flatten's copies
}

// flatten returns text as the rules read it: each \" and \\ left in it
// (JSON escaped more than once: a document written into a string that is
// itself written into a string) becomes a space and the character, so a
// rule that wants a quote or a space after a secret finds one. The text
// keeps its length, so offsets in it are offsets in text. text itself
// when it holds no backslash.
func (d *jsonDoc) flatten(text []byte) []byte {
	at := bytes.IndexByte(text, '\\')
	if at < 0 {
		return text
	}
	d.flat = append(d.flat[:0], text...)
	for i := at; i+1 < len(d.flat); i++ {
		if d.flat[i] != '\\' {
			continue
		}
		if c := d.flat[i+1]; c == '"' || c == '\\' {
			d.flat[i] = ' '
		}
		i++ // the escaped character stays as it is
	}
	return d.flat
}

// parse reads raw as one JSON value (surrounded by optional white space)
// and builds its view; false when raw is not JSON. Strings may hold raw
// control characters (they are kept as they are); escapes must be valid.
func (d *jsonDoc) parse(raw []byte) bool {
	d.raw, d.view = raw, nil
	d.strs, d.buf, d.stack = d.strs[:0], d.buf[:0], d.stack[:0]
	d.copied, d.escaped = 0, false
	n := len(raw)
	i := 0
	for {
		i = skipSpace(raw, i)
		if i >= n {
			return false
		}
		var ok bool
		switch c := raw[i]; c {
		case '{', '[':
			i = skipSpace(raw, i+1)
			if i < n && raw[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
				i, ok = i+1, true
				break
			}
			d.stack = append(d.stack, c)
			if c == '{' {
				if i, ok = d.member(raw, i); !ok {
					return false
				}
			}
			continue
		case '"':
			i, ok = d.str(raw, i, false)
		case 't':
			i, ok = literal(raw, i, "true")
		case 'f':
			i, ok = literal(raw, i, "false")
		case 'n':
			i, ok = literal(raw, i, "null")
		default:
			i, ok = number(raw, i)
		}
		if !ok {
			return false
		}
		// A value is complete: close containers, or go on after a comma.
		for {
			i = skipSpace(raw, i)
			if len(d.stack) == 0 {
				if i != n {
					return false
				}
				d.finish()
				return true
			}
			if i >= n {
				return false
			}
			top := d.stack[len(d.stack)-1]
			if raw[i] == ',' {
				i = skipSpace(raw, i+1)
				if top == '{' {
					if i, ok = d.member(raw, i); !ok {
						return false
					}
				}
				break
			}
			if raw[i] != top+2 {
				return false
			}
			d.stack = d.stack[:len(d.stack)-1]
			i++
		}
	}
}

// member reads an object key and its colon at i and returns the index
// after the colon.
func (d *jsonDoc) member(raw []byte, i int) (int, bool) {
	if i >= len(raw) || raw[i] != '"' {
		return i, false
	}
	i, ok := d.str(raw, i, true)
	if !ok {
		return i, false
	}
	i = skipSpace(raw, i)
	if i >= len(raw) || raw[i] != ':' {
		return i, false
	}
	return i + 1, true
}

// str reads the string whose opening quote is at i and returns the index
// after its closing quote.
func (d *jsonDoc) str(raw []byte, i int, key bool) (int, bool) {
	start := i + 1
	j := start
	for {
		q := bytes.IndexByte(raw[j:], '"')
		if q < 0 {
			return i, false
		}
		q += j
		k := q - 1
		for k >= start && raw[k] == '\\' {
			k--
		}
		if (q-1-k)%2 == 0 { // not escaped
			j = q
			break
		}
		j = q + 1
	}
	s := jsonString{raw: start, rawEnd: j, key: key}
	content := raw[start:j]
	if bytes.IndexByte(content, '\\') < 0 {
		delta := len(d.buf) - d.copied
		s.view, s.viewEnd = start+delta, j+delta
	} else {
		s.escaped, d.escaped = true, true
		d.buf = append(d.buf, raw[d.copied:start]...)
		s.view = len(d.buf)
		var ok bool
		if d.buf, ok = appendUnescaped(d.buf, content); !ok {
			return i, false
		}
		s.viewEnd = len(d.buf)
		d.copied = j
	}
	d.strs = append(d.strs, s)
	return j + 1, true
}

// finish completes the view.
func (d *jsonDoc) finish() {
	if !d.escaped {
		d.view = d.raw
		return
	}
	d.buf = append(d.buf, d.raw[d.copied:]...)
	d.copied = len(d.raw)
	d.view = d.buf
}

// container reports whether the document is an object or an array.
func (d *jsonDoc) container() bool {
	i := skipSpace(d.raw, 0)
	return i < len(d.raw) && (d.raw[i] == '{' || d.raw[i] == '[')
}

// rawPos maps an offset of the view inside string s to the document. An
// offset inside the decoded bytes of one escape goes to the escape's start,
// or its end when up.
func (d *jsonDoc) rawPos(s *jsonString, v int, up bool) int {
	if !s.escaped {
		return v - s.view + s.raw
	}
	return s.raw + escapedPos(d.raw[s.raw:s.rawEnd], v-s.view, up)
}

// escapedPos maps offset v of the decoded content of s to s.
func escapedPos(s []byte, v int, up bool) int {
	r, d := 0, 0
	for d < v {
		k := bytes.IndexByte(s[r:], '\\')
		if k < 0 || k >= v-d {
			return r + v - d
		}
		r, d = r+k, d+k
		rw, vw := escapeWidth(s[r:])
		if d+vw > v {
			if up {
				return r + rw
			}
			return r
		}
		r, d = r+rw, d+vw
	}
	return r
}

// appendUnescaped appends the decoded content of a JSON string to dst;
// false on an invalid escape. Lone surrogates become U+FFFD, as
// encoding/json decodes them.
func appendUnescaped(dst, s []byte) ([]byte, bool) {
	for {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			return append(dst, s...), true
		}
		dst = append(dst, s[:k]...)
		s = s[k:]
		if len(s) < 2 {
			return dst, false
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, w := unicodeEscape(s)
			if w == 0 {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
			s = s[w:]
			continue
		default:
			return dst, false
		}
		s = s[2:]
	}
}

// escapeWidth returns the bytes of the escape s starts with and of its
// decoding (s holds a valid escape: the document was parsed).
func escapeWidth(s []byte) (raw, decoded int) {
	if s[1] != 'u' {
		return 2, 1
	}
	r, w := unicodeEscape(s)
	return w, utf8.RuneLen(r)
}

// unicodeEscape decodes the \uXXXX escape (or surrogate pair) s starts
// with; w is 0 when it is invalid.
func unicodeEscape(s []byte) (r rune, w int) {
	r1, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if !utf16.IsSurrogate(r1) {
		return r1, 6
	}
	if r2, ok := hex4(s[6:]); ok && len(s) >= 8 && s[6] == '\\' {
		if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
			return r, 12
		}
	}
	return utf8.RuneError, 6
}

// hex4 reads the four hex digits of the \u escape s starts with.
func hex4(s []byte) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func literal(b []byte, i int, w string) (int, bool) {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return i, false
	}
	return i + len(w), true
}

// number reads a JSON number at i: the index after it, or i and false.
func number(b []byte, i int) (int, bool) {
	end, ok := integrity.ScanNumber(b, i)
	if !ok {
		return i, false
	}
	return end, true
}
