package redact

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// This file measures and reshapes regexp/syntax trees for the analysis.

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) union(o *byteSet) {
	s[0], s[1], s[2], s[3] = s[0]|o[0], s[1]|o[1], s[2]|o[2], s[3]|o[3]
}

func addRange(s *byteSet, lo, hi int) {
	for b := lo; b <= hi && b < 256; b++ {
		s.add(byte(b))
	}
}

// flatten returns re as a sequence: concatenations and capture groups are
// opened, adjacent literals of the same case rule are joined.
func flatten(re *syntax.Regexp, out []*syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			out = flatten(sub, out)
		}
		return out
	case syntax.OpCapture:
		return flatten(re.Sub[0], out)
	case syntax.OpLiteral:
		if n := len(out); n > 0 && out[n-1].Op == syntax.OpLiteral &&
			out[n-1].Flags&syntax.FoldCase == re.Flags&syntax.FoldCase {
			joined := *out[n-1]
			joined.Rune = append(append([]rune(nil), out[n-1].Rune...), re.Rune...)
			out[n-1] = &joined
			return out
		}
	}
	return append(out, re)
}

// loosen returns seq with each class of one ASCII letter in both cases
// ([Aa]) made a literal matched without regard to case, and adjacent
// literals joined (without regard to case when one of them is). The
// result matches a superset of what seq matches: it serves to find
// anchors only.
func loosen(seq []*syntax.Regexp) []*syntax.Regexp {
	var out []*syntax.Regexp
	for _, e := range seq {
		if e.Op == syntax.OpCharClass && len(e.Rune) == 4 && e.Rune[0] == e.Rune[1] && e.Rune[2] == e.Rune[3] &&
			e.Rune[0] < utf8.RuneSelf && e.Rune[2] == e.Rune[0]+('a'-'A') && isUpper(byte(e.Rune[0])) {
			e = &syntax.Regexp{Op: syntax.OpLiteral, Flags: syntax.FoldCase, Rune: []rune{e.Rune[2]}}
		}
		if n := len(out); n > 0 && e.Op == syntax.OpLiteral && out[n-1].Op == syntax.OpLiteral {
			joined := *out[n-1]
			joined.Flags |= e.Flags & syntax.FoldCase
			joined.Rune = append(append([]rune(nil), out[n-1].Rune...), e.Rune...)
			out[n-1] = &joined
			continue
		}
		out = append(out, e)
	}
	return out
}

// runeLen returns the most bytes r takes, in any case when fold.
func runeLen(r rune, fold bool) int {
	n := utf8.RuneLen(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			n = max(n, utf8.RuneLen(f))
		}
	}
	return max(n, 1)
}

// profile returns the bytes at each of the first positions of the text
// that seq matches, as far as its elements are of fixed width and ASCII
// (up to max positions).
func profile(seq []*syntax.Regexp, max int) []byteSet {
	var out []byteSet
	for _, e := range seq {
		switch e.Op {
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
			continue
		case syntax.OpLiteral:
			for _, r := range e.Rune {
				if r >= utf8.RuneSelf || len(out) >= max {
					return out
				}
				var set byteSet
				addRune(&set, r, e.Flags&syntax.FoldCase != 0)
				out = append(out, set)
			}
			continue
		case syntax.OpCharClass:
			if set, ok := asciiClass(e); ok && len(out) < max {
				out = append(out, set)
				continue
			}
		case syntax.OpRepeat, syntax.OpPlus:
			min := e.Min
			if e.Op == syntax.OpPlus {
				min = 1
			}
			if e.Sub[0].Op == syntax.OpCharClass {
				if set, ok := asciiClass(e.Sub[0]); ok {
					for i := 0; i < min && len(out) < max; i++ {
						out = append(out, set)
					}
					if e.Op == syntax.OpRepeat && e.Max == e.Min {
						continue // fixed width: what follows is known too
					}
				}
			}
		case syntax.OpCapture:
			sub := profile(e.Sub[:1], max-len(out))
			out = append(out, sub...)
			if maxLen(e.Sub[0]) == minLen(e.Sub[0]) && len(sub) == minLen(e.Sub[0]) {
				continue
			}
		}
		return out
	}
	return out
}

// asciiClass returns the bytes of a class that holds ASCII characters
// only (a fold of k or s may add a non-ASCII one: those are left out, as
// the search for anchors does).
func asciiClass(e *syntax.Regexp) (set byteSet, ok bool) {
	for i := 0; i+1 < len(e.Rune); i += 2 {
		lo, hi := e.Rune[i], e.Rune[i+1]
		if lo >= utf8.RuneSelf {
			if lo == 0x17f || lo == 0x212a { // long s, Kelvin sign
				continue
			}
			return set, false
		}
		if hi >= utf8.RuneSelf {
			return set, false
		}
		addRange(&set, int(lo), int(hi))
	}
	return set, true
}

