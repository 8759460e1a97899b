package redact

import (
	"math/bits"
	"strings"
)

// The vector scan (words_amd64.s) finds, 64 positions at a time, the
// positions of a text worth the scalar test of words.mark: those whose
// three bytes a b c could be a word's fingerprint, the pair it is looked
// up by and the byte after the pair. It cannot hold the table of 65536
// pairs in registers; it tests three projections of the fingerprints
// instead, each a 32×32 bit matrix of 128 bytes:
//
//	q01[id0(a)][id1(b)]: a b is some word's pair,
//	q12[id1(b)][id2(c)]: b c is the end of some word's pair and a byte
//	  that may follow it,
//	q02[id0(a)][id2(c)]: the same for a and c,
//
// where id0, id1 and id2 map each byte to one of 32 classes of bytes
// (per place in the fingerprint: bytes alike in the matrices share one,
// and the classes of bytes rare in journal text are merged until 32 are
// left). A position passes when all three bits are set: a superset of
// the positions where a fingerprint is, so that no word is missed. In
// journal text one position in 65 to 70 passes, and the scalar test
// then keeps one in 140 to 210 of all (alone, it keeps one in 110 to
// 150: it knows the third byte only by one of 16 classes).
//
// Each lookup is one VPERMI2B, a table of 128 bytes indexed by the low
// seven bits of each byte: so bytes are known only by their low seven
// bits (c and c^0x80 are treated alike, a superset again). Per place, a
// table of 128 bytes gives what the matrices need of a byte's class: its
// row's offset (id<<2) or its column's byte (id>>3) and bit (1<<(id&7))
// in a row of four bytes.
//
// It needs AVX-512 VBMI (VPERMI2B). AVX2 looks up 16 bytes at most
// (PSHUFB), too few for the default rules' 200-odd fingerprints: in
// Teddy's buckets (by the low and high halves of each byte), 8 or 16 of
// them let a fifth to two thirds of the positions of journal text
// through, 32 (four times the work) a tenth, where the scalar test
// keeps under one in a hundred. Without VBMI, mark is scalar.

// vecTables are the tables of the vector scan, in the order the assembly
// loads them.
type vecTables struct {
	row0 [128]byte // id0<<2
	col1 [128]byte // id1>>3
	bit1 [128]byte // 1<<(id1&7)
	row1 [128]byte // id1<<2
	col2 [128]byte // id2>>3
	bit2 [128]byte // 1<<(id2&7)
	q01  [128]byte
	q12  [128]byte
	q02  [128]byte
}

// symSet is a set of 7-bit bytes.
type symSet [2]uint64

func (s *symSet) add(c byte)      { s[c>>6&1] |= 1 << (c & 63) }
func (s *symSet) has(c byte) bool { return s[c>>6&1]&(1<<(c&63)) != 0 }
func (s *symSet) union(o symSet)  { s[0], s[1] = s[0]|o[0], s[1]|o[1] }
func (s symSet) meets(o symSet) bool {
	return s[0]&o[0] != 0 || s[1]&o[1] != 0
}

// vecClasses is the most classes of bytes per place (32: five bits).
const vecClasses = 32

