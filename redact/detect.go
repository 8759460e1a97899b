package redact

import (
	"bytes"
	"math"
	"regexp"

	"github.com/zricethezav/gitleaks/v8/config"
)

// hit is a secret found in a text (a view), in the text's offsets.
type hit struct {
	start, end   int // the secret
	mstart, mend int // the whole match
	rule         *rule
	depth        int // nesting of the JSON document it was found in
	tag          string
}

// detect appends to s.hits the secrets text holds: each rule whose words
// text holds (and whose keyword, as in Gitleaks) runs, its anchor's
// occurrences through the filter first, then its regular expression
// around those that pass. Gitleaks' semantics are kept: the secret is the
// rule's secret group (or first non-empty group, or the match), entropy
// must exceed the rule's, and the global and rule allowlists apply
// (regexes against the secret, the match or the line, and stopwords).
//
// With ownOnly, only the rules that also run over each string alone do.
// It reports whether one of those ran.
func (r *Redactor) detect(s *scratch, text []byte, depth int, ownOnly bool) (own bool) {
	set := r.set
	seen := s.wordBits(len(set.words.list))
	run := s.ruleBits(len(set.rules))
	if !set.words.mark(text, seen, false) && len(set.always) == 0 {
		return false
	}
	if !set.fire(seen, run) {
		return false
	}
	for ri, ru := range set.rules {
		if run[ri>>6]&(1<<(ri&63)) == 0 || (ownOnly && !ru.plan.ownText) || !ru.ready(text) {
			continue
		}
		own = own || ru.plan.ownText
		var found []hit
		if ru.plan.anchors != nil {
			found = r.findAnchored(ru, text, depth)
		} else {
			found = r.find(ru, text, 0, len(text), -1, depth, nil)
		}
		if len(ru.requires) > 0 {
			found = r.withRequired(ru, found, text, depth)
		}
		s.hits = append(s.hits, found...)
	}
	return own
}

// maxReach is the window first tried for a match of unbounded length.
const maxReach = 4096

// findAnchored returns the secrets of ru in text, looking only around
// the occurrences of its anchor that pass its filter: without one, ru
// cannot match.
func (r *Redactor) findAnchored(ru *rule, text []byte, depth int) []hit {
	p := &ru.plan
	var out []hit
	// rest, when >= 0: text[rest:] was searched to its end for every
	// match, so an anchor whose matches start there has nothing more to
	// give. Without it, a rule of unbounded length would search to the
	// end of the text again from each of its anchors: quadratic in a
	// long line holding many (a script of a thousand curl commands).
	rest := -1
	for ai := range p.anchors {
		a := &p.anchors[ai]
		for from := 0; from < len(text); {
			at := indexAnchor(text[from:], a)
			if at < 0 {
				break
			}
			at += from
			from = at + 1
			// A match holding this anchor lies within back bytes before it
			// and reach bytes after; one context byte more on each side.
			// Without a bound, a window of maxReach bytes is tried first.
			lo, hi := max(0, at-p.back-1), len(text)
			if rest >= 0 && lo >= rest {
				continue
			}
			if !a.fits(text, at+len(a.lit), false) || inside(out, at) || !p.passes(text, at) {
				continue
			}
			if p.reach >= 0 {
				hi = min(hi, at+p.reach+1)
			} else {
				if hi > at+maxReach {
					n := len(out)
					out = r.find(ru, text, lo, at+maxReach, at, depth, out)
					if len(out) > n && out[len(out)-1].mend < at+maxReach-1 {
						continue // the match ends inside the window
					}
					out = out[:n]
				}
				// Every match to the end of the text, once: each holds an
				// anchor that passes the filter, so none is one this
				// anchor alone would not have found.
				out, rest = r.find(ru, text, lo, hi, -1, depth, out), lo
				continue
			}
			out = r.find(ru, text, lo, hi, at, depth, out)
		}
	}
	return out
}

// inside reports whether offset at lies in a match already found.
func inside(hits []hit, at int) bool {
	for _, h := range hits {
		if h.mstart <= at && at < h.mend {
			return true
		}
	}
	return false
}

// passes runs the filter for a match holding an anchor at offset at.
func (p *plan) passes(text []byte, at int) bool {
	back := p.before()
	if p.anchored() {
		for st := max(0, at-back); st <= at; st++ {
			end := min(len(text), st+p.span+1)
			if st == 0 {
				if p.first0.Match(text[:end]) {
					return true
				}
			} else if p.first.Match(text[st-1 : end]) {
				return true
			}
		}
		return false
	}
	return p.window.Match(text[max(0, at-back-1):min(len(text), at+p.span+1)])
}

