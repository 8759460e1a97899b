package redact

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
	"sync"
)

// word is a literal whose presence lets rules run: a literal of a rule's
// anchor (with the bytes that must follow it) or a Gitleaks keyword,
// whichever of the two a rule has that is rarer.
type word struct {
	lit   string    // lower case (ASCII) when fold
	fold  bool      // found without regard to ASCII case
	after []byteSet // the bytes that may be at each position after lit
}

// words finds words in a text in one pass, without allocating. Each word
// is looked up by one of its byte pairs, the one least likely in journal
// text, and the byte after it: at each position of the text, a table of
// all 65536 pairs tells whether the pair is some word's and, if so, which
// of 16 classes of bytes (thirdBit, blind to case) may come after it in
// one; only a position where both hold is looked at closer. Where the
// CPU can, a vector scan (words_vec.go) first picks the few positions,
// 64 at a time, whose three bytes could be some word's, and only those
// are looked up in the table.
type words struct {
	// hot maps a byte pair (little endian) to the classes of the byte
	// after it in a word (all when the pair ends a word).
	hot    [1 << 16]uint16
	bucket [1 << 16]uint16 // a byte pair → index in buckets (0: none)
	// buckets are the words looked up by each pair, with the pair's
	// offset in the word.
	buckets [][]pairEntry
	list    []word
	// vec are the tables of the vector scan (nil when the CPU cannot
	// run it).
	vec *vecTables
}

type pairEntry struct {
	word uint16 // index in list
	off  uint16 // offset of the pair in the word
	// head is the word's first eight bytes (fewer for a shorter word),
	// little endian; a text's eight bytes, ORed with fold and ANDed with
	// mask, equal it where the word is.
	head, fold, mask uint64
}

// newPairEntry returns the entry of word wi looked up by its pair at off.
func newPairEntry(w word, wi, off int) pairEntry {
	e := pairEntry{word: uint16(wi), off: uint16(off)}
	for i := 0; i < len(w.lit) && i < 8; i++ {
		c := w.lit[i]
		e.head |= uint64(c) << (8 * i)
		e.mask |= 0xff << (8 * i)
		if w.fold && 'a' <= c && c <= 'z' {
			e.fold |= 0x20 << (8 * i)
		}
	}
	return e
}

// newWords builds the scanner of list (words of two bytes or more, at
// most 65535 of them).
func newWords(list []word) *words {
	k := &words{list: list, buckets: [][]pairEntry{nil}}
	offs := make([]int, len(list))
	for wi, w := range list {
		off := rarestPair(w)
		offs[wi] = off
		third := uint16(0xffff) // the pair ends the word: any byte may follow
		switch {
		case off+2 < len(w.lit):
			third = thirdBit[w.lit[off+2]]
		case len(w.after) > 0:
			third = thirdBit['\\'] // a backslash may stand for any byte
			for c := range 256 {
				if w.after[0].has(byte(c)) {
					third |= thirdBit[c]
				}
			}
		}
		for _, a := range variants(w.lit[off], w.fold) {
			for _, b := range variants(w.lit[off+1], w.fold) {
				p := uint16(a) | uint16(b)<<8
				if k.bucket[p] == 0 {
					k.bucket[p] = uint16(len(k.buckets))
					k.buckets = append(k.buckets, nil)
				}
				k.hot[p] |= third
				bi := k.bucket[p]
				k.buckets[bi] = append(k.buckets[bi], newPairEntry(w, wi, off))
			}
		}
	}
	if vectorCPU && len(list) > 0 {
		k.vec = newVecTables(list, offs)
	}
	return k
}

// mark sets in seen the bit of each word text holds and reports whether
// there was one; raw: text is a raw line (see fits).
func (k *words) mark(text []byte, seen []uint64, raw bool) bool {
	if k.vec != nil && vectorScan && len(text) >= minVecText {
		return k.markVec(text, seen, raw)
	}
	return k.markScalar(text, seen, raw)
}

// vectorScan: mark uses the vector scan where it can (tests turn it off
// to compare the two).
var vectorScan = true

