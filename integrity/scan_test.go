package integrity

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scanned is what the scanner reported for one line.
type scanned struct {
	status  scanStatus
	object  bool
	members []scannedMember
}

// scannedMember is a member with its bytes.
type scannedMember struct {
	key    []byte
	keyEsc bool
	raw    []byte
	kind   valueKind
	esc    bool
	shaped bool
}

func (m scannedMember) str() []byte { return m.raw[1 : len(m.raw)-1] }

// scanLine runs the scanner over a whole line, collecting every top-level
// member of an object.
func scanLine(line []byte, limit int) scanned {
	return scanShaped(line, limit, ShapeNone)
}

// scanShaped is scanLine expecting every value to have the shape sh: its
// Keys names no key, and gives NoKey the shape.
func scanShaped(line []byte, limit int, sh Shape) scanned {
	var sc scanner
	var r scanned
	var k Keys
	k.shapes[NoKey] = sh
	if sc.start(line, limit) {
		r.object = true
		var m Member
		for sc.next(&m, &k) {
			r.members = append(r.members, scannedMember{m.Key(line), m.KeyEsc, m.Raw(line), m.Kind, m.Esc, m.Shaped})
		}
	}
	r.status = sc.status
	return r
}

func TestScanValidJSON(t *testing.T) {
	cases := []string{
		`{}`, ` { } `, `[]`, `[ ]`, `0`, `-0`, `-0.0`, `1e-7`, `1E+7`, `-1.5e10`, `123456789012345678901234567890`,
		`""`, `"a"`, `true`, `false`, `null`, "\t\r\n {\"a\" :\t1 }\r\n",
		`{"a":[1,{"b":[]},"c",true,false,null,-2.5E3]}`,
		`"\" \\ \/ \b \f \n \r \t \u0000 \uD83D\uDE00 \ud800 \uFFFF"`,
		`{"a":"é✓😀"}`, `[[[[[[]]]]]]`, `{"":""}`, `{"a":1,"a":2}`,
		`[1,[2,[3,{"x":{"y":[4]}}]],5]`,
	}
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			assert.Equal(t, scanOK, scanLine([]byte(c), maxDepth).status)
		})
	}
}

func TestScanInvalidJSON(t *testing.T) {
	cases := []string{
		``, ` `, `{`, `}`, `[`, `]`, `{]`, `[}`, `{"a":1]`, `[1}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{,}`, `[,]`, `[1,]`, `{"a":1,}`,
		`{a:1}`, `{'a':1}`, `{"a":1 "b":2}`, `[1 2]`, `01`, `-01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `1.e5`, `0x10`,
		`NaN`, `Infinity`, `-Infinity`, `nan`, `tru`, `True`, `nul`, `nulll`, `falsey`,
		`"abc`, `"a\"`, `"\x"`, `"\u12"`, `"\u12G4"`, `"\U0041"`, `"\'"`, "\"a\x01\"", "\"\t\"", "\"\n\"", "\"\x1f\"",
		`{"a":1}x`, `{"a":1}}`, `[]]`, `1 2`, `"a" "b"`, "\x00", "{\"a\":1}\x00", "\v{}", "\f{}", "{}\v",
		`{"a":[1,2}`, `{"a":{"b":1]}`, `[{"a":1]}`,
		"{\"a\x00\":1}", `{"a\q":1}`,
		// Invalid UTF-8 in strings, anywhere.
		"\"\xff\"", "{\"a\":\"\xc3\"}", "{\"\xc3\x28\":1}", "[\"\xed\xa0\x80\"]", "\"\xc0\x80\"", "\"\xf4\x90\x80\x80\"",
		"{\"a\":[{\"b\":\"\x80\"}]}",
	}
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			assert.Equal(t, scanSyntax, scanLine([]byte(c), maxDepth).status)
		})
	}
}

