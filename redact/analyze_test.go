package redact

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAnalyze(t *testing.T) {
	for _, c := range []struct {
		expr    string
		lits    []string
		fold    bool
		back    int
		after   int  // positions known after the first anchor
		suffix  bool // the filter starts at the anchor
		ownText bool
	}{
		{`ghp_[0-9a-zA-Z]{36}`, []string{"ghp_"}, false, 0, 16, true, false},
		{`\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))(?:[\x60'"\s;]|\\[nr]|$)`, []string{"hvs.", "s."}, false, 0, 16, true, false},
		{`(?i)[\w.-]{0,50}?(?:heroku)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=)[\x60'"\s=]{0,5}([0-9a-z\-]{36})`, []string{"heroku"}, true, 150, 0, true, false},
		{`(?-i:ATLASSIAN|[Aa]tlassian)_key=([a-z0-9]{24})`, []string{"ATLASSIAN", "atlassian"}, true, 0, 16, true, false},
		{`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----`, []string{"-----begin"}, true, 0, 0, true, false},
		{`\bcurl\b.*-u ([^:]+:\S+)(?:\s|\z)`, []string{"curl"}, false, 0, 0, true, true},
	} {
		p := analyze(c.expr)
		require.NotNil(t, p.anchors, c.expr)
		var lits []string
		for _, a := range p.anchors {
			lits = append(lits, a.lit)
		}
		assert.Equal(t, c.lits, lits, c.expr)
		assert.Equal(t, c.fold, p.anchors[len(p.anchors)-1].fold, c.expr)
		assert.Equal(t, c.back, p.back, c.expr)
		assert.Len(t, p.anchors[0].after, c.after, c.expr)
		assert.Equal(t, c.suffix, p.suffix, c.expr)
		assert.Equal(t, c.ownText, p.ownText, c.expr)
	}
	// No literal bounded from the start: no anchor, the rule runs whole.
	assert.Nil(t, analyze(`\b\d{15,16}(\||%)[0-9a-z\-_]{27,40}`).anchors)
	assert.Nil(t, analyze(`[a-z]+secret`).anchors)
}

// For every match of every default rule in Gitleaks' examples, some
// occurrence of the rule's anchor lies at most back bytes after the match
// start, is followed by what the anchor says, and passes the filter: the
// necessary conditions the matcher relies on hold.
func TestAnchorsAreNecessary(t *testing.T) {
	tps, _ := gitleaksExamples()
	r := newRedactor(t, func(c *Config) { c.Generic = true })
	byID := map[string]*rule{}
	for _, ru := range r.set.rules {
		byID[ru.id] = ru
	}
	checked := 0
	for _, tp := range tps {
		ru := byID[tp.Rule]
		if ru == nil || ru.plan.anchors == nil {
			continue
		}
		text := []byte(tp.Sample)
		for _, m := range ru.re.FindAllIndex(text, -1) {
			checked++
			assert.True(t, anchoredIn(ru, text, m[0], m[1]), "%s: no anchor passes in %q", tp.Rule, text[m[0]:m[1]])
		}
		for _, set := range ru.plan.required {
			assert.True(t, holdsAny(text, set), "%s: a required literal is missing", tp.Rule)
		}
	}
	assert.Greater(t, checked, 500)
}

func anchoredIn(ru *rule, text []byte, start, end int) bool {
	p := &ru.plan
	for _, a := range p.anchors {
		for at := start; at <= start+p.back && at < end; at++ {
			lit := text[at:min(len(text), at+len(a.lit))]
			if a.fold {
				lit = bytes.ToLower(lit)
			}
			if string(lit) == a.lit && a.fits(text, at+len(a.lit), false) && p.passes(text, at) {
				return true
			}
		}
	}
	return false
}

func TestWordsScanner(t *testing.T) {
	w := newWords([]word{{lit: "ghp_", after: []byteSet{alnum()}}, {lit: "secret", fold: true}, {lit: "SK", after: []byteSet{alnum(), alnum()}}})
	for _, sc := range scans(w) {
		for _, c := range []struct {
			text string
			want bool
		}{
			{"", false}, {"g", false}, {"gh", false}, {"ghp_", false}, {"xghp_a", true}, {"GHP_a", false},
			{"a SeCrEt b", true}, {"secre", false}, {"SK", false}, {"SKa", false}, {"SKab", true}, {"skab", false},
			{`ghp_\u0041`, true}, {`ghp_\"`, false}, {`ghp_\x`, true}, // escapes are decoded; \x is none
		} {
			assert.Equal(t, c.want, sc.mark(w, []byte(c.text), make([]uint64, 1), true), "%s: %q", sc.name, c.text)
		}
		seen := make([]uint64, 1)
		assert.True(t, sc.mark(w, []byte("SKab SECRET"), seen, true), sc.name)
		assert.Equal(t, uint64(0b110), seen[0], sc.name)
	}

	assert.Equal(t, 3, indexFold([]byte("xx SeCrEt"), "secret"))
	assert.Equal(t, -1, indexFold([]byte("secre"), "secret"))
	assert.Equal(t, 0, indexFold([]byte("Secret"), "secret"))
}

