package integrity

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var capturePaths = MustPaths("type", "seq", "output.usage.input_tokens", "output.usage.model", "output", "ts")

const (
	cType = iota
	cSeq
	cInput
	cModel
	cOutput
	cTS
)

func TestCaptureNested(t *testing.T) {
	line := []byte(`{"type":"llm.response","seq":3,"output":{"messages":[{"usage":{"input_tokens":1}}],"usage":{"model":"gpt-\u0034","input_tokens":120}},"ts":"2026-02-03T12:00:02.100Z"}`)
	var c Capture
	require.Equal(t, "", c.Scan(line, capturePaths))
	s, ok := c.Str(cType)
	require.True(t, ok)
	assert.Equal(t, "llm.response", string(s))
	n, ok := c.Int(cSeq)
	assert.True(t, ok)
	assert.Equal(t, int64(3), n)
	n, ok = c.Int(cInput)
	assert.True(t, ok, "nested value reached; the one inside the array is not the path")
	assert.Equal(t, int64(120), n)
	s, ok = c.Str(cModel)
	assert.True(t, ok)
	assert.Equal(t, "gpt-4", string(s), "escapes decoded")
	assert.Equal(t, JSONObject, c.Get(cOutput).Kind, "a path's parent can be captured too")
	assert.True(t, strings.HasPrefix(string(c.Raw(cOutput)), `{"messages"`))
	ts, ok := c.Time(cTS)
	assert.True(t, ok)
	assert.Equal(t, 2026, ts.Year())
}

func TestCaptureAbsentWrongKindAndDuplicates(t *testing.T) {
	var c Capture
	require.Equal(t, "", c.Scan([]byte(`{"type":1,"output":[1],"seq":1.5,"t\u0079pe":"x"}`), capturePaths))
	_, ok := c.Str(cType)
	assert.False(t, ok, "a number is not a string")
	assert.Equal(t, uint8(2), c.Get(cType).Count, "an escaped key names the same path")
	assert.Equal(t, JSONArray, c.Get(cOutput).Kind, "a parent of the wrong kind is kept as it is")
	assert.False(t, c.Has(cInput))
	_, ok = c.Int(cSeq)
	assert.False(t, ok, "1.5 is not an integer")
	require.Equal(t, "", c.Scan([]byte(`{"seq":3e0}`), capturePaths))
	n, ok := c.Int(cSeq)
	assert.True(t, ok)
	assert.Equal(t, int64(3), n)
	assert.False(t, c.Has(cType), "values do not leak from the line before")
}

func TestCaptureCorrupt(t *testing.T) {
	cases := map[string]string{
		"":                      "blank line",
		"  \t":                  "blank line",
		"[1,2]":                 "not a JSON object",
		`"x"`:                   "not a JSON object",
		`{"a":1`:                "not JSON",
		`{"a":1,}`:              "not JSON",
		`{"output":{"usage":}}`: "not JSON",
		"{\"a\":\"\xff\"}":      "invalid UTF-8",
		`{"output":{"usage":{"input_tokens":01}}}`:                              "not JSON",
		strings.Repeat("[", 3) + strings.Repeat("]", 3):                         "not a JSON object",
		`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`: reasonTooDeep,
	}
	var c Capture
	for line, want := range cases {
		got := c.Scan([]byte(line), capturePaths)
		if len(line) > 40 {
			line = line[:40]
		}
		assert.Equal(t, want, got, "line %q", line)
	}
}

// TestCaptureAgreesWithMembers: on the JSON-level verdict, Capture and
// Members are one scanner.
func TestCaptureAgreesWithMembers(t *testing.T) {
	var r Members
	var c Capture
	keys := MustKeys(Key{Name: "type"}, Key{Name: "a"})
	for _, line := range []string{``, " \t", `{}`, `{"type":"X","timestamp":"t"}`, `[]`, `"x"`, `{"a":1}x`, `{"a":1`, "{\"a\":\"\x01\"}",
		"{\"a\":\"\xff\"}", `{"a":{"b":[1,{"c":null}]}}`, ` {"a" : 1 } `, `{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`} {
		if r.Start([]byte(line)) {
			var m Member
			for r.Next(&m, keys) {
			}
		}
		assert.Equal(t, c.Scan([]byte(line), capturePaths), r.Verdict(), "%.40q", line)
	}
}

func FuzzCapture(f *testing.F) {
	for _, s := range []string{`{"type":"a","output":{"usage":{"input_tokens":1,"model":"m"}}}`, `{"output":{"usage":{}}}`, `[]`, `{"a":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	var c Capture
	f.Fuzz(func(t *testing.T, line []byte) {
		reason := c.Scan(line, capturePaths)
		var m map[string]any
		// encoding/json replaces invalid UTF-8 where the scanner refuses it;
		// numbers are kept as written (one too large for a float64 is
		// valid JSON).
		d := json.NewDecoder(bytes.NewReader(line))
		d.UseNumber()
		isObject := utf8.Valid(line) && d.Decode(&m) == nil && m != nil && !d.More() && trailingSpace(line, d.InputOffset())
		if (reason == "") != isObject {
			t.Fatalf("Scan %q = %q, encoding/json object: %v", line, reason, isObject)
		}
		if reason != "" {
			return
		}
		if s, ok := c.Str(cType); ok {
			if want, _ := m["type"].(string); want != string(s) && countKey(line) == 1 {
				t.Fatalf("type %q, encoding/json %q", s, want)
			}
		}
	})
}

// countKey is a rough guard for the fuzz oracle: encoding/json keeps the
// last of repeated keys, Capture the first.
func countKey(line []byte) int {
	return strings.Count(string(line), `"type"`) + strings.Count(string(line), `\u`)
}

func BenchmarkCapture(b *testing.B) {
	line := []byte(`{"type":"llm.response","run_id":"8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a","ts":"2026-02-03T12:00:02.100Z","seq":1,"output":{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"exec_command","arguments":"{\"cmd\":\"ls\"}"}}]}],"usage":{"model":"gpt-4.1-mini","input_tokens":120,"output_tokens":15,"total_tokens":135},"stop_reason":"tool_use"}}`)
	var c Capture
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if c.Scan(line, capturePaths) != "" {
			b.Fatal("corrupt")
		}
		if _, ok := c.Int(cInput); !ok {
			b.Fatal("no tokens")
		}
	}
}

// trailingSpace tells whether line holds only JSON white space from off.
func trailingSpace(line []byte, off int64) bool {
	return len(bytes.Trim(line[off:], " \t\r\n")) == 0
}
