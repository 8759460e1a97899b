package redact

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"sync"
)

const (
	// maxDepth bounds the nesting of JSON documents held in strings that
	// are scanned as documents: the line, and three levels in strings.
	maxDepth = 4
	// tagBytes is how much of the HMAC a replacement shows (16 hex digits).
	tagBytes = 8
	// keepScratch is the largest buffer kept for the next line.
	keepScratch = 1 << 20
)

// Finding is one replacement in a line.
type Finding struct {
	Rule       string // the Gitleaks rule id
	Start, End int    // the bytes of the line that were replaced
}

// Redactor replaces secrets in journal lines. It is safe for concurrent
// use; what it keeps per call is pooled scratch space of bounded size.
type Redactor struct {
	enabled     bool
	set         *ruleSet
	allowPaths  []string
	allowValues map[string]struct{}
	key         []byte // nil without Hash
	pool        sync.Pool
	// extracted, when set by a test, is called each time a rule's
	// expression runs to extract matches (which allocates).
	extracted func()
}

// New builds a Redactor from cfg, loading the rule file and, with Hash,
// the key (LoadOrCreateKey). The settings are checked even when redaction
// is off, so that a bad one shows at start.
func New(cfg Config) (*Redactor, error) {
	set, err := cfg.rules()
	if err != nil {
		return nil, err
	}
	r := &Redactor{enabled: cfg.Enabled, set: set, allowPaths: slices.Clone(cfg.AllowPaths),
		allowValues: map[string]struct{}{}}
	for _, v := range cfg.AllowValues {
		r.allowValues[v] = struct{}{}
	}
	if cfg.Hash {
		if r.key, err = LoadOrCreateKey(cfg.KeyFile); err != nil {
			return nil, err
		}
	}
	r.pool.New = func() any { return new(scratch) }
	return r, nil
}

// Rules returns the ids of the rules in force, sorted; none when
// redaction is off.
func (r *Redactor) Rules() []string {
	if !r.enabled {
		return nil
	}
	return r.set.ids()
}

// Redact replaces the secrets of line, a journal line of the file at
// path, each by <REDACTED-SECRET:rule-id> (<REDACTED-SECRET:rule-id:hmac>
// with Hash). When nothing is found, out is line itself, without a copy
// and without an allocation (unless a rule's expression had to run and
// then refused what it matched: low entropy, an allowlist). Otherwise out
// is the redacted line appended to dst[:0] (dst must not overlap line),
// and found lists the replacements in line order.
//
// A line that is JSON keeps its structure: only secrets inside string
// values are replaced, within their strings, and every other byte is
// kept. A line that is not JSON is redacted as text.
func (r *Redactor) Redact(path string, line, dst []byte) (out []byte, found []Finding) {
	if !r.enabled || !r.set.mayMatch(line) || r.pathAllowed(path) {
		return line, nil
	}
	return r.redact(line, dst)
}

// redact is Redact past the first pass.
func (r *Redactor) redact(line, dst []byte) (out []byte, found []Finding) {
	s := r.pool.Get().(*scratch)
	defer r.release(s)
	r.scan(s, line, 0, false)
	if len(s.spans) == 0 {
		return line, nil
	}
	spans := mergeSpans(s.spans)
	out = dst[:0]
	found = make([]Finding, 0, len(spans))
	prev := 0
	for _, sp := range spans {
		out = append(out, line[prev:sp.start]...)
		out = appendMarker(out, sp)
		found = append(found, Finding{Rule: sp.rule.id, Start: sp.start, End: sp.end})
		prev = sp.end
	}
	return append(out, line[prev:]...), found
}

func (r *Redactor) pathAllowed(path string) bool {
	for _, g := range r.allowPaths {
		if ok, _ := filepath.Match(g, path); ok {
			return true
		}
	}
	return false
}

// scan finds the secrets of raw, a document at the given depth, and
// appends them to s.spans in raw's offsets. Nested, raw is the content of
// a string, scanned only when it is a JSON object or array (it returns
// false otherwise).
func (r *Redactor) scan(s *scratch, raw []byte, depth int, nested bool) bool {
	d := s.doc(depth)
	isJSON := d.parse(raw)
	if nested && (!isJSON || !d.container()) {
		return false
	}
	text := raw
	if isJSON {
		text = d.view
	}
	text = d.flatten(text)
	mark := len(s.hits)
	own := r.detect(s, text, depth, false)
	if !isJSON {
		s.spans = append(s.spans, s.hits[mark:]...)
		s.hits = s.hits[:mark]
		return true
	}
	if depth+1 < maxDepth {
		for i := range d.strs {
			st := &d.strs[i]
			content := d.view[st.view:st.viewEnd]
			if st.key || !looksLikeDoc(content) {
				continue
			}
			from := len(s.spans)
			if !r.scan(s, content, depth+1, true) {
				continue
			}
			st.doc = true
			for k := from; k < len(s.spans); k++ {
				sp := &s.spans[k]
				sp.start, sp.end = d.rawPos(st, st.view+sp.start, false), d.rawPos(st, st.view+sp.end, true)
			}
		}
	}
	if own {
		r.detectInStrings(s, d, text, depth)
	}
	for _, h := range s.hits[mark:] {
		s.spans = clip(s.spans, d, h)
	}
	s.hits = s.hits[:mark]
	return true
}