// find appends to out the secrets of ru's matches in text[lo:hi] that
// survive entropy and the allowlists; with at >= 0, only those of the
// matches holding offset at.
func (r *Redactor) find(ru *rule, text []byte, lo, hi, at, depth int, out []hit) []hit {
	if r.extracted != nil {
		r.extracted()
	}
	for _, m := range ru.re.FindAllSubmatchIndex(text[lo:hi], -1) {
		for i := range m {
			if m[i] >= 0 {
				m[i] += lo
			}
		}
		if at >= 0 && (at < m[0] || at >= m[1]) {
			continue
		}
		st, end := secretBounds(ru, text, m)
		if st < 0 || st >= end {
			continue
		}
		secret := text[st:end]
		if ru.entropy != 0 && entropy(secret) <= ru.entropy {
			continue
		}
		if r.allowed(ru, text, secret, m) {
			continue
		}
		h := hit{start: st, end: end, mstart: m[0], mend: m[1], rule: ru, depth: depth}
		if r.key != nil {
			h.tag = r.tag(secret)
		}
		out = append(out, h)
	}
	return out
}

// secretBounds returns the secret of match m as Gitleaks picks it: the
// rule's secret group, or the first non-empty group, or the whole match
// less leading and trailing newlines.
func secretBounds(ru *rule, text []byte, m []int) (int, int) {
	if ru.group > 0 {
		if 2*ru.group+1 >= len(m) {
			return -1, -1
		}
		return m[2*ru.group], m[2*ru.group+1]
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	st, end := m[0], m[1]
	for st < end && text[st] == '\n' {
		st++
	}
	for end > st && text[end-1] == '\n' {
		end--
	}
	return st, end
}

// allowed reports whether the configured values or an allowlist let the
// secret be.
func (r *Redactor) allowed(ru *rule, text, secret []byte, m []int) bool {
	if _, ok := r.allowValues[string(secret)]; ok {
		return true
	}
	if len(r.set.global) == 0 && len(ru.allow) == 0 {
		return false
	}
	match := bytes.Trim(text[m[0]:m[1]], "\n")
	ls := bytes.LastIndexByte(text[:m[0]], '\n') + 1
	le := bytes.IndexByte(text[m[1]:], '\n')
	if le < 0 {
		le = len(text)
	} else {
		le += m[1]
	}
	line := text[ls:le]
	return allowedBy(r.set.global, secret, match, line) || allowedBy(ru.allow, secret, match, line)
}

// allowedBy applies Gitleaks allowlists to a finding. Conditions on
// commits and paths are about the files Gitleaks scans, not about a
// journal: an allowlist that needs one (condition AND) never applies, and
// they are ignored in one whose conditions are alternatives (OR).
func allowedBy(lists []*config.Allowlist, secret, match, line []byte) bool {
	for _, a := range lists {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = line
		}
		regex := anyMatch(a.Regexes, target)
		stop, _ := a.ContainsStopWord(string(secret))
		if a.MatchCondition == config.AllowlistMatchAnd {
			if len(a.Commits) > 0 || len(a.Paths) > 0 {
				continue
			}
			if (len(a.Regexes) == 0 || regex) && (len(a.StopWords) == 0 || stop) {
				return true
			}
			continue
		}
		if regex || stop {
			return true
		}
	}
	return false
}

// anyMatch reports whether one of res matches text. (Gitleaks joins an
// allowlist's regexes into one; apart, those anchored at the start fail
// at once instead of being tried at every offset.)
func anyMatch(res []*regexp.Regexp, text []byte) bool {
	for _, re := range res {
		if re.Match(text) {
			return true
		}
	}
	return false
}

// withRequired keeps the findings of a composite rule that have, for each
// required rule, a finding of it within the allowed lines and columns.
func (r *Redactor) withRequired(ru *rule, found []hit, text []byte, depth int) []hit {
	if len(found) == 0 {
		return nil
	}
	deps := make([][]hit, len(ru.requires))
	for i, q := range ru.requires {
		deps[i] = r.find(q.rule, text, 0, len(text), -1, depth, nil)
	}
	out := found[:0]
	for _, h := range found {
		ok := true
		for i, q := range ru.requires {
			ok = ok && nearAny(text, h, deps[i], q)
		}
		if ok {
			out = append(out, h)
		}
	}
	return out
}

// nearAny reports whether one of deps is within q's lines and columns of h.
func nearAny(text []byte, h hit, deps []hit, q requirement) bool {
	hl, hc := position(text, h.start)
	for _, d := range deps {
		dl, dc := position(text, d.start)
		if (q.lines < 0 || abs(hl-dl) <= q.lines) && (q.columns < 0 || abs(hc-dc) <= q.columns) {
			return true
		}
	}
	return false
}

// position returns the line and column of offset i of text.
func position(text []byte, i int) (line, col int) {
	line = bytes.Count(text[:i], []byte{'\n'})
	return line, i - (bytes.LastIndexByte(text[:i], '\n') + 1)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// entropy is Gitleaks' Shannon entropy: over the runes of s, divided by
// its length in bytes.
func entropy(s []byte) float64 {
	if len(s) == 0 {
		return 0
	}
	var ascii [128]int
	var other map[rune]int
	for _, c := range string(s) {
		if c < 128 {
			ascii[c]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[c]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	add := func(n int) {
		if n > 0 {
			f := float64(n) * inv
			e -= f * math.Log2(f)
		}
	}
	for _, n := range ascii {
		add(n)
	}
	for _, n := range other {
		add(n)
	}
	return e
}
