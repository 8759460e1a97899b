package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	ghp = "ghp_dzqb5jebzo6esrq1jbdgd75u8aegzsjdak3s"
	pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\nLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo\n-----END RSA PRIVATE KEY-----"
)

// redactOne redacts line and checks what every redaction must hold: the
// line itself when nothing is found, else valid JSON when line was, with
// only the findings' bytes changed.
func redactOne(t *testing.T, r *Redactor, line string) (string, []Finding) {
	t.Helper()
	out, found := r.Redact("/data/sessions/j/s.jsonl", []byte(line), make([]byte, 0, 64))
	if len(found) == 0 {
		require.Equal(t, line, string(out))
		return line, nil
	}
	if json.Valid([]byte(line)) {
		require.True(t, json.Valid(out), "%s", out)
	}
	rebuilt, prev := "", 0
	for _, f := range found {
		rebuilt += line[prev:f.Start]
		rest := string(out[len(rebuilt):])
		rebuilt += rest[:strings.IndexByte(rest, '>')+1]
		prev = f.End
	}
	require.Equal(t, rebuilt+line[prev:], string(out))
	return string(out), found
}

func TestSecretInsideEscapesIsCutAtItsOwnBytes(t *testing.T) {
	r := newRedactor(t, nil)
	line := `{"type":"tool_result","content":"run \"git push\"\n\tremote: https://x:` + ghp + `@github.com\u2028caf\u00e9 \ud83d\ude00 \u003cok\u003e"}`
	out, found := redactOne(t, r, line)
	require.Len(t, found, 1)
	assert.Equal(t, "github-pat", found[0].Rule)
	assert.Equal(t, ghp, line[found[0].Start:found[0].End])
	assert.Equal(t, strings.Replace(line, ghp, "<REDACTED-SECRET:github-pat>", 1), out)
}

func TestMultiLinePrivateKeyWithEscapedNewlines(t *testing.T) {
	r := newRedactor(t, nil)
	line := string(mustJSON(map[string]any{"tool": "read_file", "output": "# deploy key\n" + pem + "\n# end\n", "ok": true}))
	require.Contains(t, line, `\nMIIEow`, "the newlines are escapes in the raw line")
	out, found := redactOne(t, r, line)
	require.Len(t, found, 1)
	assert.Equal(t, "private-key", found[0].Rule)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, "# deploy key\n<REDACTED-SECRET:private-key>\n# end\n", v["output"])
	assert.Equal(t, true, v["ok"])
}

func TestJSONInsideJSONStrings(t *testing.T) {
	r := newRedactor(t, nil)
	inner := mustJSON(map[string]any{"stdout": "key:\n" + pem, "token": ghp})
	middle := mustJSON(map[string]any{"result": string(inner), "n": 1})
	line := string(mustJSON(map[string]any{"type": "user", "toolUseResult": string(middle)}))
	require.Contains(t, line, `\\\"token\\\"`, "two levels of escaping")
	out, found := redactOne(t, r, line)
	require.Len(t, found, 2)
	for _, s := range allStrings(t, []byte(out)) {
		assert.NotContains(t, s, "MIIEow")
		assert.NotContains(t, s, ghp)
	}
	// The inner documents are still JSON, with their keys.
	var l1, l2, l3 map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &l1))
	require.NoError(t, json.Unmarshal([]byte(l1["toolUseResult"].(string)), &l2))
	require.NoError(t, json.Unmarshal([]byte(l2["result"].(string)), &l3))
	assert.Equal(t, "<REDACTED-SECRET:github-pat>", l3["token"])
	assert.Equal(t, "key:\n<REDACTED-SECRET:private-key>", l3["stdout"])
}

func TestKeysAreNeverRewritten(t *testing.T) {
	r := newRedactor(t, nil)
	line := `{"` + ghp + `":1,"password":"` + ghp + `","api_key":{"secret_token":[]}}`
	out, found := redactOne(t, r, line)
	require.Len(t, found, 1, "the value only")
	assert.Equal(t, `{"`+ghp+`":1,"password":"<REDACTED-SECRET:github-pat>","api_key":{"secret_token":[]}}`, out)
}

func TestRuleAtTheEndOfAString(t *testing.T) {
	// curl-auth-user's expression ends at white space or the end of the
	// text: a closing quote does not do, so it also runs over each string.
	r := newRedactor(t, nil)
	line := string(mustJSON(map[string]any{"cmd": "curl -s https://api.example.com/v1 -u deploy:Zr8xQ2vLm9Kp"}))
	out, found := redactOne(t, r, line)
	require.Len(t, found, 1)
	assert.Equal(t, "curl-auth-user", found[0].Rule)
	assert.NotContains(t, out, "Zr8xQ2vLm9Kp")
}

func TestNotJSONIsRedactedAsText(t *testing.T) {
	r := newRedactor(t, nil)
	for _, line := range []string{
		`{"type":"tool_result","content":"export GITHUB_TOKEN=` + ghp + `\nexport AWS_ACCESS_KEY_ID=AKIALALEMEL33243OKIA`, // torn
		`2026-03-02T10:00:00Z plain log GITHUB_TOKEN=` + ghp + ` AKIALALEMEL33243OKIA`,
		`{"a":"` + ghp + `"} {"b":2}`, // two values: not one JSON document
	} {
		out, found := redactOne(t, r, line)
		assert.Len(t, found, 1+strings.Count(line, "AKIA"), "%s", line)
		assert.NotContains(t, out, ghp)
		assert.NotContains(t, out, "AKIALALEMEL33243OKIA")
	}
}