// detectInStrings runs the rules that need it over the content of each
// string value alone (in text, the flattened view), adding their hits in
// the view's offsets.
func (r *Redactor) detectInStrings(s *scratch, d *jsonDoc, text []byte, depth int) {
	for i := range d.strs {
		st := &d.strs[i]
		if st.key || st.doc {
			continue
		}
		from := len(s.hits)
		r.detect(s, text[st.view:st.viewEnd], depth, true)
		for k := from; k < len(s.hits); k++ {
			s.hits[k].start += st.view
			s.hits[k].end += st.view
		}
	}
}

// clip appends to spans the parts of h (in d's view) that lie in string
// values, mapped to d's raw offsets. Keys are never rewritten; strings
// holding a document were scanned as such.
func clip(spans []hit, d *jsonDoc, h hit) []hit {
	lo, hi := 0, len(d.strs) // the first string ending after h.start
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d.strs[m].viewEnd <= h.start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo; i < len(d.strs) && d.strs[i].view < h.end; i++ {
		st := &d.strs[i]
		a, b := max(h.start, st.view), min(h.end, st.viewEnd)
		if st.key || st.doc || a >= b {
			continue
		}
		sp := h
		sp.start, sp.end = d.rawPos(st, a, false), d.rawPos(st, b, true)
		spans = append(spans, sp)
	}
	return spans
}

// looksLikeDoc reports whether s starts, after white space, like an
// object or an array.
func looksLikeDoc(s []byte) bool {
	i := skipSpace(s, 0)
	return i < len(s) && (s[i] == '{' || s[i] == '[')
}

// mergeSpans sorts spans and joins those that overlap; the joined span
// is named after the most specific finding: a rule that is not generic,
// then the one found deepest in nested JSON, then the longest.
func mergeSpans(spans []hit) []hit {
	slices.SortFunc(spans, func(a, b hit) int { return a.start - b.start })
	out := spans[:1]
	for _, sp := range spans[1:] {
		cur := &out[len(out)-1]
		if sp.start >= cur.end {
			out = append(out, sp)
			continue
		}
		if better(sp, *cur) {
			cur.rule, cur.depth, cur.tag = sp.rule, sp.depth, sp.tag
		}
		cur.end = max(cur.end, sp.end)
	}
	return out
}

func better(a, b hit) bool {
	if a.rule.generic != b.rule.generic {
		return !a.rule.generic
	}
	if a.depth != b.depth {
		return a.depth > b.depth
	}
	return a.end-a.start > b.end-b.start
}

func appendMarker(out []byte, sp hit) []byte {
	out = append(out, "<REDACTED-SECRET:"...)
	out = append(out, sp.rule.marker...)
	if sp.tag != "" {
		out = append(out, ':')
		out = append(out, sp.tag...)
	}
	return append(out, '>')
}

// tag returns the truncated HMAC-SHA256 of a secret, in hex.
func (r *Redactor) tag(secret []byte) string {
	m := hmac.New(sha256.New, r.key)
	m.Write(secret)
	var sum [sha256.Size]byte
	return hex.EncodeToString(m.Sum(sum[:0])[:tagBytes])
}

// scratch is the working space of one call.
type scratch struct {
	docs  []*jsonDoc // by depth
	hits  []hit      // found in views, a stack across depths
	spans []hit      // found, in the raw offsets of the document being scanned
	seen  []uint64   // words found
	run   []uint64   // rules to run
}

func (s *scratch) doc(depth int) *jsonDoc {
	for len(s.docs) <= depth {
		s.docs = append(s.docs, new(jsonDoc))
	}
	return s.docs[depth]
}

// wordBits returns a cleared bit set of n words.
func (s *scratch) wordBits(n int) []uint64 {
	s.seen = clearBits(s.seen, n)
	return s.seen
}

// ruleBits returns a cleared bit set of n rules.
func (s *scratch) ruleBits(n int) []uint64 {
	s.run = clearBits(s.run, n)
	return s.run
}

func clearBits(b []uint64, n int) []uint64 {
	w := (n + 63) / 64
	if cap(b) < w {
		return make([]uint64, w)
	}
	b = b[:w]
	clear(b)
	return b
}

// release returns s to the pool, dropping buffers grown past keepScratch.
func (r *Redactor) release(s *scratch) {
	for _, d := range s.docs {
		if cap(d.buf) > keepScratch {
			d.buf = nil
		}
		if cap(d.strs) > keepScratch/64 {
			d.strs = nil
		}
		if cap(d.stack) > keepScratch {
			d.stack = nil
		}
		if cap(d.flat) > keepScratch {
			d.flat = nil
		}
		d.raw, d.view = nil, nil
	}
	clear(s.hits[:cap(s.hits)])
	clear(s.spans[:cap(s.spans)])
	s.hits, s.spans = s.hits[:0], s.spans[:0]
	r.pool.Put(s)
}
