package gosession

import (
	"strconv"
	"unicode/utf8"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// The roles of a message (docs/formats/go-session.md, messages.jsonl).
type role uint8

const (
	rOther role = iota // a role outside the four: valid, shipped as other
	rUser
	rAssistant
	rTool
	rSystem
	roleCount
)

var roleNames = [roleCount]string{"", TypeUser, TypeAssistant, TypeTool, TypeSystem}

// roles maps a message's role onto the neutral role (docs/formats/
// go-session.md, Roles): an assistant message is the model's answer even
// when it calls tools.
var roles = [roleCount]format.Role{
	rOther:     format.RoleOther,
	rUser:      format.RoleMessage,
	rAssistant: format.RoleLLMResponse,
	rTool:      format.RoleToolResult,
	rSystem:    format.RoleMessage,
}

func roleOf(b []byte) role {
	for r := rUser; r < roleCount; r++ {
		if string(b) == roleNames[r] {
			return r
		}
	}
	return rOther
}

// linePaths are the fields the judge reads, of a message and of a
// transcript line alike (one scan decides which the line is when the
// state does not know). A message's own fields come in two shapes
// (docs/formats/go-session.md, messages.jsonl): flat beside uuid and
// timestamp (seed 002), or nested in "message" (Goat's MessageEntry).
var linePaths = integrity.MustPaths("role", "uuid", "timestamp", "content", "tool_calls",
	"tool_call_id", "name", "type", "total_cost_usd",
	"message", "message.role", "message.content", "message.tool_calls", "message.tool_call_id", "message.name")

// Ids of linePaths, in its order.
const (
	pRole = iota
	pUUID
	pTimestamp
	pContent
	pToolCalls
	pToolCallID
	pName
	pType
	pTotalCost
	pMessage
	pMRole
	pMContent
	pMToolCalls
	pMToolCallID
	pMName
)

// shape is where a message line keeps its message's fields: the ids of
// linePaths they are captured under, and the violation names of its
// tool_calls entries.
type shape struct {
	role, content, toolCalls, toolCallID, name int
	calls                                      *[maxNamedCalls + 1]callFieldNames
	noRole                                     string // the corrupt reason without a string role
}

// The two shapes of a message line.
var (
	flatShape   = shape{pRole, pContent, pToolCalls, pToolCallID, pName, &callNames, reasonNoRole}
	nestedShape = shape{pMRole, pMContent, pMToolCalls, pMToolCallID, pMName, &nestedCallNames, reasonNoNestedRole}
)

// shapeOf tells the shape of a scanned message line, by its content: nested
// when it has no top-level role and its "message" is an object.
func shapeOf(c *integrity.Capture) *shape {
	if !c.Has(pRole) && c.Get(pMessage).Kind == integrity.JSONObject {
		return &nestedShape
	}
	return &flatShape
}

// callPaths are the fields of one tool_calls entry: its id, and its name
// in the OpenAI shape (function.name) or flat (name).
var callPaths = integrity.MustPaths("id", "name", "function.name")

const (
	cID = iota
	cName
	cFunctionName
)

// Violation reasons and corrupt reasons. Constants, so that collecting
// them never allocates (docs/formats/go-session.md, Records).
const (
	reasonRequired       = "required field missing"
	reasonDuplicate      = "duplicate key"
	reasonNonEmptyString = "must be a non-empty string"
	reasonString         = "must be a string"
	reasonStrOrNull      = "must be a string or null"
	reasonDateTime       = "must be an RFC 3339 date-time"
	reasonContent        = "must be a string, an array or null"
	reasonArrOrNull      = "must be an array or null"
	reasonObject         = "must be an object"
	reasonNoRole         = `no string "role"`
	reasonNoNestedRole   = `no string "message.role"`
	reasonTwoMessages    = `"message" written twice`
	maxDetail            = 64  // bytes of a value quoted in a note's detail
	maxKept              = 256 // bytes of an id or name a state keeps
)

// callNames are the violation field names of the first maxNamedCalls
// tool_calls entries ("tool_calls[1].id"); later entries share the
// "tool_calls[*]" names. Built once, so that violating never allocates.
type callFieldNames struct{ entry, id, name, functionName string }

const maxNamedCalls = 64

var (
	callNames       = namesOfCalls("")
	nestedCallNames = namesOfCalls("message.")
)

func namesOfCalls(prefix string) (n [maxNamedCalls + 1]callFieldNames) {
	for i := range n {
		idx := strconv.Itoa(i)
		if i == maxNamedCalls {
			idx = "*"
		}
		p := prefix + "tool_calls[" + idx + "]"
		n[i] = callFieldNames{p, p + ".id", p + ".name", p + ".function.name"}
	}
	return n
}

func (sh *shape) callNamesOf(i int) *callFieldNames { return &sh.calls[min(i, maxNamedCalls)] }

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s []byte, n int) []byte {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// elements walks the elements of a JSON array the scanner has accepted
// (its raw bytes, brackets included), without allocating. It is robust to
// any bytes (it never reads out of range) but only exact for valid JSON.
type elements struct {
	b []byte
	i int
}

func (e *elements) reset(array []byte) { e.b, e.i = array, 1 }

// next returns the next element as written.
func (e *elements) next() ([]byte, bool) {
	b := e.b
	i := skipWS(b, e.i)
	if i < len(b) && b[i] == ',' {
		i = skipWS(b, i+1)
	}
	if i >= len(b) || b[i] == ']' {
		e.i = len(b)
		return nil, false
	}
	end := skipValue(b, i)
	e.i = end
	return b[i:end], end > i
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the index after the string whose quote is b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// count returns the number of elements of a JSON array as written.
func count(array []byte) int {
	var e elements
	e.reset(array)
	n := 0
	for _, ok := e.next(); ok; _, ok = e.next() {
		n++
	}
	return n
}
