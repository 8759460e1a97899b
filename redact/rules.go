package redact

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
)

// rule is one Gitleaks rule, ready to run over a text.
type rule struct {
	id      string
	marker  string // id as written in a replacement
	generic bool
	re      *regexp.Regexp
	group   int // SecretGroup
	entropy float64
	allow   []*config.Allowlist
	plan    plan
	// requires are the rules that must match near a match of this one
	// (a Gitleaks composite rule).
	requires []requirement
	// keywords are the rule's Gitleaks keywords (lower case), one of which
	// a text must hold for the rule to run, as in Gitleaks; none: no
	// condition.
	keywords []string
	// byAnchor: the words the scanner looks for on the rule's behalf (its
	// triggers) are its anchor's literals, not its keywords, which are
	// then looked up once a trigger is found.
	byAnchor bool
}

type requirement struct {
	rule           *rule
	lines, columns int // the most lines and columns apart; -1: any
}

// ruleSet is the rules in force with what finds them.
type ruleSet struct {
	rules  []*rule // enabled, sorted by id
	global []*config.Allowlist
	list   []word    // the rules' triggers (see rule.byAnchor)
	byWord [][]int32 // word → indexes in rules
	always []int32   // rules run on every text: no anchor, no keyword
	// escapes are pseudo-words (\" \\ \/ \u \n …) looked for in a raw
	// line when a word holds a character JSON encoders escape; the
	// scanner's words are list then escapes.
	escapes []word
	words   *words
}

