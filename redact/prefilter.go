package redact

import "bytes"

// This file decides, from a raw line, whether a rule could match in it:
// the first pass, which must stay cheap and allocation-free.

// fire sets in run the rules whose triggers are in seen and that always
// run, and reports whether there is one.
func (set *ruleSet) fire(seen, run []uint64) bool {
	any := false
	for wi, rules := range set.byWord {
		if seen[wi>>6]&(1<<(wi&63)) == 0 {
			continue
		}
		for _, ri := range rules {
			run[ri>>6] |= 1 << (ri & 63)
			any = true
		}
	}
	for _, ri := range set.always {
		run[ri>>6] |= 1 << (ri & 63)
		any = true
	}
	return any
}

// ready reports whether text holds what ru needs besides its triggers:
// one of its keywords when its triggers are its anchor's literals, and
// the literals every match also holds.
func (ru *rule) ready(text []byte) bool {
	if ru.byAnchor && len(ru.keywords) > 0 && !holdsKeyword(text, ru.keywords) {
		return false
	}
	for _, set := range ru.plan.required {
		if !holdsAny(text, set) {
			return false
		}
	}
	return true
}

// holdsKeyword reports whether text holds one of keywords.
func holdsKeyword(text []byte, keywords []string) bool {
	for _, k := range keywords {
		if indexFold(text, k) >= 0 {
			return true
		}
	}
	return false
}

// mayMatch reports whether a rule could match in line, looking at its raw
// bytes only: whether what a rule needs is there, or an escape that could
// hide it. It does not allocate (for rule sets of up to 1024 words and
// 1024 rules).
func (set *ruleSet) mayMatch(line []byte) bool {
	if len(set.always) > 0 {
		return true
	}
	var seenBuf, runBuf [16]uint64
	seen, run := bitsOf(seenBuf[:], len(set.words.list)), bitsOf(runBuf[:], len(set.rules))
	if !set.words.mark(line, seen, true) {
		return false
	}
	for i := len(set.list); i < len(set.words.list); i++ {
		if seen[i>>6]&(1<<(i&63)) != 0 {
			return true // an escape
		}
	}
	if !set.fire(seen, run) {
		return false
	}
	for ri, ru := range set.rules {
		if run[ri>>6]&(1<<(ri&63)) != 0 && ru.ready(line) && !ru.rejects(line) {
			return true
		}
	}
	return false
}

// rejects reports whether ru cannot match in line, judging from the raw
// bytes: every occurrence of its anchor fails the filter, read where the
// line holds no escape (so where the raw bytes are those of the view).
// An occurrence near an escape, a rule without an anchor and one that
// also runs over strings alone are not judged (false).
func (ru *rule) rejects(line []byte) bool {
	p := &ru.plan
	if p.anchors == nil || p.ownText {
		return false
	}
	back := p.before()
	for ai := range p.anchors {
		a := &p.anchors[ai]
		for from := 0; from < len(line); {
			at := indexAnchor(line[from:], a)
			if at < 0 {
				break
			}
			at += from
			from = at + 1
			if !a.fits(line, at+len(a.lit), true) {
				continue
			}
			if bytes.IndexByte(line[max(0, at-back-2):min(len(line), at+p.span+1)], '\\') >= 0 || p.passes(line, at) {
				return false
			}
		}
	}
	return true
}

// bitsOf returns a bit set of n bits in buf when it fits.
func bitsOf(buf []uint64, n int) []uint64 {
	if w := (n + 63) / 64; w <= len(buf) {
		return buf[:w]
	}
	return make([]uint64, (n+63)/64)
}

func indexAnchor(text []byte, a *anchor) int {
	if a.fold {
		return indexFold(text, a.lit)
	}
	return bytes.Index(text, a.bytes)
}

// holdsAny reports whether text holds one of the literals of set.
func holdsAny(text []byte, set []anchor) bool {
	for i := range set {
		if indexAnchor(text, &set[i]) >= 0 {
			return true
		}
	}
	return false
}
