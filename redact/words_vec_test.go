package redact

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// scan is one way words.mark can look at a text.
type scan struct {
	name string
	mark func(k *words, text []byte, seen []uint64, raw bool) bool
}

// scans returns the ways of k: the scalar scan and the vector one, or
// where the CPU has none, the vector scan's tables applied in Go,
// position by position, as the assembly does (which
// TestVecScanAsTheTablesSay checks where it runs).
func scans(k *words) []scan {
	out := []scan{{"scalar", (*words).markScalar}}
	if k.vec != nil {
		return append(out, scan{"vector", (*words).markVec})
	}
	t := newVecTables(k.list, wordOffsets(k.list))
	return append(out, scan{"tables", func(k *words, text []byte, seen []uint64, raw bool) bool { return k.markTables(t, text, seen, raw) }})
}

func wordOffsets(list []word) []int {
	offs := make([]int, len(list))
	for i, w := range list {
		offs[i] = rarestPair(w)
	}
	return offs
}

// markTables is markVec with the positions chosen by t.pass.
func (k *words) markTables(t *vecTables, text []byte, seen []uint64, raw bool) bool {
	if len(text) < 3 {
		return k.markScalar(text, seen, raw)
	}
	found := false
	n := len(text) - 2
	for i := range n {
		if t.pass(text[i], text[i+1], text[i+2]) && k.hot[binary.LittleEndian.Uint16(text[i:])]&thirdBit[text[i+2]] != 0 && k.check(text, i, seen, raw) {
			found = true
		}
	}
	if k.hot[binary.LittleEndian.Uint16(text[n:])] != 0 && k.check(text, n, seen, raw) {
		found = true
	}
	return found
}

// requireSameMarks checks that every scan of k finds in text what the
// scalar one does.
func requireSameMarks(t testing.TB, k *words, ss []scan, text []byte) {
	t.Helper()
	n := (len(k.list) + 63) / 64
	want, got := make([]uint64, n), make([]uint64, n)
	for _, raw := range []bool{true, false} {
		clear(want)
		wantFound := k.markScalar(text, want, raw)
		for _, s := range ss[1:] {
			clear(got)
			found := s.mark(k, text, got, raw)
			if found != wantFound || !slices.Equal(got, want) {
				t.Fatalf("%s scan of %q (raw %t): %t %x, scalar %t %x", s.name, text, raw, found, got, wantFound, want)
			}
		}
	}
}

// The assembly reads the tables at these offsets.
func TestVecTablesLayout(t *testing.T) {
	var v vecTables
	offs := []uintptr{unsafe.Offsetof(v.row0), unsafe.Offsetof(v.col1), unsafe.Offsetof(v.bit1), unsafe.Offsetof(v.row1),
		unsafe.Offsetof(v.col2), unsafe.Offsetof(v.bit2), unsafe.Offsetof(v.q01), unsafe.Offsetof(v.q12), unsafe.Offsetof(v.q02)}
	for i, off := range offs {
		require.Equal(t, uintptr(128*i), off)
	}
	require.Equal(t, uintptr(128*9), unsafe.Sizeof(v))
}

// testWordLists returns the default rules' words and lists that reach
// the corners of the tables: bytes of 0x80 and above (known by their low
// seven bits), pairs that end a word (any byte or a set after them), many
// words (more byte classes than fit, merged), and random ones.
func testWordLists(t testing.TB) map[string][]word {
	lists := map[string][]word{"default": newRedactor(t, nil).set.words.list}
	var all, high byteSet
	addRange(&all, 0, 255)
	addRange(&high, 0x80, 0xff)
	lists["corners"] = []word{
		{lit: "\xc3\xa9t\xff"}, {lit: "ab"}, {lit: "zq", after: []byteSet{high}}, {lit: "x\x80", fold: true, after: []byteSet{alnum(), all}},
		{lit: "k9", after: []byteSet{all}}, {lit: "\x00\x01\x02"}, {lit: "secret", fold: true},
	}
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, name := range []string{"random", "random-many"} {
		n := 40
		if name == "random-many" {
			n = 600
		}
		var list []word
		for range n {
			lit := make([]byte, 2+rnd.IntN(6))
			for i := range lit {
				switch rnd.IntN(8) {
				case 0:
					lit[i] = byte(rnd.IntN(256))
				case 1:
					lit[i] = "0123456789-_./"[rnd.IntN(14)]
				default:
					lit[i] = byte('a' + rnd.IntN(26))
				}
			}
			w := word{lit: string(lit), fold: rnd.IntN(2) == 0}
			if w.fold {
				w.lit = strings.ToLower(w.lit)
			}
			for range rnd.IntN(3) {
				var s byteSet
				for range 1 + rnd.IntN(40) {
					s.add(byte(rnd.IntN(256)))
				}
				w.after = append(w.after, s)
			}
			list = append(list, w)
		}
		lists[name] = list
	}
	return lists
}