// firstOfSeq returns the bytes the text matching seq may start with; any
// is true when that text may be empty or start with any byte.
func firstOfSeq(seq []*syntax.Regexp) (set byteSet, any bool) {
	for _, e := range seq {
		switch e.Op {
		case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
			syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			continue // zero-width: look at what follows
		}
		if minLen(e) == 0 {
			return set, true
		}
		return first(e)
	}
	return set, true
}

// first returns the bytes a non-empty match of e may start with.
func first(e *syntax.Regexp) (set byteSet, any bool) {
	switch e.Op {
	case syntax.OpLiteral:
		addRune(&set, e.Rune[0], e.Flags&syntax.FoldCase != 0)
		return set, false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(e.Rune); i += 2 {
			lo, hi := e.Rune[i], e.Rune[i+1]
			if lo < utf8.RuneSelf {
				addRange(&set, int(lo), int(min(hi, utf8.RuneSelf-1)))
			}
			if hi >= utf8.RuneSelf {
				addRange(&set, 0x80, 0xff) // any UTF-8 lead byte, or an invalid byte read as U+FFFD
			}
		}
		return set, false
	case syntax.OpCapture, syntax.OpPlus, syntax.OpRepeat:
		return firstOfSeq(e.Sub[:1])
	case syntax.OpConcat:
		return firstOfSeq(e.Sub)
	case syntax.OpAlternate:
		for _, b := range e.Sub {
			s, any := firstOfSeq([]*syntax.Regexp{b})
			if any {
				return set, true
			}
			set.union(&s)
		}
		return set, false
	}
	return set, true
}

// addRune adds the first byte of r, and of its case variants when fold.
func addRune(set *byteSet, r rune, fold bool) {
	var buf [utf8.UTFMax]byte
	utf8.EncodeRune(buf[:], r)
	set.add(buf[0])
	if !fold {
		return
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		utf8.EncodeRune(buf[:], f)
		set.add(buf[0])
	}
}

// prefix returns a bounded expression that every match of seq starts
// with: seq itself when bounded, else its elements up to the first
// unbounded one, which is cut to its least repetition.
func prefix(seq []*syntax.Regexp) *syntax.Regexp {
	out := &syntax.Regexp{Op: syntax.OpConcat}
	for _, e := range seq {
		if maxLen(e) >= 0 {
			out.Sub = append(out.Sub, e)
			continue
		}
		switch e.Op {
		case syntax.OpRepeat:
			if e.Min > 0 && maxLen(e.Sub[0]) >= 0 {
				cut := *e
				cut.Max = e.Min
				out.Sub = append(out.Sub, &cut)
			}
		case syntax.OpPlus:
			if maxLen(e.Sub[0]) >= 0 {
				out.Sub = append(out.Sub, e.Sub[0])
			}
		}
		break
	}
	if len(out.Sub) == 0 {
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	return out
}

// minLen returns the fewest bytes a match of e holds.
func minLen(e *syntax.Regexp) int {
	switch e.Op {
	case syntax.OpLiteral:
		return len(e.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(e.Sub[0])
	case syntax.OpRepeat:
		return e.Min * minLen(e.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range e.Sub {
			n += minLen(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range e.Sub {
			if m := minLen(s); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0
}

// maxLen returns the most bytes a match of e holds, -1 when unbounded.
func maxLen(e *syntax.Regexp) int {
	switch e.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range e.Rune {
			n += runeLen(r, e.Flags&syntax.FoldCase != 0)
		}
		return n
	case syntax.OpCharClass:
		if len(e.Rune) == 0 {
			return 0
		}
		return runeLen(e.Rune[len(e.Rune)-1], false) // ranges are sorted; folds are already in the class
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture:
		return maxLen(e.Sub[0])
	case syntax.OpQuest:
		return maxLen(e.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		m := maxLen(e.Sub[0])
		if e.Max < 0 || m < 0 {
			return -1
		}
		return e.Max * m
	case syntax.OpConcat:
		n := 0
		for _, s := range e.Sub {
			m := maxLen(s)
			if m < 0 {
				return -1
			}
			n += m
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, s := range e.Sub {
			m := maxLen(s)
			if m < 0 {
				return -1
			}
			n = max(n, m)
		}
		return n
	}
	return 0
}
