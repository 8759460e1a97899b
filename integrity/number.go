package integrity

import (
	"math"
	"strconv"
	"unsafe"
)

// integer reads a JSON number (as the scanner accepted it) that is an
// integer: JSON Schema counts 3.0 and 3e0 as integers. Integers written
// with digits only are exact over the whole int64 range; other forms go
// through float64 and must stay within ±9.2e18. The arithmetic is the one
// the Cortex Plane validator always used (fastjson's), so its verdicts do
// not change.
func integer(raw []byte) (int64, bool) {
	if n, ok, plain := plainInteger(raw); plain {
		return n, ok
	}
	f, ok := parseFloat(raw)
	if !ok || f != float64(int64(f)) || f > 9.2e18 || f < -9.2e18 {
		return 0, false
	}
	return int64(f), true
}

// smallInt reads the common integer, at most 18 digits and no sign; ok is
// false for anything else, which integer reads.
func smallInt(raw []byte) (n int64, ok bool) {
	if len(raw) == 0 || len(raw) > 18 {
		return 0, false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// plainInteger reads -?[0-9]+. plain is false for any other form; ok is
// false when the value is beyond int64.
func plainInteger(raw []byte) (n int64, ok, plain bool) {
	d := raw
	neg := len(d) > 0 && d[0] == '-'
	if neg {
		d = d[1:]
	}
	if len(d) == 0 {
		return 0, false, false
	}
	for _, c := range d {
		if !isDigit(c) {
			return 0, false, false
		}
	}
	var u uint64
	if len(d) <= 18 { // no overflow possible
		for _, c := range d {
			u = u*10 + uint64(c-'0')
		}
	} else {
		limit := uint64(math.MaxInt64)
		if neg {
			limit++
		}
		for _, c := range d {
			if u > (limit-uint64(c-'0'))/10 {
				return 0, false, true
			}
			u = u*10 + uint64(c-'0')
		}
	}
	if neg {
		return int64(-u), true, true
	}
	return int64(u), true, true
}

// pow10 are the exact powers of ten a float64 holds.
var pow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
}

// parseFloat converts a JSON number the way fastjson's fastfloat.Parse does
// (not always correctly rounded: 0.07e2 is 7.000000000000001): short
// mantissas and exponents are computed directly, the rest by
// strconv.ParseFloat.
func parseFloat(s []byte) (float64, bool) {
	i := 0
	minus := s[0] == '-'
	if minus {
		i++
	}
	j := i
	d := uint64(0)
	for i < len(s) && isDigit(s[i]) {
		d = d*10 + uint64(s[i]-'0')
		i++
		if i > 18 {
			return slowFloat(s)
		}
	}
	f := float64(d)
	if i < len(s) && s[i] == '.' {
		i++
		k := i
		for i < len(s) && isDigit(s[i]) {
			d = d*10 + uint64(s[i]-'0')
			i++
			if i-j >= len(pow10) {
				return slowFloat(s)
			}
		}
		f = float64(d) / pow10[i-k]
	}
	if i < len(s) { // 'e' or 'E'
		i++
		expMinus := false
		if s[i] == '+' || s[i] == '-' {
			expMinus = s[i] == '-'
			i++
		}
		exp := 0
		for ; i < len(s); i++ {
			exp = exp*10 + int(s[i]-'0')
			if exp > 300 {
				return slowFloat(s)
			}
		}
		if expMinus {
			exp = -exp
		}
		f *= math.Pow10(exp)
	}
	if minus {
		f = -f
	}
	return f, true
}

func slowFloat(s []byte) (float64, bool) {
	f, err := strconv.ParseFloat(unsafe.String(&s[0], len(s)), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// integralOutOfRange tells whether raw is an integer JSON Schema would
// accept but int64 cannot hold (2^70, 1e400): "out of range", not "not an
// integer".
func integralOutOfRange(raw []byte) bool {
	if _, ok, plain := plainInteger(raw); plain {
		return !ok
	}
	f, ok := parseFloat(raw)
	if math.IsInf(f, 0) {
		return true
	}
	return ok && f == math.Trunc(f) && (f > 9.2e18 || f < -9.2e18)
}