// Every word passes the vector scan's tables at its pair, in either case
// (where it is found so) and with every byte that may come after the
// pair: the tables never hide a word from the scalar test.
func TestVecTablesLetEveryWordThrough(t *testing.T) {
	for name, list := range testWordLists(t) {
		offs := wordOffsets(list)
		tabs := newVecTables(list, offs)
		for wi, w := range list {
			off := offs[wi]
			var third []byte
			switch {
			case off+2 < len(w.lit):
				third = variants(w.lit[off+2], w.fold)
			case len(w.after) > 0:
				third = append(w.after[0].bytes(), '\\')
			default:
				for c := range 256 {
					third = append(third, byte(c))
				}
			}
			for _, a := range variants(w.lit[off], w.fold) {
				for _, b := range variants(w.lit[off+1], w.fold) {
					for _, c := range third {
						require.True(t, tabs.pass(a, b, c), "%s: %q at %d, then %q", name, w.lit, off, c)
					}
				}
			}
		}
	}
}

// The assembly computes what the tables say, for every position of
// texts of every length (tails short of 64 positions included), bytes of
// 0x80 and above too, and writes nothing past the words of the positions
// asked for.
func TestVecScanAsTheTablesSay(t *testing.T) {
	if !vectorCPU {
		t.Skip("the CPU has no AVX-512 VBMI")
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, list := range testWordLists(t) {
		tabs := newVecTables(list, wordOffsets(list))
		var alphabet []byte
		for _, w := range list {
			alphabet = append(alphabet, w.lit...)
		}
		for trial := range 3000 {
			n := trial%260 + 1
			if trial%50 == 0 {
				n = rnd.IntN(3000) + 1
			}
			text := make([]byte, n+2)
			for i := range text {
				if rnd.IntN(3) == 0 {
					text[i] = byte(rnd.IntN(256))
				} else {
					text[i] = alphabet[rnd.IntN(len(alphabet))]
				}
			}
			requireScanAsTables(t, tabs, text)
		}
	}
}

// requireScanAsTables checks vecScan over the positions of text that
// two bytes follow.
func requireScanAsTables(t testing.TB, tabs *vecTables, text []byte) {
	t.Helper()
	n := len(text) - 2
	if n < 1 {
		return
	}
	words := (n + 63) / 64
	out := make([]uint64, words+1)
	out[words] = 0x5a5a5a5a
	for i := range words {
		out[i] = ^uint64(0)
	}
	vecScan(&text[0], n, tabs, &out[0])
	require.Equal(t, uint64(0x5a5a5a5a), out[words], "wrote past the end")
	for i := range words * 64 {
		want := i < n && tabs.pass(text[i], text[i+1], text[i+2])
		if got := out[i/64]&(1<<(i%64)) != 0; got != want {
			t.Fatalf("position %d of %d: %t, the tables say %t (%q)", i, n, got, want, text[i:min(i+3, len(text))])
		}
	}
}

// Every scan finds what the scalar one finds: every default word (with
// bytes that may follow it, in either case) at every offset of lines of
// up to 200 bytes, at their end and at their start; and random lines of
// 0 to 200 bytes made of the words' bytes, escapes, case flips and bytes
// of 0x80 and above.
func TestScansFindTheSameWords(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	filler := []byte(`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "{}:,./\-_~`)
	for _, list := range testWordLists(t) {
		k := newWords(list)
		ss := scans(k)
		line := make([]byte, 200)
		for wi, w := range list {
			if len(list) > 300 {
				break // many random words: only the random lines
			}
			word := []byte(w.lit)
			if w.fold && wi%2 == 1 {
				word = bytes.ToUpper(word)
			}
			for _, set := range w.after {
				if b := set.bytes(); len(b) > 0 {
					word = append(word, b[rnd.IntN(len(b))])
				}
			}
			if len(word) > len(line) {
				continue
			}
			for i := range line {
				line[i] = filler[rnd.IntN(len(filler))]
			}
			for at := 0; at+len(word) <= len(line); at++ {
				text := slices.Concat(line[:at], word, line[at:len(line)-len(word)])
				requireSameMarks(t, k, ss, text)
				requireSameMarks(t, k, ss, text[:at+len(word)])
				requireSameMarks(t, k, ss, text[at:])
			}
		}
		var alphabet []byte
		for _, w := range list {
			alphabet = append(alphabet, w.lit...)
			alphabet = append(alphabet, strings.ToUpper(w.lit)...)
		}
		for trial := range 4000 {
			text := make([]byte, trial%201)
			for i := range text {
				switch rnd.IntN(10) {
				case 0:
					text[i] = '\\'
				case 1:
					text[i] = byte(rnd.IntN(256))
				case 2:
					text[i] = filler[rnd.IntN(len(filler))]
				default:
					text[i] = alphabet[rnd.IntN(len(alphabet))]
				}
			}
			if trial%7 == 0 && len(text) > 6 {
				copy(text[rnd.IntN(len(text)-5):], `\u004`) // an escape that may hide a byte of a word
			}
			requireSameMarks(t, k, ss, text)
		}
	}
}

// Every word, with bytes after it that fit it, placed so that it starts
// at every position around the edges of vecScan's calls (straddling two
// calls included), is found by every scan as by the scalar one, and found.
func TestScansFindTheSameWordsInLongTexts(t *testing.T) {
	k := newRedactor(t, nil).set.words
	ss := scans(k)
	base := bytes.Repeat([]byte("the quick brown fox "), 2*vecChunk/20+8)[:2*vecChunk+40]
	for wi, w := range k.list {
		word := append([]byte(w.lit), fitting(w)...)
		for _, edge := range []int{vecChunk, 2 * vecChunk} {
			for at := edge - len(word) - 1; at <= edge+2; at++ {
				text := slices.Clone(base[:min(len(base), edge+len(word)+4)])
				if at < 0 || at+len(word) > len(text) {
					continue
				}
				copy(text[at:], word)
				requireSameMarks(t, k, ss, text)
				seen := make([]uint64, (len(k.list)+63)/64)
				k.markScalar(text, seen, true)
				require.NotZero(t, seen[wi>>6]&(1<<(wi&63)), "%q at %d not found", word, at)
			}
		}
	}
}

// fitting returns bytes that may follow w's literal (w.after), the
// first allowed byte for each.
func fitting(w word) []byte {
	var out []byte
	for _, set := range w.after {
		for c := range 256 {
			if set.has(byte(c)) && c != '\\' {
				out = append(out, byte(c))
				break
			}
		}
	}
	return out
}

// The vector scan in Redact finds what the scalar one does, in the
// Gitleaks examples in every shape and in journals without secrets.
func TestRedactSameWithEitherScan(t *testing.T) {
	if !vectorCPU {
		t.Skip("the CPU has no AVX-512 VBMI")
	}
	r := newRedactor(t, nil)
	tps, fps := gitleaksExamples()
	var lines [][]byte
	for i, e := range append(tps, fps...) {
		lines = append(lines, []byte(e.Sample), shapes[i%len(shapes)].line(e.Sample))
	}
	cortex, claude := benchCorpora(t)
	lines = append(append(lines, cortex[:200]...), claude[:100]...)
	defer func() { vectorScan = true }()
	for _, line := range lines {
		vectorScan = false
		wantOut, wantFound := r.Redact("s.jsonl", line, nil)
		wantOut = slices.Clone(wantOut)
		vectorScan = true
		out, found := r.Redact("s.jsonl", line, nil)
		require.Equal(t, wantFound, found, "%s", line)
		require.Equal(t, string(wantOut), string(out))
	}
}

// FuzzWordsScan: every scan finds in a text what the scalar one does
// (raw or decoded), with the default rules' words; and the vector scan
// computes what its tables say.
func FuzzWordsScan(f *testing.F) {
	k := newRedactor(f, nil).set.words
	ss := scans(k)
	for _, s := range []string{"", "gh", "ghp_", `xghp_\u0041bc`, "a SeCrEt b", "AKIAQWERTYUIOPASDFGH",
		strings.Repeat("curl -u a:b ", 120), "\xff\xfeghp_\x80\x81", "xoxb-" + strings.Repeat("1", 70)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		requireSameMarks(t, k, ss, text)
		if k.vec != nil {
			requireScanAsTables(t, k.vec, text)
		}
	})
}
