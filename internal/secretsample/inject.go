package secretsample

import (
	"bytes"
	"encoding/json"
)

// Inject returns line with text put at the start of its longest string
// value of free text (one holding a space: in a journal line, the prompt,
// the tool input or output, where a secret an agent saw ends up; not an
// id or a hash), JSON-escaped as a runtime's encoder writes it; ok is
// false when line has no such value. Everything else is kept byte for
// byte, so the line stays the same JSON with a longer string.
func Inject(line []byte, text string) (out []byte, ok bool) {
	at := longestValue(line)
	if at < 0 {
		return line, false
	}
	esc, err := json.Marshal(text)
	if err != nil {
		return line, false
	}
	esc = esc[1 : len(esc)-1] // the string's content, without its quotes
	out = make([]byte, 0, len(line)+len(esc))
	out = append(append(append(out, line[:at]...), esc...), line[at:]...)
	return out, true
}

// longestValue returns where the content of line's longest string value
// holding a space (not an object key) starts, or -1.
func longestValue(line []byte) int {
	best, bestLen := -1, -1
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		start := i + 1
		j := start
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			return best // not JSON past here
		}
		k := j + 1
		for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
			k++
		}
		if (k >= len(line) || line[k] != ':') && j-start > bestLen && bytes.IndexByte(line[start:j], ' ') >= 0 {
			best, bestLen = start, j-start
		}
		i = j
	}
	return best
}
