package integrity

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzParseTime checks ParseTime against time.Parse: the same verdict, and
// the very same Time when the UTC fast path answers.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-02-23T14:30:22Z", "2026-02-23T14:30:22.123Z", "2024-02-29T23:59:59.999999999999Z",
		"2023-02-29T00:00:00Z", "2026-02-23T14:30:22+02:00", "2026-02-23t14:30:22z", "2026-02-23T14:30:22,5Z",
		"2026-02-23T24:00:00Z", "0000-01-01T00:00:00Z", "2026-02-23T14:30:22.Z", "2026-02-23T14:30:60Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		got, ok := ParseTime(b)
		want, err := time.Parse(time.RFC3339Nano, s)
		if len(s) >= len("2006-01-02T15:04:05Z") && ok != (err == nil) {
			t.Fatalf("%q: ok %v, time.Parse error %v", s, ok, err)
		}
		if len(b) >= len("2006-01-02T15:04:05Z") {
			if fast, ok := parseUTC(b); ok && fast != want {
				t.Fatalf("%q: %v, time.Parse %v", s, fast, want)
			}
		}
		if ok && !got.Equal(want) {
			t.Fatalf("%q: %v, time.Parse %v", s, got, want)
		}
	})
}

// TestParseTimeMatchesTimeParse sweeps every day of years around the
// calendar's edge cases through the UTC fast path and time.Parse.
func TestParseTimeMatchesTimeParse(t *testing.T) {
	fracs := []string{"", ".5", ".123", ".123456789", ".1234567891234", ".000000001"}
	n := 0
	for _, year := range []int{0, 1, 4, 99, 100, 399, 400, 1600, 1900, 1969, 1970, 1971, 2000, 2024, 2026, 2100, 2400, 9999} {
		for month := 1; month <= 12; month++ {
			for day := 0; day <= 32; day++ {
				frac := fracs[n%len(fracs)]
				n++
				s := pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(n%24, 2) + ":" + pad(n%60, 2) + ":" + pad(n*7%60, 2) + frac + "Z"
				got, ok := ParseTime([]byte(s))
				want, err := time.Parse(time.RFC3339Nano, s)
				require.Equal(t, err == nil, ok, s)
				_, fast := parseUTC([]byte(s))
				require.Equal(t, ok, fast, "%s: the UTC form takes the fast path", s)
				require.True(t, got == want, "%s: %v, time.Parse %v", s, got, want)
			}
		}
	}
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}
