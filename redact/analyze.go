package redact

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file derives, from a rule's regular expression alone, a cheap
// necessary condition for a match: an anchor (a literal every match holds
// a bounded number of bytes after its start, with the bytes that may follow
// it) and a filter (a bounded prefix of the expression). Where no occurrence
// of the anchor passes the filter, the rule cannot match and its regex is
// not run over the text.

// maxAnchoredBack is the largest anchor offset tried with one anchored
// filter run per possible start; beyond it the filter runs unanchored over
// a window around the anchor.
const maxAnchoredBack = 2

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

// anchor is a literal that every match holds.
type anchor struct {
	lit   string // lower case (ASCII) when fold
	bytes []byte // lit
	fold  bool   // matched without regard to ASCII case
	back  int    // the most bytes a match holds before lit
	// after are the bytes that may be at each position right after lit,
	// as far as the expression fixes them (elements of fixed width).
	after []byteSet
}

// maxAfter bounds the positions of anchor.after.
const maxAfter = 16

// fits reports whether the bytes of text from next on may follow the
// anchor.
func (a *anchor) fits(text []byte, next int) bool { return fits(a.after, text, next) }

// fits reports whether the bytes of text from next on may be those of
// after. A backslash, which in a raw JSON line may stand for another
// byte, fits anything.
func fits(after []byteSet, text []byte, next int) bool {
	for k := range after {
		if next+k >= len(text) {
			return false
		}
		if c := text[next+k]; c != '\\' && !after[k].has(c) {
			return false
		}
	}
	return true
}

// plan is what the analysis gives the matcher of one rule.
type plan struct {
	anchors []anchor // nil: the rule's regex runs over the whole text
	// required are more literals every match holds: one of each set.
	required [][]anchor
	// suffix: the filter starts where the anchor does; otherwise it
	// starts at most back bytes before.
	suffix bool
	first  *regexp.Regexp // the filter, anchored after one context rune
	first0 *regexp.Regexp // the filter, anchored at the start of the text
	window *regexp.Regexp // the filter, unanchored
	span   int            // the most bytes a filter match holds
	back   int            // the most bytes a match holds before an anchor
	reach  int            // the most bytes a match holds, -1: unbounded
	// ownText: the expression asserts the start or end of the text (or
	// line) where a JSON string's quote would not do, so it also runs over
	// each string's content alone.
	ownText bool
}

// anchored reports whether the filter runs anchored at each possible
// start of a match (few of them), rather than over a window.
func (p *plan) anchored() bool { return p.suffix || p.back <= maxAnchoredBack }

// before returns the most bytes the filter starts before an anchor.
func (p *plan) before() int {
	if p.suffix {
		return 0
	}
	return p.back
}

// maxRequired bounds the literal sets checked besides the anchor.
const maxRequired = 3

// analyze builds the plan of an expression. An expression without a
// bounded anchor gets a plan without anchors.
func analyze(expr string) plan {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return plan{ownText: true}
	}
	p := plan{ownText: needsOwnText(re, nil), reach: maxLen(re)}
	seq := loosen(flatten(re, nil))
	sets := candidates(seq, nil)
	best := bestSet(sets)
	if best < 0 {
		return p
	}
	anchors := sets[best].anchors
	for _, a := range anchors {
		p.back = max(p.back, a.back)
	}
	var filter *syntax.Regexp
	if sets[best].atStart {
		j := sets[best].index
		for j > 0 && maxLen(seq[j-1]) == 0 {
			j-- // zero-width assertions right before the anchor
		}
		filter, p.suffix = prefix(seq[j:]), true
	} else {
		filter = prefix(seq)
	}
	p.span = maxLen(filter)
	f := filter.String()
	var errs [2]error
	if p.anchored() {
		p.first, errs[0] = regexp.Compile(`\A(?s:.)(?:` + f + `)`)
		p.first0, errs[1] = regexp.Compile(`\A(?:` + f + `)`)
	} else {
		p.window, errs[0] = regexp.Compile(f)
	}
	for _, err := range errs {
		if err != nil {
			return plan{ownText: p.ownText}
		}
	}
	p.anchors = anchors
	p.required = required(sets, best)
	return p
}

// anchorSet is the anchors of one element of a sequence.
type anchorSet struct {
	anchors []anchor
	index   int  // the element's index in the sequence
	bounded bool // the bytes before the element are bounded
	atStart bool // every anchor starts where the element does
	minLit  int  // the shortest literal
}

