package codelia

import (
	"unicode/utf8"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Violation reasons. Constants, so that collecting them never allocates
// (docs/formats/codelia.md, Field rules).
const (
	reasonRequired  = "required field missing"
	reasonDuplicate = "duplicate key"
	reasonString    = "must be a string"
	reasonEmpty     = "must not be empty"
	reasonInteger   = "must be an integer"
	reasonMin0      = "must be >= 0"
	reasonMin1      = "must be >= 1"
	reasonNumber    = "must be a number"
	reasonBool      = "must be a boolean"
	reasonObject    = "must be an object"
	reasonArray     = "must be an array"
	reasonDateTime  = "must be an RFC 3339 date-time"
	reasonStrOrNull = "must be a string or null"
	reasonObjOrNull = "must be an object or null"
	reasonArrOrNull = "must be an array or null"
	reasonIntOrNull = "must be an integer or null"
	reasonNoType    = `no string "type"`
	maxDetail       = 64 // bytes of a value quoted in a note's detail
)

// checker applies field rules to one captured line. In best-effort mode
// nothing is a violation (docs/formats/codelia.md, Header and schema
// versions); values are still read when they have their type.
type checker struct {
	c          *integrity.Capture
	paths      *integrity.Paths
	ev         *format.Event
	a          *integrity.Arena
	bestEffort bool
	// enum is the known value the last reqEnum read ("" for none or an
	// unknown one); enumSet tells whether it read a string at all.
	enum    string
	enumSet bool
}

func (k *checker) bad(id int, reason string) {
	if !k.bestEffort {
		k.ev.Violate(k.paths.Name(id), reason)
	}
}

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

// present judges a required field's presence; it returns its kind.
func (k *checker) present(id int, required bool) integrity.JSONKind {
	v := k.dup(id)
	if v.Kind == integrity.JSONAbsent && required {
		k.bad(id, reasonRequired)
	}
	return v.Kind
}

func (k *checker) str(id int, required, nonEmpty bool) {
	switch kind := k.present(id, required); {
	case kind == integrity.JSONAbsent:
	case kind != integrity.JSONString:
		k.bad(id, reasonString)
	case nonEmpty && k.c.Raw(id)[1] == '"':
		k.bad(id, reasonEmpty)
	}
}

func (k *checker) reqStr(id int)      { k.str(id, true, false) }
func (k *checker) reqNonEmpty(id int) { k.str(id, true, true) }
func (k *checker) optStr(id int)      { k.str(id, false, false) }

func (k *checker) optStrOrNull(id int) {
	if kind := k.present(id, false); kind != integrity.JSONAbsent && kind != integrity.JSONString && kind != integrity.JSONNull {
		k.bad(id, reasonStrOrNull)
	}
}

// reqEnum judges a required non-empty string of an enum and returns the
// enum's constant, or "" for a value outside it, which is tolerated and
// annotated with note (detail: the value, at most maxDetail bytes).
func (k *checker) reqEnum(id int, list []string, note string) string {
	k.enum, k.enumSet = "", false
	k.reqNonEmpty(id)
	s, ok := k.c.Str(id)
	if !ok || len(s) == 0 {
		return ""
	}
	k.enumSet = true
	if k.enum = enumValue(list, s); k.enum == "" {
		k.ev.Note(note, k.a.Copy(clip(s)))
	}
	return k.enum
}

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

func (k *checker) int0(id int, required, nullable bool) {
	switch kind := k.present(id, required); kind {
	case integrity.JSONAbsent:
	case integrity.JSONNumber:
		if n, ok := k.c.Int(id); !ok {
			k.bad(id, reasonInteger)
		} else if n < 0 {
			k.bad(id, reasonMin0)
		}
	case integrity.JSONNull:
		if !nullable {
			k.bad(id, reasonInteger)
		}
	default:
		if nullable {
			k.bad(id, reasonIntOrNull)
		} else {
			k.bad(id, reasonInteger)
		}
	}
}

func (k *checker) reqInt0(id int)                { k.int0(id, true, false) }
func (k *checker) optInt0(id int, nullable bool) { k.int0(id, false, nullable) }

func (k *checker) reqNum(id int) {
	if kind := k.present(id, true); kind != integrity.JSONAbsent && kind != integrity.JSONNumber {
		k.bad(id, reasonNumber)
	}
}

func (k *checker) optBool(id int) {
	if kind := k.present(id, false); kind != integrity.JSONAbsent && kind != integrity.JSONTrue && kind != integrity.JSONFalse {
		k.bad(id, reasonBool)
	}
}

// obj judges an object field and tells whether it is one (its members are
// then judged by the caller).
func (k *checker) obj(id int, required, nullable bool) bool {
	switch kind := k.present(id, required); {
	case kind == integrity.JSONObject:
		return true
	case kind == integrity.JSONAbsent, kind == integrity.JSONNull && nullable:
	case nullable:
		k.bad(id, reasonObjOrNull)
	default:
		k.bad(id, reasonObject)
	}
	return false
}

func (k *checker) reqObj(id int) bool       { return k.obj(id, true, false) }
func (k *checker) optObj(id int) bool       { return k.obj(id, false, false) }
func (k *checker) optObjOrNull(id int) bool { return k.obj(id, false, true) }

func (k *checker) arr(id int, required, nullable bool) {
	switch kind := k.present(id, required); {
	case kind == integrity.JSONArray, kind == integrity.JSONAbsent, kind == integrity.JSONNull && nullable:
	case nullable:
		k.bad(id, reasonArrOrNull)
	default:
		k.bad(id, reasonArray)
	}
}

func (k *checker) reqArr(id int)       { k.arr(id, true, false) }
func (k *checker) optArr(id int)       { k.arr(id, false, false) }
func (k *checker) optArrOrNull(id int) { k.arr(id, false, true) }

// reqTime judges a required RFC 3339 date-time and sets the line's time.
func (k *checker) reqTime(id int) {
	switch kind := k.present(id, true); {
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

// nonEmptyStr returns the decoded string of id when it is a non-empty
// string (valid until the next read of an escaped string).
func nonEmptyStr(c *integrity.Capture, id int) ([]byte, bool) {
	s, ok := c.Str(id)
	return s, ok && len(s) > 0
}