func alnum() byteSet {
	var s byteSet
	addRange(&s, '0', '9')
	addRange(&s, 'A', 'Z')
	addRange(&s, 'a', 'z')
	return s
}

// TestUnboundedRuleSearchesALongLineOnce: a rule of unbounded length
// (curl-auth-user, connection-string-password) searched to the end of
// the line from each of its anchors made a long line holding many of
// them quadratic: a tool's output of a 64 KB script of curl commands
// took 30 s to redact, a line of Max_Line_Bytes minutes, holding up the
// flush. The end of the line is searched once per rule.
func TestUnboundedRuleSearchesALongLineOnce(t *testing.T) {
	r := newRedactor(t, nil)
	runs := 0
	r.extracted = func() { runs++ }
	for _, cmd := range []string{"curl -s https://example.com/api/v1/items | jq .\n", "psql postgres://localhost:5432/app -c 'select 1'\n"} {
		runs = 0
		line := mustJSON(map[string]any{"type": "TOOL_RESULT", "output": strings.Repeat(cmd, 300)})
		_, found := r.Redact("s.jsonl", line, nil)
		assert.Empty(t, found)
		assert.Less(t, runs, 20, "%q: the rules' expressions ran %d times over a line of 300 anchors", cmd, runs)
	}
	// What the search past the window finds is still found: a secret far
	// behind the first anchor, and one after many others.
	line := mustJSON(map[string]any{"type": "TOOL_RESULT", "output": "curl https://x" + strings.Repeat(" a", 3000) +
		"\n" + strings.Repeat("curl -s https://example.com/ | jq .\n", 200) + "curl -u deploy:Zr8xQ2vLm9Kp https://y\n"})
	out, found := r.Redact("s.jsonl", line, nil)
	require.NotEmpty(t, found)
	assert.NotContains(t, string(out), "Zr8xQ2vLm9Kp")
}

// TestWordsScannerFindsEveryWordAnywhere: the scanner, which looks at a
// position closer only when its pair and the byte after it allow, finds
// each word of the default rules (with the bytes that must follow it) at
// any offset of a text, at its start and at its end, whatever is around
// it, and reports exactly the words a search at every position finds;
// whichever the scan (see scans).
func TestWordsScannerFindsEveryWordAnywhere(t *testing.T) {
	k := newRedactor(t, nil).set.words
	ss := scans(k)
	rnd := rand.New(rand.NewPCG(1, 2))
	filler := []byte(`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "{}:,./\-_~`)
	for wi, w := range k.list {
		for trial := range 24 {
			word := []byte(w.lit)
			if w.fold && trial%2 == 1 {
				word = bytes.ToUpper(word)
			}
			for _, set := range w.after {
				word = append(word, set.bytes()[rnd.IntN(len(set.bytes()))])
			}
			text := make([]byte, trial%5+rnd.IntN(3)*(trial%3))
			for i := range text {
				text[i] = filler[rnd.IntN(len(filler))]
			}
			at := rnd.IntN(len(text) + 1)
			text = slices.Concat(text[:at], word, text[at:])
			seen := make([]uint64, (len(k.list)+63)/64)
			for _, raw := range []bool{true, false} {
				want := make([]bool, len(k.list))
				for wj := range k.list {
					want[wj] = wordAnywhere(&k.list[wj], text, raw)
				}
				for _, sc := range ss {
					clear(seen)
					sc.mark(k, text, seen, raw)
					require.NotZero(t, seen[wi>>6]&(1<<(wi&63)), "%s: %q not found in %q (raw %t)", sc.name, w.lit, text, raw)
					for wj := range k.list {
						require.Equal(t, want[wj], seen[wj>>6]&(1<<(wj&63)) != 0, "%s: %q in %q (raw %t)", sc.name, k.list[wj].lit, text, raw)
					}
				}
			}
		}
	}
}

// wordAnywhere is the search at every position of text.
func wordAnywhere(w *word, text []byte, raw bool) bool {
	for st := 0; st+len(w.lit) <= len(text); st++ {
		if w.at(text[st:st+len(w.lit)]) && fits(w.after, text, st+len(w.lit), raw) {
			return true
		}
	}
	return false
}

// bytes returns the members of s in order.
func (s *byteSet) bytes() []byte {
	var out []byte
	for c := range 256 {
		if s.has(byte(c)) {
			out = append(out, byte(c))
		}
	}
	return out
}