func TestScanDepth(t *testing.T) {
	nest := func(n int, inner string) string {
		return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
	}
	cases := []struct {
		name string
		line string
		want scanStatus
	}{
		{"maxDepth empty arrays", nest(maxDepth, ""), scanOK},
		{"1000 deep, valid JSON", `{"a":` + nest(1000, "1") + `}`, scanOK},
		{"scalar one past the limit", nest(maxDepth, "1"), scanTooDeep},
		{"one array too many", nest(maxDepth+1, ""), scanTooDeep},
		{"object member at the limit", `{"a":` + nest(maxDepth-2, "1") + `}`, scanOK},
		{"object member past the limit", `{"a":` + nest(maxDepth-1, "1") + `}`, scanTooDeep},
		{"deep objects", strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1), scanTooDeep},
		{"twice the limit", nest(2*maxDepth, ""), scanTooDeep},
		{"syntax error after depth", nest(maxDepth+100, "") + "x", scanSyntax},
		{"syntax error deep inside", nest(maxDepth+100, "}"), scanSyntax},
		{"mismatched past 1024", strings.Repeat("[", 1100) + "}" + strings.Repeat("]", 1099), scanSyntax},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, scanLine([]byte(tc.line), maxDepth).status)
		})
	}
}

func TestScanMembers(t *testing.T) {
	line := []byte(` {"type" : "x", "n":-1.5e3,"t":true,"f":false,"z":null,` +
		`"o":{"a":[1,"}"]},"a":[],"e\u0078":"a\"b","s":"",  "type":1 } `)
	r := scanLine(line, maxDepth)
	require.Equal(t, scanOK, r.status)
	require.True(t, r.object)
	want := []struct {
		key    string
		keyEsc bool
		raw    string
		kind   valueKind
		esc    bool
	}{
		{"type", false, `"x"`, kindString, false},
		{"n", false, `-1.5e3`, kindNumber, false},
		{"t", false, `true`, kindTrue, false},
		{"f", false, `false`, kindFalse, false},
		{"z", false, `null`, kindNull, false},
		{"o", false, `{"a":[1,"}"]}`, kindObject, false},
		{"a", false, `[]`, kindArray, false},
		{`e\u0078`, true, `"a\"b"`, kindString, true},
		{"s", false, `""`, kindString, false},
		{"type", false, `1`, kindNumber, false},
	}
	require.Len(t, r.members, len(want))
	for i, w := range want {
		m := r.members[i]
		assert.Equal(t, w.key, string(m.key), "member %d", i)
		assert.Equal(t, w.keyEsc, m.keyEsc, "member %d", i)
		assert.Equal(t, w.raw, string(m.raw), "member %d", i)
		assert.Equal(t, w.kind, m.kind, "member %d", i)
		assert.Equal(t, w.esc, m.esc, "member %d", i)
	}
	assert.Equal(t, "a\\\"b", string(r.members[7].str()))
}

func TestScanShaped(t *testing.T) {
	line := []byte(`{"a":"` + jobID + `","b":"` + hash64 + `","c":"` + jobID[1:] + `","d":"` + strings.ToUpper(hash64) + `","e":1}`)
	uuids := scanShaped(line, maxDepth, ShapeUUID)
	hexes := scanShaped(line, maxDepth, ShapeHex64)
	plain := scanLine(line, maxDepth)
	for _, r := range []scanned{uuids, hexes, plain} {
		require.Equal(t, scanOK, r.status)
		require.Len(t, r.members, 5)
		for i, m := range r.members {
			assert.Equal(t, plain.members[i].raw, m.raw)
			assert.Equal(t, plain.members[i].kind, m.kind)
		}
	}
	assert.Equal(t, []bool{true, false, false, false, false}, shapedFlags(uuids))
	assert.Equal(t, []bool{false, true, false, false, false}, shapedFlags(hexes))
	assert.Equal(t, []bool{false, false, false, false, false}, shapedFlags(plain))
}

func shapedFlags(r scanned) []bool {
	var f []bool
	for _, m := range r.members {
		f = append(f, m.shaped)
	}
	return f
}

