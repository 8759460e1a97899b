package integrity

import (
	"strconv"
	"unicode/utf8"
)

// maxDepth is the deepest nesting a line may have: the top-level value is at
// depth 1, the values inside it at depth 2, and so on. It is encoding/json's
// limit: any line it accepts is judged, not called corrupt.
const maxDepth = 10000

// valueKind is the JSON type of a scanned value.
type valueKind uint8

// JSON value kinds.
const (
	kindNone valueKind = iota
	kindString
	kindNumber
	kindTrue
	kindFalse
	kindNull
	kindObject
	kindArray
)

// scanStatus is the verdict of the scanner on a whole line.
type scanStatus uint8

const (
	// scanOK: strict RFC 8259 JSON, no deeper than the limit.
	scanOK scanStatus = iota
	// scanSyntax: not RFC 8259 JSON.
	scanSyntax
	// scanTooDeep: RFC 8259 JSON, but nested deeper than the limit.
	scanTooDeep
)

// scanner validates one line as strict RFC 8259 JSON in a single pass and,
// when the line is an object, hands its top-level members out one by one
// without building anything. Nested values are validated and skipped.
//
// Use: start; while the line is an object, next until it returns false;
// then status tells whether the line was valid.
type scanner struct {
	b      []byte
	i      int
	limit  int
	status scanStatus
	deep   bool // a value deeper than limit was seen (the syntax may still fail)
	more   bool // a member was read: the next one needs a comma
	object bool // the top-level value is an object
	// kinds holds one bit per open container (1 = object), by depth. It
	// is kept from line to line.
	kinds []uint64
}

// start begins scanning line with the given depth limit. It returns true
// when the top-level value is an object: its members then come from next.
// Otherwise the whole line has been scanned and status holds the verdict.
func (s *scanner) start(line []byte, limit int) bool {
	s.b, s.i, s.limit = line, 0, limit
	s.status, s.deep, s.more, s.object = scanOK, false, false, false
	i := skipWS(line, 0)
	if i < len(line) && line[i] == '{' {
		s.i, s.object = i+1, true
		if limit < 1 {
			s.deep = true
		}
		return true
	}
	i, _, ok := s.value(i, 1)
	s.end(i, ok)
	return false
}

// end records the verdict once the top-level value ends before b[i].
func (s *scanner) end(i int, ok bool) {
	if ok {
		ok = skipWS(s.b, i) == len(s.b)
	}
	switch {
	case !ok:
		s.status = scanSyntax
	case s.deep:
		s.status = scanTooDeep
	default:
		s.status = scanOK
	}
}

func (s *scanner) fail() bool {
	s.status = scanSyntax
	return false
}

// next reads the next member of the top-level object into m: its key, the
// key's id in k (NoKey for any other key) and its value. A string value
// expected to have a shape (k's, by id) is taken with the shape's own check
// when it has exactly that shape (a uuid or a hash holds nothing a string
// scan must look at), and marked Shaped; anything else is scanned. next
// returns false at the end of the object or at the first error; status
// then tells which.
func (s *scanner) next(m *Member, k *Keys) bool {
	b := s.b
	i := skipWS(b, s.i)
	if i >= len(b) {
		return s.fail()
	}
	if b[i] == '}' {
		s.end(i+1, true)
		return false
	}
	if s.more {
		if b[i] != ',' {
			return s.fail()
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return s.fail()
		}
	}
	if b[i] != '"' {
		return s.fail()
	}
	end, esc, ok := shortString(b, i+1)
	if !ok {
		if end, esc, ok = s.scanString(i + 1); !ok {
			return s.fail()
		}
	}
	m.KeyStart, m.KeyEnd, m.KeyEsc = i+1, end, esc
	if esc {
		m.ID = k.lookupEscaped(b[i+1 : end])
	} else {
		m.ID = k.Lookup(b[i+1 : end])
	}
	i = skipWS(b, end+1)
	if i >= len(b) || b[i] != ':' {
		return s.fail()
	}
	start := skipWS(b, i+1)
	s.more = true
	if start < len(b) && b[start] == '"' && s.limit >= 2 {
		if end := shaped(b, start, k.shapes[m.ID]); end > 0 {
			m.Slot = Slot{Start: start, End: end, Kind: kindString, Shaped: true}
			s.i = end
			return true
		}
		end, esc, ok := s.scanString(start + 1)
		if !ok {
			return s.fail()
		}
		m.Slot = Slot{Start: start, End: end + 1, Kind: kindString, Esc: esc}
		s.i = end + 1
		return true
	}
	end, kind, ok := s.value(start, 2)
	if !ok {
		return s.fail()
	}
	m.Slot = Slot{Start: start, End: end, Kind: kind}
	s.i = end
	return true
}

