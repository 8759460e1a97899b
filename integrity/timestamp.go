package integrity

import (
	"encoding/binary"
	"time"
	"unsafe"
)

// ParseTime parses an RFC 3339 date-time without allocating, exactly as
// time.Parse(time.RFC3339Nano, s). The form journals use, UTC with "Z", is
// read here directly; anything else goes to time.Parse.
func ParseTime(s []byte) (time.Time, bool) {
	if len(s) < len("2006-01-02T15:04:05Z") {
		return time.Time{}, false
	}
	if t, ok := parseUTC(s); ok {
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, unsafe.String(&s[0], len(s)))
	return t, err == nil
}

// parseUTC reads 2006-01-02T15:04:05[.digits]Z with the checks and
// arithmetic of the time package's RFC 3339 fast path: fields in range,
// fractional digits beyond the ninth ignored. ok is false for anything
// else, which time.Parse then judges. s has at least 20 bytes.
func parseUTC(s []byte) (time.Time, bool) {
	// The first 19 bytes as three words (the last overlaps the second):
	// "2006-01-", "02T15:04" and "15:04:05". The separators must be in
	// place, every other byte a digit.
	const (
		sep0 = 0xff<<32 | 0xff<<56 // "-" at 4 and 7
		sep1 = 0xff<<16 | 0xff<<40 // "T" at 10 and ":" at 13; ":" at 13 and 16
	)
	if s[len(s)-1] != 'Z' {
		return time.Time{}, false
	}
	w0 := binary.LittleEndian.Uint64(s[0:8])
	w1 := binary.LittleEndian.Uint64(s[8:16])
	w2 := binary.LittleEndian.Uint64(s[11:19])
	if w0&sep0 != '-'*ones&sep0 || w1&sep1 != 'T'<<16|':'<<40 || w2&sep1 != ':'*ones&sep1 ||
		notDigits(w0&^sep0|'0'*ones&sep0)|notDigits(w1&^sep1|'0'*ones&sep1)|notDigits(w2&^sep1|'0'*ones&sep1) != 0 {
		return time.Time{}, false
	}
	_ = s[18] // no bounds checks below
	d := func(i int) int { return int(s[i] - '0') }
	year := d(0)*1000 + d(1)*100 + d(2)*10 + d(3)
	month, day := d(5)*10+d(6), d(8)*10+d(9)
	hour, minute, sec := d(11)*10+d(12), d(14)*10+d(15), d(17)*10+d(18)
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := s[19 : len(s)-1]; len(frac) > 0 {
		if len(frac) < 2 || frac[0] != '.' {
			return time.Time{}, false
		}
		digits := frac[1:]
		for i, c := range digits {
			if !isDigit(c) {
				return time.Time{}, false
			}
			if i < 9 {
				nsec = nsec*10 + int(c-'0')
			}
		}
		nsec *= nanoScale[min(len(digits), 9)]
	}
	unix := daysSinceEpoch(year, month, day)*86400 + int64(hour*3600+minute*60+sec)
	// The same Time as time.Date(..., time.UTC) builds, without its
	// normalisation (the fields are in range).
	return time.Unix(unix, int64(nsec)).UTC(), true
}

// nanoScale turns n fractional digits into nanoseconds.
var nanoScale = [10]int{1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1}

// notDigits is zero when the eight bytes of x are ASCII digits.
func notDigits(x uint64) uint64 {
	return x&highs | ^inRange(x, '0', '9')&highs
}

// daysSinceEpoch returns the days from 1970-01-01 to a valid date of the
// proleptic Gregorian calendar (years 0 to 9999).
func daysSinceEpoch(year, month, day int) int64 {
	y := year
	if month <= 2 {
		y-- // count years from March, so the leap day ends the year
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400                        // [0, 399]
	doy := (153*((month+9)%12)+2)/5 + day - 1 // [0, 365], from March 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy    // [0, 146096]
	return int64(era*146097+doe) - 719468
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
