package sample

import (
	"bytes"
	"encoding/json"
)

// TornLine is an interleaved write, as two writers appending at once
// leave it: a prefix of first (at least 10 bytes, at most longest, never
// its last two), then all of second. The prefix opens an object it never
// closes, so the line is never JSON; should it be, the prefix is cut to
// `{"` so that it is not.
func TornLine(x *Rand, first, second []byte, longest int) []byte {
	cut := x.Between(10, min(longest, len(first)-2))
	line := append(append([]byte(nil), first[:cut]...), second...)
	if json.Valid(bytes.TrimSuffix(line, []byte{'\n'})) { // cannot happen
		line = append([]byte(`{"`), second...)
	}
	return line
}
