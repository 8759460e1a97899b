package integrity

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// The flat side of the scanner, for a format whose lines are one flat
// object judged against a schema of top-level fields (Cortex Plane's
// buffer): the format compiles its field names once into Keys; Members
// then checks a line as strict JSON in one pass, the same check Capture
// makes, and hands out the object's top-level members one at a time, in
// the order of the line and repeated keys included, each with the id of
// its key and its value as positions in the line. The format judges each
// member as it comes, without building anything; nested values are
// checked and skipped. Nothing is allocated per line.
//
// Use:
//
//	var r integrity.Members // one per goroutine, reused line after line
//	if r.Start(line) {
//		var m integrity.Member
//		for r.Next(&m, keys) {
//			// m.ID: which field (NoKey: another key); m.Slot: its value
//		}
//	}
//	if reason := r.Verdict(); reason != "" {
//		// the line is corrupt: forget what the members said
//	}
//
// A line may prove not to be JSON after some of its members were handed
// out: only Verdict, after the last Next, tells.

// Members reads the top-level members of one line's object. It is not safe
// for concurrent use; it is cheap, give each goroutine its own.
type Members struct {
	sc    scanner
	blank bool
}

// Start begins reading line (without its newline). It returns true when
// the line's value is an object: its members then come from Next.
// Otherwise the line has been judged whole and Verdict tells why it is
// corrupt.
func (r *Members) Start(line []byte) bool {
	if r.blank = isBlank(line); r.blank {
		return false
	}
	return r.sc.start(line, maxDepth)
}

// Next reads the next member into m: its key, the key's id in k (NoKey
// for a key k does not name) and its value. When k gives the key a Shape,
// a string value is checked against it as it is scanned and, when it has
// exactly that shape, marked Shaped: the format need not check it again.
// Next returns false at the end of the object or at the first error;
// Verdict then tells which.
func (r *Members) Next(m *Member, k *Keys) bool { return r.sc.next(m, k) }

// Verdict returns "" when the line read is a JSON object (strict RFC 8259
// JSON in valid UTF-8, nested at most 10000 deep), else why it is corrupt:
// "blank line", "invalid UTF-8", "not JSON", "not JSON: nested deeper than
// 10000 levels" or "not a JSON object" (Capture.Scan's reasons). Call it
// once Start or Next returned false.
func (r *Members) Verdict() string {
	if r.blank {
		return "blank line"
	}
	return r.sc.reason()
}

// Member is one top-level member of a line's object, as positions in the
// line (positions, not slices: storing them costs no write barriers).
type Member struct {
	KeyStart, KeyEnd int   // the key between its quotes, still escaped
	KeyEsc           bool  // the key contains backslash escapes
	ID               uint8 // the key's id in Keys (decoded), or NoKey
	Slot                   // the value
}

// Key returns the member's key in line, still escaped when KeyEsc.
func (m *Member) Key(line []byte) []byte { return line[m.KeyStart:m.KeyEnd] }

// Slot is where a value lies in its line.
type Slot struct {
	Start, End int // the value as written; a string keeps its quotes
	Kind       JSONKind
	Esc        bool // a string with backslash escapes
	Shaped     bool // a string found to have its key's Shape (and no escapes)
}

// Raw returns the value as written in line.
func (s *Slot) Raw(line []byte) []byte { return line[s.Start:s.End] }

// Str returns a string value in line without its quotes, still escaped
// when Esc (decode it with Unescape).
func (s *Slot) Str(line []byte) []byte { return line[s.Start+1 : s.End-1] }

// Int returns a number value as an integer: a JSON number with no
// fractional part (3.0 and 3e0 count, as in JSON Schema) within int64. ok
// is false for anything else. Numbers in exponent form are read with
// float64 arithmetic, as the runtimes' JSON readers do: 1e-400 reads as 0
// and 9.2e18 as the nearest float64, 9199999999999998976.
func (s *Slot) Int(line []byte) (n int64, ok bool) {
	if s.Kind != JSONNumber {
		return 0, false
	}
	raw := s.Raw(line)
	if n, ok = smallInt(raw); ok {
		return n, true // the common form, without a call
	}
	return integer(raw)
}

// IntOutOfRange tells whether a number value is an integer JSON Schema
// accepts but int64 cannot hold (2^70, 1e400): the reason Int refused it
// is then the range, not the form.
func (s *Slot) IntOutOfRange(line []byte) bool {
	return s.Kind == JSONNumber && integralOutOfRange(s.Raw(line))
}

// NoKey is the id of a key Keys does not name.
const NoKey uint8 = 255

// MaxKeys bounds the keys of one Keys, so that ids fit a byte and the
// lookup table stays at most half full.
const MaxKeys = 128

// maxKeyLen bounds a key's length, so that an escaped key is decoded on
// the stack.
const maxKeyLen = 64

// Key is one top-level key a format reads.
type Key struct {
	Name  string
	Shape Shape // what a string value of the key is expected to look like
}