// reason returns why a scanned line is corrupt, or "" for a JSON object.
// The scanner checks UTF-8 in strings, and outside them anything but ASCII
// is not JSON: a line it accepts is valid UTF-8. A line it refuses may be
// refused for its UTF-8, which is the reason to give.
func (s *scanner) reason() string {
	switch {
	case s.status != scanOK && !utf8.Valid(s.b):
		return "invalid UTF-8"
	case s.status == scanSyntax:
		return "not JSON"
	case s.status == scanTooDeep:
		return reasonTooDeep
	case !s.object:
		return "not a JSON object"
	}
	return ""
}

// reasonTooDeep is the corrupt reason of a line nested deeper than maxDepth.
var reasonTooDeep = "not JSON: nested deeper than " + strconv.Itoa(maxDepth) + " levels"

// isBlank tells whether a line has nothing but JSON whitespace.
func isBlank(b []byte) bool {
	if len(b) > 0 && b[0] > ' ' {
		return false
	}
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// value validates the value starting at b[i] (no leading whitespace), at
// the given depth, and returns the index after it.
func (s *scanner) value(i, depth int) (int, valueKind, bool) {
	b := s.b
	if i >= len(b) {
		return i, kindNone, false
	}
	if depth > s.limit {
		s.deep = true
	}
	switch c := b[i]; c {
	case '"':
		end, _, ok := s.scanString(i + 1)
		return end + 1, kindString, ok
	case '{':
		end, ok := s.skipNested(i, depth)
		return end, kindObject, ok
	case '[':
		end, ok := s.skipNested(i, depth)
		return end, kindArray, ok
	case 't':
		return i + 4, kindTrue, hasWord(b, i, "true")
	case 'f':
		return i + 5, kindFalse, hasWord(b, i, "false")
	case 'n':
		return i + 4, kindNull, hasWord(b, i, "null")
	default:
		end, ok := ScanNumber(b, i)
		return end, kindNumber, ok
	}
}

func hasWord(b []byte, i int, w string) bool {
	return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w
}

// skipNested validates the object or array opening at b[i], at the given
// depth, and returns the index after its end. It keeps its own stack of
// open containers, so nesting costs no recursion; a value deeper than the
// limit is remembered and the scan goes on, so that a syntax error anywhere
// still wins over depth.
func (s *scanner) skipNested(i, depth int) (int, bool) {
	b := s.b
	base := depth
	var ok, obj bool
open:
	// b[i] opens a container at depth.
	obj = b[i] == '{'
	s.push(depth, obj)
	i = skipWS(b, i+1)
	if i >= len(b) {
		return i, false
	}
	if b[i] == closer(obj) {
		i++
		goto closed
	}
element:
	// b[i] starts an element (a member for an object) of the container.
	if obj {
		if b[i] != '"' {
			return i, false
		}
		if i, _, ok = s.scanString(i + 1); !ok {
			return i, false
		}
		i = skipWS(b, i+1)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return i, false
		}
	}
	if depth+1 > s.limit {
		s.deep = true
	}
	if c := b[i]; c == '{' || c == '[' {
		depth++
		goto open
	}
	if i, _, ok = s.value(i, depth+1); !ok {
		return i, false
	}
after:
	// A value of the container at depth has just ended before b[i].
	i = skipWS(b, i)
	if i >= len(b) {
		return i, false
	}
	if b[i] == ',' {
		i = skipWS(b, i+1)
		if i >= len(b) {
			return i, false
		}
		goto element
	}
	if b[i] != closer(obj) {
		return i, false
	}
	i++
closed:
	// The container at depth has just closed before b[i].
	depth--
	if depth < base {
		return i, true
	}
	obj = s.isObject(depth)
	goto after
}

func closer(obj bool) byte {
	if obj {
		return '}'
	}
	return ']'
}

// push records the kind of the container open at depth.
func (s *scanner) push(depth int, obj bool) {
	w, bit := depth>>6, uint64(1)<<(depth&63)
	if w >= len(s.kinds) {
		// Once per scanner, and again only for lines nested 1024+ deep.
		s.kinds = append(s.kinds, make([]uint64, w+16-len(s.kinds))...)
	}
	if obj {
		s.kinds[w] |= bit
	} else {
		s.kinds[w] &^= bit
	}
}

func (s *scanner) isObject(depth int) bool {
	return s.kinds[depth>>6]&(1<<(depth&63)) != 0
}

// skipWS returns the index of the first byte at or after i that is not JSON
// whitespace.
func skipWS(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i // compact JSON: no whitespace
	}
	return skipWSLoop(b, i)
}

func skipWSLoop(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// ScanNumber validates the JSON number starting at b[i] and returns the
// index after it (or, with false, where it fails):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func ScanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// digits returns the index of the first non-digit at or after i.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
