package flblog

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain /a/b.jsonl":        "plain /a/b.jsonl",
		"tab\tstays":              "tab\tstays",
		"/x/a\n[error] forged":    `/x/a\n[error] forged`,
		"cr\r\x00\x1b[31m\x7fend": `cr\r\x00\x1b[31m\x7fend`,
		"\xff non-UTF-8 kept":     "\xff non-UTF-8 kept",
		"ünïcode":                 "ünïcode",
	} {
		assert.Equal(t, want, Escape(in), "%q", in)
	}
}

// TestWriteIsOneLine: whatever the message, one line in Fluent Bit's
// layout.
func TestWriteIsOneLine(t *testing.T) {
	var b bytes.Buffer
	Write(&b, " info", "retention", "deleted /r/s_nl\nz.jsonl")
	out := b.String()
	assert.Equal(t, 1, strings.Count(out, "\n"))
	assert.Regexp(t, regexp.MustCompile(`^\[\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{9}\] \[ info\] \[retention\] deleted /r/s_nl\\nz\.jsonl\n$`), out)
}
