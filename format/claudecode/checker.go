package claudecode

import (
	"unicode/utf8"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Violation reasons. Constants, so that collecting them never allocates
// (docs/formats/claude-code.md, Field rules).
const (
	reasonRequired  = "required field missing"
	reasonDuplicate = "duplicate key"
	reasonString    = "must be a string"
	reasonEmpty     = "must not be empty"
	reasonInteger   = "must be an integer"
	reasonMin0      = "must be >= 0"
	reasonNumber    = "must be a number"
	reasonBool      = "must be a boolean"
	reasonObject    = "must be an object"
	reasonArray     = "must be an array"
	reasonStrOrArr  = "must be a string or an array"
	reasonDateTime  = "must be an RFC 3339 date-time"
	reasonStrOrNull = "must be a string or null"
	reasonNoType    = `no string "type"`
	maxDetail       = 64 // bytes of a value quoted in a note's detail
)

// checker applies field rules to one captured line.
type checker struct {
	c  *integrity.Capture
	ev *format.Event
}

func (k *checker) bad(id int, reason string) { k.ev.Violate(paths.Name(id), reason) }

// dup returns the value of id, judging a key written twice (the first
// occurrence is the value).
func (k *checker) dup(id int) *integrity.Value {
	v := k.c.Get(id)
	if v.Count > 1 {
		k.ev.Flags |= format.DuplicateKey
		k.bad(id, reasonDuplicate)
	}
	return v
}

// present judges a field's presence; it returns its kind.
func (k *checker) present(id int, required bool) integrity.JSONKind {
	v := k.dup(id)
	if v.Kind == integrity.JSONAbsent && required {
		k.bad(id, reasonRequired)
	}
	return v.Kind
}

func (k *checker) str(id int, required, nonEmpty, nullable bool) {
	switch kind := k.present(id, required); {
	case kind == integrity.JSONAbsent, kind == integrity.JSONNull && nullable:
	case kind != integrity.JSONString && nullable:
		k.bad(id, reasonStrOrNull)
	case kind != integrity.JSONString:
		k.bad(id, reasonString)
	case nonEmpty && k.c.Raw(id)[1] == '"':
		k.bad(id, reasonEmpty)
	}
}

func (k *checker) reqStr(id int)            { k.str(id, true, false, false) }
func (k *checker) reqNonEmpty(id int)       { k.str(id, true, true, false) }
func (k *checker) reqNonEmptyOrNull(id int) { k.str(id, true, true, true) }
func (k *checker) optStr(id int)            { k.str(id, false, false, false) }
func (k *checker) optStrOrNull(id int)      { k.str(id, false, false, true) }

// strOrArr judges a required string or array (a user message's content).
func (k *checker) strOrArr(id int) {
	if kind := k.present(id, true); kind != integrity.JSONAbsent && kind != integrity.JSONString && kind != integrity.JSONArray {
		k.bad(id, reasonStrOrArr)
	}
}

// optInt0 judges an optional token count: an integer >= 0.
func (k *checker) optInt0(id int) { k.int0(id, false) }
func (k *checker) reqInt0(id int) { k.int0(id, true) }

func (k *checker) int0(id int, required bool) {
	switch kind := k.present(id, required); kind {
	case integrity.JSONAbsent:
	case integrity.JSONNumber:
		if n, ok := k.c.Int(id); !ok {
			k.bad(id, reasonInteger)
		} else if n < 0 {
			k.bad(id, reasonMin0)
		}
	default:
		k.bad(id, reasonInteger)
	}
}

func (k *checker) optNum(id int) {
	if kind := k.present(id, false); kind != integrity.JSONAbsent && kind != integrity.JSONNumber {
		k.bad(id, reasonNumber)
	}
}

func (k *checker) bool(id int, required bool) {
	if kind := k.present(id, required); kind != integrity.JSONAbsent && kind != integrity.JSONTrue && kind != integrity.JSONFalse {
		k.bad(id, reasonBool)
	}
}

func (k *checker) optBool(id int) { k.bool(id, false) }
func (k *checker) reqBool(id int) { k.bool(id, true) }

// obj judges an object field and tells whether it is one (its members are
// then judged by the caller).
func (k *checker) obj(id int, required bool) bool {
	switch kind := k.present(id, required); kind {
	case integrity.JSONObject:
		return true
	case integrity.JSONAbsent:
	default:
		k.bad(id, reasonObject)
	}
	return false
}

func (k *checker) reqObj(id int) bool { return k.obj(id, true) }
func (k *checker) optObj(id int) bool { return k.obj(id, false) }

func (k *checker) reqArr(id int) {
	if kind := k.present(id, true); kind != integrity.JSONAbsent && kind != integrity.JSONArray {
		k.bad(id, reasonArray)
	}
}

// time judges an RFC 3339 date-time and makes it the line's time.
func (k *checker) time(id int, required bool) {
	switch kind := k.present(id, required); {
	case kind == integrity.JSONAbsent:
	case kind != integrity.JSONString:
		k.bad(id, reasonDateTime)
	default:
		t, ok := k.c.Time(id)
		if !ok {
			k.bad(id, reasonDateTime)
			return
		}
		k.ev.Time, k.ev.HasTime = t, true
	}
}

func (k *checker) reqTime(id int) { k.time(id, true) }
func (k *checker) optTime(id int) { k.time(id, false) }

// clip shortens s to at most maxDetail bytes, on a rune boundary.
func clip(s []byte) []byte {
	if len(s) <= maxDetail {
		return s
	}
	n := maxDetail
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// nonEmptyStr returns the decoded string of id when it is a non-empty
// string (valid until the next read of an escaped string).
func nonEmptyStr(c *integrity.Capture, id int) ([]byte, bool) {
	s, ok := c.Str(id)
	return s, ok && len(s) > 0
}

// hash is FNV-1a: ids are remembered by hash, without allocating.
func hash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}