// newVecTables builds the tables of the vector scan for the words, each
// looked up by its pair at offs[i].
func newVecTables(list []word, offs []int) *vecTables {
	// m[k] is a matrix between two places: row byte → the column bytes.
	var m [3][128]symSet // 01, 12, 02
	for wi, w := range list {
		off := offs[wi]
		var s0, s1, s2 symSet
		for _, c := range variants(w.lit[off], w.fold) {
			s0.add(c & 127)
		}
		for _, c := range variants(w.lit[off+1], w.fold) {
			s1.add(c & 127)
		}
		switch {
		case off+2 < len(w.lit):
			for _, c := range variants(w.lit[off+2], w.fold) {
				s2.add(c & 127)
			}
		case len(w.after) > 0:
			s2.add('\\') // a backslash may stand for any byte
			for c := range 256 {
				if w.after[0].has(byte(c)) {
					s2.add(byte(c) & 127)
				}
			}
		default:
			s2 = symSet{^uint64(0), ^uint64(0)}
		}
		for a := range 128 {
			if s0.has(byte(a)) {
				m[0][a].union(s1)
				m[2][a].union(s2)
			}
			if s1.has(byte(a)) {
				m[1][a].union(s2)
			}
		}
	}
	p := newPlaces(&m)
	p.reduce()
	t := &vecTables{}
	id := p.ids()
	for c := range 128 {
		t.row0[c] = id[0][c] << 2
		t.col1[c] = id[1][c] >> 3
		t.bit1[c] = 1 << (id[1][c] & 7)
		t.row1[c] = id[1][c] << 2
		t.col2[c] = id[2][c] >> 3
		t.bit2[c] = 1 << (id[2][c] & 7)
	}
	for a := range 128 {
		for b := range 128 {
			if m[0][a].has(byte(b)) {
				setBit(&t.q01, id[0][a], id[1][b])
			}
			if m[1][a].has(byte(b)) {
				setBit(&t.q12, id[1][a], id[2][b])
			}
			if m[2][a].has(byte(b)) {
				setBit(&t.q02, id[0][a], id[2][b])
			}
		}
	}
	return t
}

func setBit(q *[128]byte, row, col byte) { q[row<<2|col>>3] |= 1 << (col & 7) }

// pass reports whether the position whose three bytes are a b c passes
// the vector scan: what the assembly computes for each position.
func (t *vecTables) pass(a, b, c byte) bool {
	a, b, c = a&127, b&127, c&127
	return t.q01[(t.row0[a]|t.col1[b])&127]&t.bit1[b] != 0 &&
		t.q12[(t.row1[b]|t.col2[c])&127]&t.bit2[c] != 0 &&
		t.q02[(t.row0[a]|t.col2[c])&127]&t.bit2[c] != 0
}

// places partitions the bytes of each place of a fingerprint into
// classes: the bytes alike in every matrix share one, and while a place
// has more than vecClasses, the two whose merging lets the least
// journal text through are merged.
type places struct {
	m  *[3][128]symSet
	mT [3][128]symSet // the matrices transposed: column byte → row bytes
	// class[p][c] is the class of byte c at place p; members[p][k] the
	// bytes of class k.
	class   [3][128]int
	members [3][]symSet
	freq    [128]float64 // of each byte in journal text
}

// matrices between places: the matrix, its row place and its column one.
var placeMatrices = [3][3]int{{0, 0, 1}, {1, 1, 2}, {2, 0, 2}}

func newPlaces(m *[3][128]symSet) *places {
	p := &places{m: m}
	for mx := range m {
		for r := range 128 {
			for c := range 128 {
				if m[mx][r].has(byte(c)) {
					p.mT[mx][c].add(byte(r))
				}
			}
		}
	}
	p.freq = journalFreq()
	for pl := range 3 {
		sigs := map[[2]symSet]int{}
		for c := range 128 {
			sig := p.signature(pl, byte(c))
			k, ok := sigs[sig]
			if !ok {
				k = len(p.members[pl])
				sigs[sig] = k
				p.members[pl] = append(p.members[pl], symSet{})
			}
			p.class[pl][c] = k
			p.members[pl][k].add(byte(c))
		}
	}
	return p
}

// signature returns what a byte at place pl is in the matrices: its row
// or its column in each of the two that involve pl.
func (p *places) signature(pl int, c byte) (sig [2]symSet) {
	n := 0
	for _, mx := range placeMatrices {
		switch pl {
		case mx[1]:
			sig[n] = p.m[mx[0]][c]
			n++
		case mx[2]:
			sig[n] = p.mT[mx[0]][c]
			n++
		}
	}
	return sig
}

// reduce merges classes until every place has at most vecClasses.
func (p *places) reduce() {
	for pl := range 3 {
		for len(p.members[pl]) > vecClasses {
			p.mergeCheapest(pl)
		}
	}
}

