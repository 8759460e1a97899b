package format

import (
	"unicode/utf8"

	"github.com/journalship/journalship/integrity"
)

// Violation reasons of the field rules a Checker applies. They are
// constants, so that collecting them never allocates, and their text is
// part of the formats' output (the violations shipped with a line): never
// reword them.
const (
	ReasonRequired  = "required field missing"
	ReasonDuplicate = "duplicate key"
	ReasonString    = "must be a string"
	ReasonEmpty     = "must not be empty"
	ReasonInteger   = "must be an integer"
	ReasonMin0      = "must be >= 0"
	ReasonNumber    = "must be a number"
	ReasonBool      = "must be a boolean"
	ReasonObject    = "must be an object"
	ReasonArray     = "must be an array"
	ReasonDateTime  = "must be an RFC 3339 date-time"
	ReasonStrOrNull = "must be a string or null"
	ReasonObjOrNull = "must be an object or null"
	ReasonArrOrNull = "must be an array or null"
	ReasonIntOrNull = "must be an integer or null"
	ReasonStrOrArr  = "must be a string or an array"
)

// MaxDetail is the most bytes of a value a format quotes in a note's
// detail (see Clip).
const MaxDetail = 64

// Checker applies field rules to one line captured by Capture with Paths:
// each method judges the path id (an index of Paths) and records what it
// breaks on Event as a violation, whose field is the path's name
// (Paths.Name) and whose reason is one of the Reason constants. A rule
// judges the first occurrence of a key and flags a repeated one
// (DuplicateKey). Nothing allocates.
//
// A format's judge keeps one Checker and sets its fields for each line
// (and Paths anew when it scans the same line for another schema).
type Checker struct {
	Capture *integrity.Capture
	Paths   *integrity.Paths
	Event   *Event
	// BestEffort: nothing is a violation (the line is judged only by the
	// fields every version guarantees); a duplicate key is still flagged,
	// and Time still sets the line's time.
	BestEffort bool
}

// Bad records the violation of id for reason, unless BestEffort.
func (k *Checker) Bad(id int, reason string) {
	if !k.BestEffort {
		k.Event.Violate(k.Paths.Name(id), reason)
	}
}

// Dup returns the value of id, judging a key written twice: the line is
// flagged DuplicateKey and id violates ReasonDuplicate (the first
// occurrence is the value).
func (k *Checker) Dup(id int) *integrity.Value {
	v := k.Capture.Get(id)
	if v.Count > 1 {
		k.Event.Flags |= DuplicateKey
		k.Bad(id, ReasonDuplicate)
	}
	return v
}

// Present judges id's presence (ReasonRequired when required and absent)
// after Dup, and returns its kind.
func (k *Checker) Present(id int, required bool) integrity.JSONKind {
	v := k.Dup(id)
	if v.Kind == integrity.JSONAbsent && required {
		k.Bad(id, ReasonRequired)
	}
	return v.Kind
}

// Str judges a string: ReasonString for another kind (ReasonStrOrNull
// when nullable, and then null passes), ReasonEmpty for "" when nonEmpty.
func (k *Checker) Str(id int, required, nonEmpty, nullable bool) {
	switch kind := k.Present(id, required); {
	case kind == integrity.JSONAbsent, kind == integrity.JSONNull && nullable:
	case kind != integrity.JSONString && nullable:
		k.Bad(id, ReasonStrOrNull)
	case kind != integrity.JSONString:
		k.Bad(id, ReasonString)
	case nonEmpty && k.Capture.Raw(id)[1] == '"':
		k.Bad(id, ReasonEmpty)
	}
}

// ReqStr judges a required string.
func (k *Checker) ReqStr(id int) { k.Str(id, true, false, false) }

// ReqNonEmpty judges a required non-empty string.
func (k *Checker) ReqNonEmpty(id int) { k.Str(id, true, true, false) }

// ReqNonEmptyOrNull judges a required non-empty string or null.
func (k *Checker) ReqNonEmptyOrNull(id int) { k.Str(id, true, true, true) }

// OptStr judges an optional string.
func (k *Checker) OptStr(id int) { k.Str(id, false, false, false) }

// OptStrOrNull judges an optional string or null.
func (k *Checker) OptStrOrNull(id int) { k.Str(id, false, false, true) }

// StrOrArr judges a string or an array (ReasonStrOrArr).
func (k *Checker) StrOrArr(id int, required bool) {
	if kind := k.Present(id, required); kind != integrity.JSONAbsent && kind != integrity.JSONString && kind != integrity.JSONArray {
		k.Bad(id, ReasonStrOrArr)
	}
}

// ReqStrOrArr judges a required string or array.
func (k *Checker) ReqStrOrArr(id int) { k.StrOrArr(id, true) }

