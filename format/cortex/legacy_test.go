package cortex

// The validator as it was before the single-pass scanner, built on
// fastjson, kept as the oracle the differential fuzz and table tests
// compare Validate with: the scanner must not change a single verdict.

import (
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/google/uuid"
	"github.com/valyala/fastjson"

	"github.com/journalship/journalship/integrity"
)

// legacyValidator is the fastjson-based validator, unchanged but renamed.
type legacyValidator struct {
	parser fastjson.Parser
}

// Validate judges one line (without its newline) into ev. With bestEffort,
// only the version-independent fields are checked. Extracted values are
// copied into a.
func (v *legacyValidator) Validate(line []byte, bestEffort bool, a *integrity.Arena, ev *Event) {
	ev.Reset()
	if reason := legacyPrecheck(line); reason != "" {
		ev.Outcome, ev.CorruptReason = integrity.Corrupt, reason
		return
	}
	val, err := v.parser.ParseBytes(line)
	if err != nil {
		ev.Outcome, ev.CorruptReason = integrity.Corrupt, "not JSON: parse error"
		return
	}
	obj, err := val.Object()
	if err != nil {
		ev.Outcome, ev.CorruptReason = integrity.Corrupt, "not a JSON object"
		return
	}
	if !v.readType(obj, a, ev) {
		return
	}
	j := legacyJudge{verdict{ev: ev, a: a, spec: &kinds[ev.Kind], bestEffort: bestEffort}}
	obj.Visit(j.visit)
	j.finish()
}

// legacyPrecheck rejects what the strict JSON validator must see first: blank
// lines, invalid UTF-8 and anything that is not strict JSON (fastjson's
// parser alone accepts NaN and other non-JSON).
func legacyPrecheck(line []byte) string {
	if legacyIsBlank(line) {
		return "blank line"
	}
	if !utf8.Valid(line) {
		return "invalid UTF-8"
	}
	if fastjson.ValidateBytes(line) != nil {
		return "not JSON"
	}
	return ""
}

func legacyIsBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// readType applies the seed's minimal structure rule: a string type and a
// string timestamp, else the line is corrupt.
func (v *legacyValidator) readType(obj *fastjson.Object, a *integrity.Arena, ev *Event) bool {
	t := obj.Get("type")
	if t == nil || t.Type() != fastjson.TypeString {
		ev.Outcome, ev.CorruptReason = integrity.Corrupt, "no string \"type\""
		return false
	}
	ts := obj.Get("timestamp")
	if ts == nil || ts.Type() != fastjson.TypeString {
		ev.Outcome, ev.CorruptReason = integrity.Corrupt, "no string \"timestamp\""
		return false
	}
	name, _ := t.StringBytes()
	ev.TypeName = a.Copy(name)
	ev.Kind = KindOf(name)
	if ev.Kind == KindUnknown {
		ev.Flags |= UnknownType
	}
	return true
}

// legacyJudge walks one object's fields.
type legacyJudge struct{ verdict }

func (j *legacyJudge) visit(key []byte, val *fastjson.Value) {
	f := field(bufferKeys.Lookup(key))
	if f == fNone || !j.spec.known.has(f) {
		return // unknown fields pass
	}
	if j.seen.has(f) {
		j.ev.Flags |= DuplicateKey
		j.report(f, reasonDuplicate)
		return
	}
	j.seen |= 1 << f
	if val.Type() == fastjson.TypeNull {
		if !j.spec.nullable.has(f) {
			j.report(f, reasonNull)
		}
		return
	}
	j.check(f, val)
}

func (j *legacyJudge) check(f field, val *fastjson.Value) {
	switch c := fields[f].check; c {
	case cBool:
		if t := val.Type(); t != fastjson.TypeTrue && t != fastjson.TypeFalse {
			j.report(f, reasonNotBool)
		}
		if f == fIsSideEffect && val.Type() == fastjson.TypeTrue {
			j.ev.SideEffect = true
		}
	case cInt, cInt0, cInt1:
		j.checkInt(f, c, val)
	default:
		s, err := val.StringBytes()
		if err != nil {
			j.report(f, reasonNotString)
			return
		}
		if reason := legacyCheckString(c, s); reason != "" {
			j.report(f, reason)
			if f == fReason {
				j.keepString(f, s)
			}
			return
		}
		j.keepString(f, s)
	}
}

func (j *legacyJudge) checkInt(f field, c check, val *fastjson.Value) {
	n, ok := legacyInteger(val)
	switch {
	case !ok:
		j.report(f, reasonNotInteger)
		return
	case c == cInt0 && n < 0:
		j.report(f, reasonMin0)
		return
	case c == cInt1 && n < 1:
		j.report(f, reasonMin1)
		return
	}
	j.keepInt(f, n)
}

// legacyInteger reads a JSON number that is an integer (JSON Schema counts 3.0 as
// an integer). Values beyond int64 are refused.
func legacyInteger(val *fastjson.Value) (int64, bool) {
	if val.Type() != fastjson.TypeNumber {
		return 0, false
	}
	if n, err := val.Int64(); err == nil {
		return n, true
	}
	f, err := val.Float64()
	if err != nil || f != float64(int64(f)) || f > 9.2e18 || f < -9.2e18 {
		return 0, false
	}
	return int64(f), true
}

func legacyCheckString(c check, s []byte) string {
	switch c {
	case cNonEmpty:
		if len(s) == 0 {
			return reasonEmpty
		}
	case cUUID:
		if !legacyIsUUID(s) {
			return reasonUUID
		}
	case cDateTime:
		if _, ok := legacyParseTime(s); !ok {
			return reasonDateTime
		}
	case cHex64:
		if !legacyIsHex64(s) {
			return reasonHex64
		}
	case cMax1024:
		if len(s) > 1024 && utf8.RuneCount(s) > 1024 {
			return reasonMax1024
		}
	case cMax4096:
		if len(s) > 4096 && utf8.RuneCount(s) > 4096 {
			return reasonMax4096
		}
	case cFinishReason:
		switch string(s) {
		case "end_turn", "tool_use", "max_tokens", "stop_sequence":
		default:
			return reasonFinish
		}
	case cEndReason:
		switch string(s) {
		case "completed", "failed", "approval_pause", "cancelled":
		default:
			return reasonEndReason
		}
	}
	return ""
}

// legacyIsUUID accepts the hyphenated 36-character form only, as JSON Schema's
// "uuid" format (RFC 4122) does.
func legacyIsUUID(s []byte) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.ParseBytes(s)
	return err == nil
}

func legacyIsHex64(s []byte) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// legacyParseTime parses an RFC 3339 date-time without allocating.
func legacyParseTime(s []byte) (time.Time, bool) {
	if len(s) < len("2006-01-02T15:04:05Z") {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, unsafe.String(&s[0], len(s)))
	return t, err == nil
}

func (j *legacyJudge) keepString(f field, s []byte) {
	if f == fTimestamp {
		j.ev.Timestamp, j.ev.HasTimestamp = legacyParseTime(s)
		return
	}
	j.verdict.keepString(f, s)
}

// BenchmarkValidateLegacy is BenchmarkValidate for the fastjson-based
// validator, to compare both on the same machine at the same moment.
func BenchmarkValidateLegacy(b *testing.B) {
	var v legacyValidator
	benchValidate(b, v.Validate)
}