// minVecText is the shortest text the vector scan is used for: below,
// loading its tables costs more than it saves.
const minVecText = 16

// vecChunk is how many positions a call of vecScan looks at: its
// candidates fit in a small array on the stack.
const vecChunk = 1024

// markScalar is mark looking at each position in turn.
func (k *words) markScalar(text []byte, seen []uint64, raw bool) bool {
	found := false
	h, bit := &k.hot, &thirdBit
	t := text
	for ; len(t) >= 3; t = t[1:] {
		if h[binary.LittleEndian.Uint16(t)]&bit[t[2]] != 0 && k.check(text, len(text)-len(t), seen, raw) {
			found = true
		}
	}
	if len(t) == 2 && h[binary.LittleEndian.Uint16(t)] != 0 && k.check(text, len(text)-2, seen, raw) {
		found = true
	}
	return found
}

// markVec is mark with the vector scan (words_vec.go) choosing the
// positions that get markScalar's test; the last pair, which no byte
// follows, gets it anyway.
func (k *words) markVec(text []byte, seen []uint64, raw bool) bool {
	if len(text) < 3 {
		return k.markScalar(text, seen, raw)
	}
	found := false
	h, bit := &k.hot, &thirdBit
	var cand [vecChunk / 64]uint64
	n := len(text) - 2 // the positions followed by two bytes
	for base := 0; base < n; base += vecChunk {
		m := min(vecChunk, n-base)
		vecScan(&text[base], m, k.vec, &cand[0])
		for wi, w := range cand[:(m+63)/64] {
			for ; w != 0; w &= w - 1 {
				i := base + wi*64 + bits.TrailingZeros64(w)
				if h[binary.LittleEndian.Uint16(text[i:])]&bit[text[i+2]] != 0 && k.check(text, i, seen, raw) {
					found = true
				}
			}
		}
	}
	if h[binary.LittleEndian.Uint16(text[n:])] != 0 && k.check(text, n, seen, raw) {
		found = true
	}
	return found
}

// thirdBit maps a byte to its bit in words.hot: one of 16, the same for
// both cases of a letter, spread by a multiplicative hash.
var thirdBit = func() (t [256]uint16) {
	for c := range t {
		t[c] = 1 << (uint8(lower(byte(c))*167) >> 4)
	}
	return t
}()

// check checks the words whose pair is text[i:i+2].
func (k *words) check(text []byte, i int, seen []uint64, raw bool) bool {
	b := k.bucket[binary.LittleEndian.Uint16(text[i:])]
	if b == 0 {
		return false
	}
	hit := false
	for _, e := range k.buckets[b] {
		st := i - int(e.off)
		if st < 0 {
			continue
		}
		if st+8 <= len(text) && (binary.LittleEndian.Uint64(text[st:])|e.fold)&e.mask != e.head {
			continue
		}
		w := &k.list[e.word]
		end := st + len(w.lit)
		if end > len(text) || !w.at(text[st:end]) || !fits(w.after, text, end, raw) {
			continue
		}
		seen[e.word>>6] |= 1 << (e.word & 63)
		hit = true
	}
	return hit
}

// at reports whether text is the word's literal.
func (w *word) at(text []byte) bool {
	if w.fold {
		return equalFold(text, w.lit)
	}
	return string(text) == w.lit
}