// Int0 judges an integer >= 0 (a count): ReasonInteger for another kind
// or a fraction, ReasonMin0 for a negative one. When nullable null passes
// and another kind is ReasonIntOrNull.
func (k *Checker) Int0(id int, required, nullable bool) {
	switch kind := k.Present(id, required); kind {
	case integrity.JSONAbsent:
	case integrity.JSONNumber:
		if n, ok := k.Capture.Int(id); !ok {
			k.Bad(id, ReasonInteger)
		} else if n < 0 {
			k.Bad(id, ReasonMin0)
		}
	case integrity.JSONNull:
		if !nullable {
			k.Bad(id, ReasonInteger)
		}
	default:
		if nullable {
			k.Bad(id, ReasonIntOrNull)
		} else {
			k.Bad(id, ReasonInteger)
		}
	}
}

// ReqInt0 judges a required integer >= 0.
func (k *Checker) ReqInt0(id int) { k.Int0(id, true, false) }

// OptInt0 judges an optional integer >= 0.
func (k *Checker) OptInt0(id int) { k.Int0(id, false, false) }

// OptInt0OrNull judges an optional integer >= 0 or null.
func (k *Checker) OptInt0OrNull(id int) { k.Int0(id, false, true) }

// Num judges a number (ReasonNumber).
func (k *Checker) Num(id int, required bool) {
	if kind := k.Present(id, required); kind != integrity.JSONAbsent && kind != integrity.JSONNumber {
		k.Bad(id, ReasonNumber)
	}
}

// ReqNum judges a required number.
func (k *Checker) ReqNum(id int) { k.Num(id, true) }

// OptNum judges an optional number.
func (k *Checker) OptNum(id int) { k.Num(id, false) }

// Bool judges a boolean (ReasonBool).
func (k *Checker) Bool(id int, required bool) {
	if kind := k.Present(id, required); kind != integrity.JSONAbsent && kind != integrity.JSONTrue && kind != integrity.JSONFalse {
		k.Bad(id, ReasonBool)
	}
}

// ReqBool judges a required boolean.
func (k *Checker) ReqBool(id int) { k.Bool(id, true) }

// OptBool judges an optional boolean.
func (k *Checker) OptBool(id int) { k.Bool(id, false) }

// Obj judges an object (ReasonObject; when nullable null passes and
// another kind is ReasonObjOrNull) and tells whether it is one: its
// members are then judged by the caller.
func (k *Checker) Obj(id int, required, nullable bool) bool {
	switch kind := k.Present(id, required); {
	case kind == integrity.JSONObject:
		return true
	case kind == integrity.JSONAbsent, kind == integrity.JSONNull && nullable:
	case nullable:
		k.Bad(id, ReasonObjOrNull)
	default:
		k.Bad(id, ReasonObject)
	}
	return false
}

// ReqObj judges a required object and tells whether it is one.
func (k *Checker) ReqObj(id int) bool { return k.Obj(id, true, false) }

// OptObj judges an optional object and tells whether it is one.
func (k *Checker) OptObj(id int) bool { return k.Obj(id, false, false) }

// OptObjOrNull judges an optional object or null and tells whether it is
// an object.
func (k *Checker) OptObjOrNull(id int) bool { return k.Obj(id, false, true) }

// Arr judges an array (ReasonArray; when nullable null passes and another
// kind is ReasonArrOrNull).
func (k *Checker) Arr(id int, required, nullable bool) {
	switch kind := k.Present(id, required); {
	case kind == integrity.JSONArray, kind == integrity.JSONAbsent, kind == integrity.JSONNull && nullable:
	case nullable:
		k.Bad(id, ReasonArrOrNull)
	default:
		k.Bad(id, ReasonArray)
	}
}

// ReqArr judges a required array.
func (k *Checker) ReqArr(id int) { k.Arr(id, true, false) }

// OptArr judges an optional array.
func (k *Checker) OptArr(id int) { k.Arr(id, false, false) }

// OptArrOrNull judges an optional array or null.
func (k *Checker) OptArrOrNull(id int) { k.Arr(id, false, true) }

// Time judges an RFC 3339 date-time string (ReasonDateTime for another
// kind or a string that is none) and makes a valid one the line's time
// (Event.Time).
func (k *Checker) Time(id int, required bool) {
	switch kind := k.Present(id, required); {
	case kind == integrity.JSONAbsent:
	case kind != integrity.JSONString:
		k.Bad(id, ReasonDateTime)
	default:
		t, ok := k.Capture.Time(id)
		if !ok {
			k.Bad(id, ReasonDateTime)
			return
		}
		k.Event.Time, k.Event.HasTime = t, true
	}
}

// ReqTime judges a required date-time and makes it the line's time.
func (k *Checker) ReqTime(id int) { k.Time(id, true) }

// OptTime judges an optional date-time and makes it the line's time.
func (k *Checker) OptTime(id int) { k.Time(id, false) }

// Clip shortens s to at most MaxDetail bytes, on a rune boundary: a
// value quoted in a note's detail.
func Clip(s []byte) []byte {
	if len(s) <= MaxDetail {
		return s
	}
	n := MaxDetail
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// NonEmptyStr returns the decoded string of id when it is a non-empty
// string (valid until the next read of an escaped string with c).
func NonEmptyStr(c *integrity.Capture, id int) ([]byte, bool) {
	s, ok := c.Str(id)
	return s, ok && len(s) > 0
}
