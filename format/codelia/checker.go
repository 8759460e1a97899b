package codelia

import (
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Violation and corrupt reasons of Codelia's own (the field rules' are
// format's Reason constants). Constants, so that collecting them never
// allocates (docs/formats/codelia.md, Field rules).
const (
	reasonMin1   = "must be >= 1"
	reasonNoType = `no string "type"`
)

// checker applies field rules to one captured line (format.Checker), and
// Codelia's enums. In best-effort mode nothing is a violation
// (docs/formats/codelia.md, Header and schema versions); values are still
// read when they have their type.
type checker struct {
	format.Checker
	a *integrity.Arena
	// enum is the known value the last reqEnum read ("" for none or an
	// unknown one); enumSet tells whether it read a string at all.
	enum    string
	enumSet bool
}

// reqEnum judges a required non-empty string of an enum and returns the
// enum's constant, or "" for a value outside it, which is tolerated and
// annotated with note (detail: the value, at most format.MaxDetail bytes).
func (k *checker) reqEnum(id int, list []string, note string) string {
	k.enum, k.enumSet = "", false
	k.ReqNonEmpty(id)
	s, ok := k.Capture.Str(id)
	if !ok || len(s) == 0 {
		return ""
	}
	k.enumSet = true
	if k.enum = enumValue(list, s); k.enum == "" {
		k.Event.Note(note, k.a.Copy(format.Clip(s)))
	}
	return k.enum
}