// equalFold reports whether text is lower, ASCII letters in any case.
func equalFold(text []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// indexFold returns the index of the first occurrence of lower in text,
// ASCII letters in any case, or -1.
func indexFold(text []byte, lower string) int {
	c := lower[0]
	upper := c
	if 'a' <= c && c <= 'z' {
		upper = c - ('a' - 'A')
	}
	for i := 0; i+len(lower) <= len(text); {
		j := indexEither(text[i:len(text)-len(lower)+1], c, upper)
		if j < 0 {
			return -1
		}
		i += j
		if equalFold(text[i+1:i+len(lower)], lower[1:]) {
			return i
		}
		i++
	}
	return -1
}

// indexEither returns the index of the first a or b in text, or -1.
func indexEither(text []byte, a, b byte) int {
	i := bytes.IndexByte(text, a)
	if a == b {
		return i
	}
	end := len(text)
	if i >= 0 {
		end = i
	}
	if j := bytes.IndexByte(text[:end], b); j >= 0 {
		return j
	}
	return i
}

// variants returns c and, when fold and c is an ASCII letter, its other
// case.
func variants(c byte, fold bool) []byte {
	switch {
	case fold && 'a' <= c && c <= 'z':
		return []byte{c, c - ('a' - 'A')}
	case fold && 'A' <= c && c <= 'Z':
		return []byte{c, c + ('a' - 'A')}
	}
	return []byte{c}
}

// rarestPair returns the offset of the byte pair of w that, with the
// byte after it, is least likely to let a position of journal text
// through: by the counts of the three bytes and of the pair in a
// reference of common English words, journal field names and code (a
// pair lets through a sixteenth of its occurrences, whatever the byte
// after it), then by the kinds of the bytes. A pair that ends w comes
// last: nothing is known of the byte after it.
func rarestPair(w word) int {
	tri, pair := commonCounts()
	best, bestScore := 0, int64(math.MaxInt64)
	for i := 0; i+1 < len(w.lit); i++ {
		p := int64(pair[foldString(w.lit[i:i+2])])
		var s int64 // int64: the pair's rank is shifted past 32 bits
		if i+2 < len(w.lit) {
			s = (16*int64(tri[foldString(w.lit[i:i+3])])+p)<<8 + int64(kindScore(w.lit[i], w.lit[i+1])+kindScore(w.lit[i+1], w.lit[i+2]))
		} else {
			s = 1<<40 + (16*p)<<8 + int64(kindScore(w.lit[i], w.lit[i+1]))
		}
		if s < bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

//go:embed common.txt
var commonText string

// commonCounts counts the triples and pairs of bytes of commonText.
var commonCounts = sync.OnceValues(func() (tri, pair map[string]int) {
	tri, pair = map[string]int{}, map[string]int{}
	t := foldString(commonText)
	for i := 0; i+1 < len(t); i++ {
		pair[t[i:i+2]]++
		if i+2 < len(t) {
			tri[t[i:i+3]]++
		}
	}
	return tri, pair
})

func foldString(s string) string { return strings.ToLower(s) }

// kindScore rates how common a pair of bytes is by their kinds: lower
// case letters, digits and the punctuation of code and prose are
// everywhere in journals (prose, code, shell output, hex ids, times);
// upper case letters less so, and next to a digit or another upper case
// letter rarely; other symbols are rare. The lower the rarer.
func kindScore(a, b byte) int {
	ca, cb := class(a), class(b)
	if ca > cb {
		ca, cb = cb, ca
	}
	switch {
	case ca == 'l' && cb == 'l':
		return 40
	case ca == 'd' && cb == 'd':
		return 60
	case ca == 'd' && cb == 'l', ca == 'l' && cb == 'p', ca == 'd' && cb == 'p':
		return 35
	case ca == 'p' && cb == 'p':
		return 25
	case ca == 'l' && cb == 'u':
		if isUpper(a) {
			return 25 // a capital letter starting a word
		}
		return 15 // camelCase
	case ca == 'p' && cb == 'u':
		return 12
	case ca == 'u' && cb == 'u':
		return 10
	case ca == 'd' && cb == 'u':
		return 6
	}
	return 3 // a rare symbol
}

// class returns 'd' digit, 'l' lower case, 'p' common punctuation or
// white space, 'u' upper case, 'r' anything else.
func class(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return 'd'
	case 'a' <= c && c <= 'z':
		return 'l'
	case isUpper(c):
		return 'u'
	case strings.IndexByte("_.-/: \"',()=\n\t\\", c) >= 0:
		return 'p'
	}
	return 'r'
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

func lower(c byte) byte {
	if isUpper(c) {
		return c + ('a' - 'A')
	}
	return c
}