func TestInvalidUTF8IsKept(t *testing.T) {
	r := newRedactor(t, nil)
	line := "{\"output\":\"bad \xff\xfe bytes \xc3 token " + ghp + " \xe2\x82\"}"
	out, found := redactOne(t, r, line)
	require.Len(t, found, 1)
	assert.Equal(t, strings.Replace(line, ghp, "<REDACTED-SECRET:github-pat>", 1), out)

	clean := "{\"output\":\"bad \xff\xfe bytes\"}"
	out, found = redactOne(t, r, clean)
	assert.Empty(t, found)
	assert.Equal(t, clean, out)
}

func TestSlashEscapesAndOtherEncoders(t *testing.T) {
	r := newRedactor(t, nil)
	hook := `https:\/\/hooks.slack.com\/services\/T0ABCDEFG\/B0ABCDEFGHI\/abcdefghijklmnopqrstuvwx`
	line := `{"text":"posting to ` + hook + `"}`
	out, found := redactOne(t, r, line)
	require.Len(t, found, 1)
	assert.Equal(t, "slack-webhook-url", found[0].Rule)
	assert.Equal(t, `{"text":"posting to <REDACTED-SECRET:slack-webhook-url>"}`, out)
}

func TestJSONReader(t *testing.T) {
	var d jsonDoc
	for _, bad := range []string{``, ` `, `{`, `{"a"}`, `{"a":}`, `[1,]`, `{"a":1,}`, `"\x"`, `"\u12"`, `01`, `1.`, `-`, `tru`,
		`{"a":1}}`, `[1 2]`, `{"a" 1}`, `{1:2}`, `"abc`, `nul`} {
		assert.False(t, d.parse([]byte(bad)), "%q is not JSON", bad)
	}
	for _, good := range []string{`{}`, `[]`, ` {"a" : [1, -2.5e+3, true, false, null, "x\"y"]} `, `"\ud800"`, `0`, `{"":{}}`} {
		assert.True(t, d.parse([]byte(good)), "%q is JSON", good)
	}
	require.True(t, d.parse([]byte(`{"k\tey":"a\"b\\c\/d\u00e9\ud83d\ude00\n"}`)))
	assert.Equal(t, "{\"k\tey\":\"a\"b\\c/d\u00e9\U0001F600\n\"}", string(d.view))
	require.Len(t, d.strs, 2)
	assert.True(t, d.strs[0].key)
	s := &d.strs[1]
	// Offsets of the view inside the string map back to the escapes.
	raw := string(d.raw[s.raw:s.rawEnd])
	assert.Equal(t, `a\"b\\c\/d\u00e9\ud83d\ude00\n`, raw)
	for _, c := range []struct {
		v        int // offset in the decoded content
		down, up int // in the raw content
	}{{0, 0, 0}, {1, 1, 1}, {2, 3, 3}, {4, 6, 6}, {6, 9, 9}, {7, 10, 10}, {8, 10, 16}, {9, 16, 16}, {11, 16, 28}, {13, 28, 28}, {14, 30, 30}} {
		assert.Equal(t, c.down, d.rawPos(s, s.view+c.v, false)-s.raw, "down %d", c.v)
		assert.Equal(t, c.up, d.rawPos(s, s.view+c.v, true)-s.raw, "up %d", c.v)
	}
}

// An escape in the raw line stands for one byte of the view and shifts
// those after it: the first pass may not judge past it.
func TestEscapeWhereTheAnchorIsFollowed(t *testing.T) {
	p := t.TempDir() + "/r.toml"
	require.NoError(t, writeFile(p, `[[rules]]
id = "tab-token"
regex = '''tok_\s([A-Z]{4}[0-9]{4})'''
keywords = ["tok_"]
`))
	r := newRedactor(t, func(c *Config) { c.Rules = p })
	out, found := redactOne(t, r, `{"a":"tok_\tABCD1234","b":"tok_\nWXYZ9876 and tok_ QRST5555"}`)
	require.Len(t, found, 3)
	assert.Equal(t, `{"a":"tok_\t<REDACTED-SECRET:tab-token>","b":"tok_\n<REDACTED-SECRET:tab-token> and tok_ <REDACTED-SECRET:tab-token>"}`, out)
}

// TestSecretsEscapedTwice: a document written into a string, with text
// after it (a tool's output that prints a config file, then more), is
// not scanned as a document; its secrets are still found where a rule
// wants a quote after them, though the quote is escaped twice in the
// line.
func TestSecretsEscapedTwice(t *testing.T) {
	r := newRedactor(t, nil)
	doc, err := json.Marshal(map[string]any{"env": map[string]string{"SECRET": `$stripeToken .= "sk_test_syilh6yllsl4lg2hzw3cuksfe6m3p1"`}})
	require.NoError(t, err)
	line, err := json.Marshal(map[string]string{"output": string(doc) + "\nexit 0"})
	require.NoError(t, err)
	out, found := r.Redact("s.jsonl", line, nil)
	require.Len(t, found, 1, "%s", line)
	assert.Equal(t, "stripe-access-token", found[0].Rule)
	assert.NotContains(t, string(out), "sk_test_syilh6yllsl4lg2hzw3cuksfe6m3p1")
	var v map[string]string
	require.NoError(t, json.Unmarshal(out, &v))
	assert.True(t, strings.HasSuffix(v["output"], "\nexit 0"))
}
