// Package flblog writes log lines the way Fluent Bit does, one event per
// line:
//
//	[2026/11/22 03:00:00.123456789] [ warn] [output:journalship:journalship.0] message
//
// Messages often carry file names, which may hold any byte but "/" and
// NUL: control characters are escaped (a newline as \n), so that no file
// name can split a line in two or forge one.
package flblog

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// TimeLayout is Fluent Bit's time stamp.
const TimeLayout = "2006/01/02 15:04:05.000000000"

// Write writes one line: the time now, tag (a level, " info", "error"),
// the component name and msg, escaped.
func Write(w io.Writer, tag, name, msg string) {
	fmt.Fprintf(w, "[%s] [%s] [%s] %s\n", time.Now().Format(TimeLayout), tag, name, Escape(msg))
}

// Escape returns s with its control characters other than tab escaped:
// \n, \r, and \xNN for the rest (DEL included).
func Escape(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case isControl(rune(c)):
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isControl tells whether r is a C0 control character but tab, or DEL.
func isControl(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }
