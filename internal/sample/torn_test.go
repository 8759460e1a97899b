package sample

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTornLine: a torn line is a prefix of the first line, 10 to longest
// bytes, then the whole second line, and is never JSON.
func TestTornLine(t *testing.T) {
	first := []byte(`{"type":"LLM_RESPONSE","seq":7,"text":"a long enough answer for any cut"}` + "\n")
	second := []byte(`{"type":"TOOL_CALL","seq":8}` + "\n")
	x := NewRand(1, 2)
	for range 200 {
		line := TornLine(x, first, second, 60)
		cut := len(line) - len(second)
		assert.True(t, cut >= 10 && cut <= 60, "prefix of %d bytes", cut)
		assert.Equal(t, first[:cut], line[:cut])
		assert.Equal(t, second, line[cut:])
		assert.False(t, json.Valid(bytes.TrimSuffix(line, []byte{'\n'})))
	}
}