// mergeCheapest merges the two classes of place pl whose merging adds
// the least weight: the frequency in text of the pairs of bytes that the
// matrices involving pl let through (bytes taken as independent).
func (p *places) mergeCheapest(pl int) {
	k := len(p.members[pl])
	freq := make([]float64, k)
	for i, s := range p.members[pl] {
		freq[i] = p.weight(s)
	}
	// For each matrix involving pl, reach[i] is the classes of the other
	// place that class i meets in it (a class met lets all its bytes
	// through), and reachW[i] their weight.
	type matrix struct {
		reach   []symSet
		reachW  []float64
		classW  []float64 // of each class of the other place
		members []symSet
	}
	var ms []matrix
	for _, mx := range placeMatrices {
		if pl != mx[1] && pl != mx[2] {
			continue
		}
		other, mm := mx[2], &p.m[mx[0]]
		if pl == mx[2] {
			other, mm = mx[1], &p.mT[mx[0]]
		}
		x := matrix{reach: make([]symSet, k), reachW: make([]float64, k), members: p.members[other]}
		for _, os := range x.members {
			x.classW = append(x.classW, p.weight(os))
		}
		for i, s := range p.members[pl] {
			var met symSet
			for c := range 128 {
				if s.has(byte(c)) {
					met.union(mm[c])
				}
			}
			for oc, os := range x.members {
				if met.meets(os) {
					x.reach[i].add(byte(oc))
					x.reachW[i] += x.classW[oc]
				}
			}
		}
		ms = append(ms, x)
	}
	best, bi, bj := 0.0, -1, -1
	for i := range k {
		for j := i + 1; j < k; j++ {
			d := 0.0
			for _, x := range ms {
				uw := x.reachW[i] + x.reachW[j] // less what both reach
				for h := range 2 {
					for b := x.reach[i][h] & x.reach[j][h]; b != 0; b &= b - 1 {
						uw -= x.classW[h*64+bits.TrailingZeros64(b)]
					}
				}
				d += (freq[i]+freq[j])*uw - freq[i]*x.reachW[i] - freq[j]*x.reachW[j]
			}
			if bi < 0 || d < best {
				best, bi, bj = d, i, j
			}
		}
	}
	p.members[pl][bi].union(p.members[pl][bj])
	p.members[pl] = append(p.members[pl][:bj], p.members[pl][bj+1:]...)
	for c := range 128 {
		switch k := p.class[pl][c]; {
		case k == bj:
			p.class[pl][c] = bi
		case k > bj:
			p.class[pl][c] = k - 1
		}
	}
}

func (p *places) weight(s symSet) float64 {
	w := 0.0
	for x := range s {
		for b := s[x]; b != 0; b &= b - 1 {
			w += p.freq[x*64+bits.TrailingZeros64(b)]
		}
	}
	return w
}

// ids returns the class of each byte at each place.
func (p *places) ids() (id [3][128]byte) {
	for pl := range 3 {
		for c := range 128 {
			id[pl][c] = byte(p.class[pl][c])
		}
	}
	return id
}

// journalFreq returns how often each byte (its low seven bits) is in
// journal text, roughly: lower case letters as in commonText, about half
// of all; upper case ones a tenth as often as their lower case; digits,
// white space, quotes and the punctuation of JSON and code often; other
// bytes (and UTF-8's, whose low seven bits are those of ASCII control
// characters and punctuation) rarely.
func journalFreq() (f [128]float64) {
	var letters [26]float64
	total := 0.0
	for _, c := range []byte(commonText) {
		if 'a' <= c && c <= 'z' {
			letters[c-'a']++
			total++
		}
	}
	for c := range f {
		b := byte(c)
		switch {
		case 'a' <= b && b <= 'z':
			f[c] = 0.5 * (letters[b-'a'] + 1) / (total + 26)
		case isUpper(b):
			f[c] = 0.05 * (letters[b-'A'] + 1) / (total + 26)
		case '0' <= b && b <= '9':
			f[c] = 0.008
		case b == ' ' || b == '"':
			f[c] = 0.05
		case strings.IndexByte(":,._-/\\{}()[]=\n'", b) >= 0:
			f[c] = 0.01
		default:
			f[c] = 0.002
		}
	}
	return f
}
