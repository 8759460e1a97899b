package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzRedact: Redact never panics; a line without a finding comes back
// as itself, without an allocation unless a rule's expression had to run
// (a candidate the filter let through, then refused), and the full search
// past the first pass finds nothing in it either (the first pass never
// drops a line that holds a secret); a finding replaces only its own
// bytes, in line order; JSON stays JSON with the same keys.
func FuzzRedact(f *testing.F) {
	tps, fps := gitleaksExamples()
	for i, e := range append(tps[:60:60], fps[:20]...) {
		f.Add(shapes[i%len(shapes)].line(e.Sample))
	}
	for _, s := range []string{"", "{", `"`, `\`, `{"a":"\u`, `{"a":"\ud83d"}`, "{\"a\":\"\xff\"}", `[[[[[[[[]]]]]]]]`,
		`{"a":"{\"b\":\"{\\\"c\\\":\\\"` + ghp + `\\\"}\"}"}`, string(mustJSON(map[string]any{"k": pem})),
		`{"cmd":"curl -u a:Zr8xQ2vLm9Kp"}`, "s." + strings.Repeat("a", 30), "ey" + strings.Repeat("J", 40)} {
		f.Add([]byte(s))
	}
	r := newRedactor(f, nil)
	extracted := 0
	r.extracted = func() { extracted++ }
	f.Fuzz(func(t *testing.T, line []byte) {
		extracted = 0
		out, found := r.Redact("f.jsonl", line, nil)
		if len(found) == 0 {
			require.Equal(t, line, out)
			if len(line) > 0 {
				require.Same(t, &line[0], &out[0], "the line itself, not a copy")
			}
			if extracted == 0 && !raceEnabled {
				require.Zero(t, testing.AllocsPerRun(5, func() { r.Redact("f.jsonl", line, nil) }))
			}
			_, all := r.redact(line, nil)
			require.Empty(t, all, "the first pass dropped a line with a secret: %q", line)
			return
		}
		var rebuilt []byte
		prev := 0
		for _, fd := range found {
			require.LessOrEqual(t, prev, fd.Start)
			require.Less(t, fd.Start, fd.End)
			require.LessOrEqual(t, fd.End, len(line))
			rebuilt = append(rebuilt, line[prev:fd.Start]...)
			rebuilt = append(rebuilt, "<REDACTED-SECRET:"+fd.Rule+">"...)
			prev = fd.End
		}
		require.Equal(t, string(append(rebuilt, line[prev:]...)), string(out))
		if json.Valid(line) {
			require.True(t, json.Valid(out), "%s", out)
			assertSameShape(t, decodeJSON(t, line), decodeJSON(t, out))
		}
	})
}

// decodeJSON decodes a valid JSON text, its numbers kept as written (a
// number too large for a float64 is valid JSON).
func decodeJSON(t *testing.T, text []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}
