package redact

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// This file derives, from a rule's regular expression alone, cheap
// necessary conditions for a match: an anchor (a literal every match
// holds a bounded number of bytes after its start, with the bytes the
// expression fixes right after it), more literals every match holds, and
// a filter (a bounded part of the expression, from the anchor or from the
// match start). Where no occurrence of the anchor passes the filter, the
// rule cannot match and its expression is not run over the text.

// maxAnchoredBack is the largest anchor offset tried with one anchored
// filter run per possible start; beyond it the filter runs unanchored over
// a window around the anchor.
const maxAnchoredBack = 2

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
// anchor; raw: text is a raw line, where a backslash may start a JSON
// escape.
func (a *anchor) fits(text []byte, next int, raw bool) bool { return fits(a.after, text, next, raw) }

// fits reports whether the bytes of text from next on may be those of
// after. In a raw line they may be so as they are, or, where they hold
// escapes, once decoded.
func fits(after []byteSet, text []byte, next int, raw bool) bool {
	k := 0
	for ; k < len(after) && next+k < len(text) && after[k].has(text[next+k]); k++ {
	}
	if k == len(after) {
		return true
	}
	return raw && bytes.IndexByte(text[next:min(len(text), next+len(after))], '\\') >= 0 && fitsDecoded(after, text, next)
}

// fitsDecoded is fits over text with its JSON escapes decoded; a
// backslash that starts no valid escape fits anything from there on.
func fitsDecoded(after []byteSet, text []byte, i int) bool {
	var buf [utf8.UTFMax]byte
	for k := 0; k < len(after); {
		if i >= len(text) {
			return false
		}
		c := text[i]
		if c != '\\' {
			if !after[k].has(c) {
				return false
			}
			i, k = i+1, k+1
			continue
		}
		if i+1 >= len(text) {
			return true
		}
		var dec []byte
		var w int
		switch e := text[i+1]; e {
		case '"', '\\', '/':
			buf[0], dec, w = e, buf[:1], 2
		case 'b', 'f', 'n', 'r', 't':
			buf[0], dec, w = controlEscape(e), buf[:1], 2
		case 'u':
			r, n := unicodeEscape(text[i:])
			if n == 0 {
				return true
			}
			dec, w = buf[:utf8.EncodeRune(buf[:], r)], n
		default:
			return true
		}
		for _, d := range dec {
			if k < len(after) && !after[k].has(d) {
				return false
			}
			k++
		}
		i += w
	}
	return true
}

// controlEscape returns the control character of the escape \e.
func controlEscape(e byte) byte {
	switch e {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	}
	return '\t'
}

// plan is what the analysis gives the matcher of one rule.
type plan struct {
	anchors []anchor // nil: the rule's regex runs over the whole text
	// required are more literals every match holds: one of each set.
	required [][]anchor
	// suffix: the filter starts where the anchor does; otherwise it
	// starts at most back bytes before.
	suffix bool
	first  *lazyRegexp // the filter, anchored after one context rune
	first0 *lazyRegexp // the filter, anchored at the start of the text
	window *lazyRegexp // the filter, unanchored
	span   int         // the most bytes a filter match holds
	back   int         // the most bytes a match holds before an anchor
	reach  int         // the most bytes a match holds, -1: unbounded
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
		p.first, errs[0] = newLazyRegexp(`\A(?s:.)(?:` + f + `)`)
		p.first0, errs[1] = newLazyRegexp(`\A(?:` + f + `)`)
	} else {
		p.window, errs[0] = newLazyRegexp(f)
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

// lazyRegexp is a filter compiled on its first use: most rules' filters
// never run on a node's journals, and compiled they hold megabytes.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// newLazyRegexp checks that expr compiles (the compiled form is let go).
func newLazyRegexp(expr string) (*lazyRegexp, error) {
	if _, err := regexp.Compile(expr); err != nil {
		return nil, err
	}
	return &lazyRegexp{expr: expr}, nil
}

// Match is regexp.Match, compiling the expression the first time.
func (l *lazyRegexp) Match(b []byte) bool {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) }) // checked by newLazyRegexp
	return l.re.Match(b)
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