// Keys is a compiled set of top-level keys, each known by its index in the
// list given to NewKeys (its id). Safe for concurrent use once built.
//
// A key is looked up in an open-addressing hash table: every key is read as
// its length and two words (see keyWords), which for keys of up to 16 bytes
// are the whole key, so that finding one costs a multiply (the hash) and
// three integer comparisons, no call to compare bytes; longer keys compare
// their middle bytes too. A collision moves on to the next slot. The table
// is at least half empty, so a key that is not there meets an empty slot at
// once.
type Keys struct {
	names  []string
	shapes [256]Shape // by id; NoKey has ShapeNone
	slots  [256]keySlot
}

// keySlot is one slot of the table: a key's words, length and id (n 0: an
// empty slot).
type keySlot struct {
	head, tail uint64
	n, id      uint8
}

// NewKeys compiles keys: the id of keys[i] is i. Names must be non-empty,
// distinct and at most 64 bytes long.
func NewKeys(keys ...Key) (*Keys, error) {
	if len(keys) > MaxKeys {
		return nil, fmt.Errorf("integrity: %d keys, at most %d", len(keys), MaxKeys)
	}
	k := &Keys{names: make([]string, len(keys))}
	for id, key := range keys {
		name := []byte(key.Name)
		switch {
		case len(name) == 0:
			return nil, errors.New("integrity: an empty key")
		case len(name) > maxKeyLen:
			return nil, fmt.Errorf("integrity: key %q is longer than %d bytes", key.Name, maxKeyLen)
		case k.Lookup(name) != NoKey:
			return nil, fmt.Errorf("integrity: key %q is named twice", key.Name)
		}
		k.names[id], k.shapes[id] = key.Name, key.Shape
		head, tail := keyWords(name)
		h := keyHash(head, tail, len(name))
		for k.slots[h].n != 0 {
			h++ // wraps around: a uint8
		}
		k.slots[h] = keySlot{head: head, tail: tail, n: uint8(len(name)), id: uint8(id)}
	}
	return k, nil
}

// MustKeys is NewKeys for keys fixed in the code; it panics on an error.
func MustKeys(keys ...Key) *Keys {
	k, err := NewKeys(keys...)
	if err != nil {
		panic(err)
	}
	return k
}

// Name returns the name of the key id ("" for NoKey or an unknown id).
func (k *Keys) Name(id uint8) string {
	if int(id) >= len(k.names) {
		return "" // NoKey, or an id of no key
	}
	return k.names[id]
}

// Lookup returns the id of a key (decoded, without quotes), or NoKey.
func (k *Keys) Lookup(key []byte) uint8 {
	n := len(key)
	if n == 0 || n > maxKeyLen {
		return NoKey
	}
	head, tail := keyWords(key)
	for h := keyHash(head, tail, n); ; h++ {
		s := &k.slots[h]
		if s.head == head && s.tail == tail && int(s.n) == n &&
			(n <= 16 || k.names[s.id][8:n-8] == string(key[8:n-8])) {
			return s.id
		}
		if s.n == 0 {
			return NoKey
		}
	}
}

// keyWords reads a non-empty key as two words that, with its length, are
// the whole key when it has at most 16 bytes: its first and last eight
// bytes (overlapping below 16); below 8 bytes, head holds the first and
// last four bytes (overlapping), or below 4 the first, middle and last
// byte, and tail is 0.
func keyWords(key []byte) (head, tail uint64) {
	switch n := len(key); {
	case n >= 8:
		return binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[n-8:])
	case n >= 4:
		return uint64(binary.LittleEndian.Uint32(key)) | uint64(binary.LittleEndian.Uint32(key[n-4:]))<<32, 0
	default:
		return uint64(key[0]) | uint64(key[n>>1])<<8 | uint64(key[n-1])<<16, 0
	}
}

// keyHash mixes a key's words and length into a slot of Keys.slots:
// Fibonacci hashing, the top byte of the product with 2^64/φ.
func keyHash(head, tail uint64, n int) uint8 {
	x := head ^ bits.RotateLeft64(tail, 31) ^ uint64(n)
	return uint8((x * 0x9E3779B97F4A7C15) >> 56)
}

// lookupEscaped is Lookup for a key as written with escapes: it is decoded
// as Unescape does, on the stack, and a key whose decoded text grows past
// 64 bytes (longer than any name) is no key, without being decoded further.
func (k *Keys) lookupEscaped(key []byte) uint8 {
	var buf [maxKeyLen]byte
	name := buf[:0]
	for len(key) > 0 {
		if key[0] != '\\' {
			if len(name) == len(buf) {
				return NoKey
			}
			name = append(name, key[0])
			key = key[1:]
			continue
		}
		r, size, rest := decodeEscape(key)
		if r < 0 { // a lone surrogate, kept as its text
			if len(name)+size > len(buf) {
				return NoKey
			}
			name = append(name, key[:size]...)
			key = key[size:]
			continue
		}
		if len(name)+utf8.RuneLen(r) > len(buf) {
			return NoKey
		}
		name = utf8.AppendRune(name, r)
		key = rest
	}
	return k.Lookup(name)
}