// compileRules builds the rules in force: every rule of gc that has a
// regular expression and no path condition, less the generic ones unless
// generic, less those allowed, less those only reported as part of a
// composite rule.
func compileRules(gc config.Config, generic bool, allowed func(id string) bool) (*ruleSet, error) {
	ids := make([]string, 0, len(gc.Rules))
	for id := range gc.Rules {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	all := map[string]*rule{}
	for _, id := range ids {
		if gr := gc.Rules[id]; gr.Regex != nil && gr.Path == nil {
			all[id] = newRule(gr)
		}
	}
	set := &ruleSet{global: gc.Allowlists}
	index := map[string]int{}
	add := func(w word, ri int32) {
		key := fmt.Sprintf("%q %v %v", w.lit, w.fold, w.after)
		wi, ok := index[key]
		if !ok {
			wi = len(set.list)
			index[key] = wi
			set.list = append(set.list, w)
			set.byWord = append(set.byWord, nil)
		}
		if !slices.Contains(set.byWord[wi], ri) {
			set.byWord[wi] = append(set.byWord[wi], ri)
		}
	}
	for _, id := range ids {
		r, gr := all[id], gc.Rules[id]
		if r == nil || gr.SkipReport || (r.generic && !generic) || allowed(id) || !resolve(r, gr, all) {
			continue
		}
		ri := int32(len(set.rules))
		set.rules = append(set.rules, r)
		ws := r.chooseTriggers(gr)
		if ws == nil {
			set.always = append(set.always, ri)
			continue
		}
		for _, w := range ws {
			add(w, ri)
		}
		if len(set.list) > 1<<16-1 {
			return nil, &ConfigError{Field: "Rules", Reason: fmt.Sprintf("more than %d keywords and anchors", 1<<16-1)}
		}
	}
	set.escapes = escapeWords(set.literals())
	set.words = newWords(slices.Concat(set.list, set.escapes))
	return set, nil
}

func newRule(gr config.Rule) *rule {
	return &rule{
		id:      gr.RuleID,
		marker:  markerID(gr.RuleID),
		generic: strings.Contains(strings.ToLower(gr.RuleID), "generic"),
		re:      gr.Regex,
		group:   gr.SecretGroup,
		entropy: gr.Entropy,
		allow:   gr.Allowlists,
		plan:    analyze(gr.Regex.String()),
	}
}

// resolve links the rules r requires; false when one of them is not a
// content rule (it can never match, so neither can r).
func resolve(r *rule, gr config.Rule, all map[string]*rule) bool {
	r.requires = r.requires[:0]
	for _, q := range gr.RequiredRules {
		dep := all[q.RuleID]
		if dep == nil {
			return false
		}
		req := requirement{rule: dep, lines: -1, columns: -1}
		if q.WithinLines != nil {
			req.lines = *q.WithinLines
		}
		if q.WithinColumns != nil {
			req.columns = *q.WithinColumns
		}
		r.requires = append(r.requires, req)
	}
	return true
}

// chooseTriggers sets r's keywords and returns the words to look for on
// its behalf: its Gitleaks keywords or the literals of its anchor (with
// the bytes that may follow them), whichever are less likely in text.
// nil: r runs on every text (no anchor, and no keyword or one shorter
// than two bytes, which the scanner does not look for).
func (r *rule) chooseTriggers(gr config.Rule) []word {
	var keywords, anchors []word
	for _, k := range gr.Keywords {
		k = strings.ToLower(k)
		if len(k) < 2 {
			keywords = nil
			break
		}
		if !slices.Contains(r.keywords, k) {
			r.keywords = append(r.keywords, k)
			keywords = append(keywords, word{lit: k, fold: true})
		}
	}
	if keywords == nil {
		r.keywords = nil
	}
	for _, a := range r.plan.anchors {
		anchors = append(anchors, word{lit: a.lit, fold: a.fold, after: a.after})
	}
	if anchors != nil && (keywords == nil || weakest(anchors) >= weakest(keywords)) {
		r.byAnchor = true
		return anchors
	}
	return keywords
}

// weakest returns the strength of the weakest of ws: its length, plus
// half the positions after it that are known, plus one when it is
// matched with its case and holds an upper case letter.
func weakest(ws []word) int {
	n := -1
	for _, w := range ws {
		s := len(w.lit) + len(w.after)/2
		if !w.fold && strings.ContainsFunc(w.lit, func(r rune) bool { return 'A' <= r && r <= 'Z' }) {
			s++
		}
		if n < 0 || s < n {
			n = s
		}
	}
	return n
}

// escapeWords returns the escapes that could hide a keyword's character
// in a raw JSON line: a line holding one goes to the decoding path.
// Standard encoders escape only quotes, backslashes, control characters,
// and some of <, >, &, /, U+2028, U+2029 and non-ASCII characters.
func escapeWords(list []string) []word {
	var out []word
	add := func(e string) {
		if !slices.ContainsFunc(out, func(w word) bool { return w.lit == e }) {
			out = append(out, word{lit: e})
		}
	}
	for _, w := range list {
		for _, c := range []byte(w) {
			switch {
			case c == '"':
				add(`\"`)
			case c == '\\':
				add(`\\`)
			case c == '/':
				add(`\/`)
			case c < 0x20:
				add(`\u`)
				add(`\n`)
				add(`\r`)
				add(`\t`)
				add(`\b`)
				add(`\f`)
			case c == '<' || c == '>' || c == '&' || c == '\'' || c >= 0x80:
				add(`\u`)
			}
		}
	}
	return out
}

// literals returns every literal looked for in a raw line: the rules'
// keywords, anchors and required literals.
func (s *ruleSet) literals() []string {
	var out []string
	for _, r := range s.rules {
		out = append(out, r.keywords...)
		for _, a := range r.plan.anchors {
			out = append(out, a.lit)
		}
		for _, set := range r.plan.required {
			for _, a := range set {
				out = append(out, a.lit)
			}
		}
	}
	return out
}

// markerID returns id with every byte outside [A-Za-z0-9._-] replaced by
// '_', so that a replacement never needs escaping in a JSON string, at any
// depth.
func markerID(id string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, id)
}

// ids returns the ids of the rules in force.
func (s *ruleSet) ids() []string {
	out := make([]string, len(s.rules))
	for i, r := range s.rules {
		out[i] = r.id
	}
	return out
}
