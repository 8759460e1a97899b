package sample

import (
	"regexp"
	"strings"
	"time"
)

// This file moves the times of generated lines, for a live writer that
// writes a corpus as if now (journalship simulate and demo).

// TimestampLayout is the generators' RFC 3339 UTC time with milliseconds.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// Restamp returns line with the time after its first "timestamp" key
// replaced by t (the same length).
func Restamp(line string, t time.Time) string {
	const key = `"timestamp":"`
	i := strings.Index(line, key)
	if i < 0 || len(line) < i+len(key)+len(TimestampLayout) {
		return line
	}
	i += len(key)
	return line[:i] + t.UTC().Format(TimestampLayout) + line[i+len(TimestampLayout):]
}

// StampOwnTime returns a Kind.Stamp for records whose own time is the
// first of keys in the line (`"ts":"`): it sets that time to t and moves
// every other time the record holds (a wait's deadline, a token's
// expiry) by as much, so that what the record says about time stays what
// the generator meant.
func StampOwnTime(keys ...string) func(line string, t time.Time) (string, time.Duration) {
	return func(line string, t time.Time) (string, time.Duration) {
		key, at := "", -1
		for _, k := range keys {
			if i := strings.Index(line, k); i >= 0 && (at < 0 || i < at) {
				key, at = k, i
			}
		}
		if at < 0 {
			return line, 0
		}
		was, ok := TimeAt(line, key)
		if !ok {
			return line, 0
		}
		return MoveTimes(line, was, t)
	}
}

// MoveTimes moves every time in line by as much as its own time, was,
// moves to t.
func MoveTimes(line string, was, t time.Time) (string, time.Duration) {
	d := t.Truncate(time.Millisecond).Sub(was)
	return ShiftTimes(line, d), d
}

// TimeAt parses the time after the first key in line (`"ts":"`).
func TimeAt(line, key string) (time.Time, bool) {
	i := strings.Index(line, key)
	if i < 0 || len(line) < i+len(key)+len(TimestampLayout) {
		return time.Time{}, false
	}
	i += len(key)
	t, err := time.Parse(TimestampLayout, line[i:i+len(TimestampLayout)])
	return t, err == nil
}

// QuotedTime matches a JSON string holding an RFC 3339 time: UTC with
// milliseconds, as most generators write times (2026-02-23T14:30:22.000Z),
// or with any fraction and an offset, as Go writes them
// (2026-02-09T14:03:11.52133+01:00).
var QuotedTime = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)"`)

// ShiftTimes moves every time string in s by d, each written as it was: a
// millisecond UTC time keeps its length, another keeps its offset.
func ShiftTimes(s string, d time.Duration) string {
	if d == 0 {
		return s
	}
	return QuotedTime.ReplaceAllStringFunc(s, func(q string) string {
		text := q[1 : len(q)-1]
		if t, err := time.Parse(TimestampLayout, text); err == nil {
			return `"` + t.Add(d).UTC().Format(TimestampLayout) + `"`
		}
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			return q
		}
		return `"` + t.Add(d).Format(time.RFC3339Nano) + `"`
	})
}
