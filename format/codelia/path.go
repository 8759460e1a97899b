package codelia

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/journalship/journalship/format"
)

// problemDate is the Path.Problem of dated directories that are no date.
const problemDate = "date directories YYYY/MM/DD are not a valid date"

// Claim implements format.Format: a file <name>.jsonl in directories
// sessions/YYYY/MM/DD/ (four, two and two digits). Nothing under
// sessions/state/ (the resume snapshots) is claimed. Digits that are no
// date (2026/02/30) are claimed with Path.Problem set
// (docs/formats/codelia.md, Layout).
func (*Format) Claim(path string) (format.Path, bool) {
	parts := strings.Split(filepath.ToSlash(path), "/")
	n := len(parts)
	if n < 5 {
		return format.Path{}, false
	}
	for i := 0; i+1 < n; i++ {
		if parts[i] == "sessions" && parts[i+1] == "state" {
			return format.Path{}, false
		}
	}
	stem, ok := strings.CutSuffix(parts[n-1], ".jsonl")
	if !ok || stem == "" || parts[n-5] != "sessions" {
		return format.Path{}, false
	}
	y, okY := digits(parts[n-4], 4)
	m, okM := digits(parts[n-3], 2)
	d, okD := digits(parts[n-2], 2)
	if !okY || !okM || !okD {
		return format.Path{}, false
	}
	p := format.Path{Format: Name, RunID: stem, Group: path}
	if m < 1 || m > 12 || d < 1 || d > daysIn(m, y) {
		p.Problem = problemDate
		return p, true
	}
	p.Started = time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return p, true
}

// digits reads s as exactly width ASCII digits.
func digits(s string, width int) (int, bool) {
	if len(s) != width {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