// candidates returns the anchor sets of the elements of seq (which after
// follows).
func candidates(seq, after []*syntax.Regexp) []anchorSet {
	var out []anchorSet
	pre := 0 // -1: unbounded
	for i, e := range seq {
		rest := append(append([]*syntax.Regexp(nil), seq[i+1:]...), after...)
		if as := anchorsAt(e, rest, max(pre, 0)); as != nil {
			set := anchorSet{anchors: as, index: i, bounded: pre >= 0, atStart: true, minLit: len(as[0].lit)}
			for _, a := range as {
				set.atStart = set.atStart && a.back == max(pre, 0)
				set.minLit = min(set.minLit, len(a.lit))
			}
			out = append(out, set)
		}
		if m := maxLen(e); pre >= 0 && m >= 0 {
			pre += m
		} else {
			pre = -1
		}
	}
	return out
}

// bestSet returns the index of the best anchor set with bounded bytes
// before it: the one whose shortest literal is longest (up to four bytes,
// past which a literal is rare enough), then the one closest to the match
// start; -1 when there is none.
func bestSet(sets []anchorSet) int {
	best := -1
	for i, s := range sets {
		if !s.bounded {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		l, bl := min(s.minLit, 4), min(sets[best].minLit, 4)
		if l > bl || (l == bl && maxBack(s.anchors) < maxBack(sets[best].anchors)) {
			best = i
		}
	}
	return best
}

func maxBack(as []anchor) int {
	n := 0
	for _, a := range as {
		n = max(n, a.back)
	}
	return n
}

// required returns the longest literal sets other than the anchor's.
func required(sets []anchorSet, best int) [][]anchor {
	var rest []anchorSet
	for i, s := range sets {
		if i != best {
			rest = append(rest, s)
		}
	}
	slices.SortStableFunc(rest, func(a, b anchorSet) int { return b.minLit - a.minLit })
	var out [][]anchor
	for _, s := range rest[:min(len(rest), maxRequired)] {
		out = append(out, s.anchors)
	}
	return out
}

// needsOwnText reports whether re holds a text or line boundary that a
// quote would not stand for: one that is not an alternative to something
// that may start with '"' (as in (?:[\x60'"\s;]|$), which a string's
// closing quote satisfies in the view).
func needsOwnText(re, parent *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
		if parent == nil || parent.Op != syntax.OpAlternate {
			return true
		}
		for _, sib := range parent.Sub {
			if set, any := firstOfSeq([]*syntax.Regexp{sib}); sib != re && !any && set.has('"') {
				return false
			}
		}
		return true
	}
	for _, sub := range re.Sub {
		if needsOwnText(sub, re) {
			return true
		}
	}
	return false
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

// anchorsAt returns the anchors of element e, which pre bytes at most
// precede and rest follows: e itself when it is a literal, the anchors of
// every branch when it is an alternation.
func anchorsAt(e *syntax.Regexp, rest []*syntax.Regexp, pre int) []anchor {
	switch e.Op {
	case syntax.OpLiteral:
		if a, ok := literalAnchor(e, rest, pre); ok {
			return []anchor{a}
		}
	case syntax.OpAlternate:
		var out []anchor
		for _, b := range e.Sub {
			sets := candidates(loosen(flatten(b, nil)), rest)
			best := bestSet(sets)
			if best < 0 {
				return nil
			}
			for _, a := range sets[best].anchors {
				a.back += pre
				out = append(out, a)
			}
		}
		return out
	}
	return nil
}

// literalAnchor makes an anchor of literal e. The search for an anchor
// folds ASCII case only, so a literal is cut before its first non-ASCII
// rune when matched without regard to case. (Unicode also folds k with the
// Kelvin sign and s with the long s; those two are not looked for, as
// Gitleaks' keyword check does not find the long s either.)
func literalAnchor(e *syntax.Regexp, rest []*syntax.Regexp, pre int) (anchor, bool) {
	a := anchor{back: pre, fold: e.Flags&syntax.FoldCase != 0}
	runes := e.Rune
	if a.fold {
		for i, r := range runes {
			if r >= utf8.RuneSelf {
				runes, rest = runes[:i], nil // what follows is unknown
				break
			}
		}
	}
	a.lit = string(runes)
	if a.fold {
		a.lit = strings.ToLower(a.lit)
	}
	if len(a.lit) < 2 {
		return anchor{}, false
	}
	a.bytes = []byte(a.lit)
	a.after = profile(rest, maxAfter)
	return a, true
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
