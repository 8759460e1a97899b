package integrity

import "strings"

// Outcome is the verdict on one line.
type Outcome uint8

// The three outcomes. Their String forms are what is shipped to Loki.
const (
	Valid Outcome = iota
	SchemaInvalid
	Corrupt
)

var outcomeNames = [...]string{"valid", "schema_invalid", "corrupt"}

// String returns the outcome's name as shipped ("valid", "schema_invalid",
// "corrupt").
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Violation is one broken schema rule. Both strings are constants, so
// collecting violations does not allocate.
type Violation struct {
	Field  string
	Reason string
}

// ViolationText renders violations as "field: reason; field: reason", as
// every format ships them.
func ViolationText(vs []Violation) string {
	if len(vs) == 0 {
		return ""
	}
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.Field)
		b.WriteString(": ")
		b.WriteString(v.Reason)
	}
	return b.String()
}