func TestScanNonObjects(t *testing.T) {
	for _, c := range []string{`[1]`, `"x"`, `1`, `null`, `true`} {
		r := scanLine([]byte(c), maxDepth)
		assert.Equal(t, scanOK, r.status, c)
		assert.False(t, r.object, c)
	}
	r := scanLine([]byte(`{"a":1`), maxDepth)
	assert.Equal(t, scanSyntax, r.status, "members before the error are reported, the status tells")
	assert.Len(t, r.members, 1)
}

func TestUnescape(t *testing.T) {
	cases := []struct {
		name, in, want string
		chars          int
	}{
		{"plain", `abc`, "abc", 3},
		{"simple escapes", `\"\\\/\b\f\n\r\t`, "\"\\/\b\f\n\r\t", 8},
		{"bmp", `\u00e9\u2713`, "é✓", 2},
		{"nul", `a\u0000b`, "a\x00b", 3},
		{"surrogate pair", `\uD83D\uDE00`, "😀", 1},
		{"lone high surrogate stays as text", `\ud800x`, `\ud800x`, 7},
		{"lone low surrogate stays as text", `\uDC00`, `\uDC00`, 6},
		{"surrogate then other escape is one U+FFFD", `\ud800\u0041z`, "\uFFFDz", 2},
		{"two high surrogates", `\ud800\ud800`, "\uFFFD", 1},
		{"escaped backslash then u", `\\u0041`, `\u0041`, 6},
		{"raw multibyte and escapes", `é\n😀`, "é\n😀", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(Unescape(nil, []byte(tc.in))))
			assert.Equal(t, tc.chars, escapedChars([]byte(tc.in)))
		})
	}
}

func TestLonger(t *testing.T) {
	cases := []struct {
		name string
		s    string
		esc  bool
		want bool
	}{
		{"1024 ascii", strings.Repeat("x", 1024), false, false},
		{"1025 ascii", strings.Repeat("x", 1025), false, true},
		{"1024 multibyte", strings.Repeat("é", 1024), false, false},
		{"1025 multibyte", strings.Repeat("é", 1025), false, true},
		{"1024 escapes", strings.Repeat(`\u00e9`, 1024), true, false},
		{"1025 escapes", strings.Repeat(`\u00e9`, 1025), true, true},
		{"1024 pairs", strings.Repeat(`\uD83D\uDE00`, 1024), true, false},
		{"1025 pairs", strings.Repeat(`\uD83D\uDE00`, 1025), true, true},
		{"1020 newlines and 4 x", strings.Repeat(`\n`, 1020) + "xxxx", true, false},
		{"1021 newlines and 4 x", strings.Repeat(`\n`, 1021) + "xxxx", true, true},
		{"lone surrogates count as their text", strings.Repeat("x", 1018) + `\ud800`, true, false},
		{"lone surrogates count as their text, over", strings.Repeat("x", 1019) + `\ud800`, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Longer([]byte(tc.s), tc.esc, 1024))
		})
	}
}

func TestInteger(t *testing.T) {
	cases := []struct {
		raw  string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"7", 7, true}, {"-7", -7, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"99999999999999999999999", 0, false},
		{"3.0", 3, true}, {"3e0", 3, true}, {"3E2", 300, true}, {"-3.00e1", -30, true}, {"1e18", 1000000000000000000, true},
		{"0.5", 0, false}, {"1e-7", 0, false}, {"1e19", 0, false}, {"9.2e18", 9199999999999998976, true},
		{"9.21e18", 0, false}, {"1e400", 0, false}, {"1e-400", 0, true},
		// fastjson's arithmetic, kept: 0.07 * 100 is not exactly 7 in float64.
		{"0.07e2", 0, false}, {"0.0003e4", 0, false}, {"1.1e1", 11, true},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			n, ok := integer([]byte(tc.raw))
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, n)
		})
	}
}
