package claudecode

import (
	"bytes"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Content blocks (docs/formats/claude-code.md, Content blocks): the
// elements of message.content, each an object with a string type. The
// line was checked whole by the Capture; each block is then read with
// integrity.Members, which hands out its top-level members (the few the
// judge reads are kept, the rest, tool inputs and outputs, are skipped).

// blockKeys are the members of a block the judge reads.
var blockKeys = integrity.MustKeys(integrity.Key{Name: "type"}, integrity.Key{Name: "id"},
	integrity.Key{Name: "name"}, integrity.Key{Name: "tool_use_id"}, integrity.Key{Name: "text"})

// Ids of blockKeys.
const (
	bType = iota
	bID
	bName
	bToolUseID
	bText
	blockKeyCount
)

// blockKind is a block's type, as far as the judge tells them apart.
type blockKind uint8

const (
	blockOther blockKind = iota
	blockText
	blockThinking // thinking or redacted_thinking
	blockToolUse
	blockToolResult
)

func blockKindOf(t []byte) blockKind {
	switch string(t) {
	case "text":
		return blockText
	case "thinking", "redacted_thinking":
		return blockThinking
	case "tool_use":
		return blockToolUse
	case "tool_result":
		return blockToolResult
	}
	return blockOther
}

// block is one element of a content array: the members blockKeys names,
// each the first occurrence, with how often it occurred.
type block struct {
	elem  []byte // the element as written, positions of slot are in it
	slot  [blockKeyCount]integrity.Slot
	count [blockKeyCount]uint8
}

// The violations of blocks: constant field names, each recorded once per
// line.
const (
	fieldBlock          = "message.content[]"
	fieldBlockType      = "message.content[].type"
	fieldBlockID        = "message.content[].id"
	fieldBlockName      = "message.content[].name"
	fieldBlockToolUseID = "message.content[].tool_use_id"
)

// blockIter walks a content array (validated by the line's scan).
type blockIter struct {
	arr []byte
	i   int
	m   integrity.Members
}

func (it *blockIter) reset(arr []byte) { it.arr, it.i = arr, 1 } // after '['

// next reads the next element into b. It returns false at the end of the
// array, and at an element that is not an object (notObject: the elements
// after it are not read).
func (it *blockIter) next(b *block) (ok, notObject bool) {
	arr := it.arr
	i := skipWS(arr, it.i)
	if i < len(arr) && arr[i] == ',' {
		i = skipWS(arr, i+1)
	}
	if i >= len(arr) || arr[i] == ']' {
		return false, false
	}
	if arr[i] != '{' {
		return false, true
	}
	elem := arr[i:]
	b.elem = elem
	b.count = [blockKeyCount]uint8{}
	end := skipWS(elem, 1) // the '}' of an empty object
	if it.m.Start(elem) {
		var m integrity.Member
		for it.m.Next(&m, blockKeys) {
			if m.ID < blockKeyCount {
				if b.count[m.ID] == 0 {
					b.slot[m.ID] = m.Slot
				}
				if b.count[m.ID] < 255 {
					b.count[m.ID]++
				}
			}
			end = skipWS(elem, m.End)
		}
	}
	// Next stops at the object's '}' (its verdict, which sees the rest of
	// the array after it, is not wanted).
	if end >= len(elem) || elem[end] != '}' {
		return false, false
	}
	it.i = i + end + 1
	return true, false
}

// str returns a block member's decoded string, or ok false when it is
// absent or not a string. Escaped values are decoded into *buf.
func (b *block) str(id int, buf *[]byte) ([]byte, bool) {
	s := &b.slot[id]
	if b.count[id] == 0 || s.Kind != integrity.JSONString {
		return nil, false
	}
	raw := s.Str(b.elem)
	if !s.Esc {
		return raw, true
	}
	*buf = integrity.Unescape((*buf)[:0], raw)
	return *buf, true
}

// has tells whether the block has the member id.
func (b *block) has(id int) bool { return b.count[id] > 0 }

// skipWS returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// blockViolations are the block violations recorded on the current line,
// one bit each, so that a line of many bad blocks lists each once.
type blockViolations uint8

func (v *blockViolations) add(ev *format.Event, bit blockViolations, field, reason string) {
	if *v&bit == 0 {
		*v |= bit
		ev.Violate(field, reason)
	}
}

// maxHead is the most bytes of a text the judge looks at: the markers it
// looks for are shorter.
const maxHead = 32

// textHead returns the first bytes (at most maxHead) of a string value's
// decoded text; raw is the value still escaped when esc. Only a value with
// an escape among its first bytes is decoded (into *buf).
func textHead(raw []byte, esc bool, buf *[]byte) []byte {
	head := raw[:min(len(raw), maxHead)]
	if !esc || bytes.IndexByte(head, '\\') < 0 {
		return head
	}
	// Each decoded byte takes at most six bytes as written (\u0001): the
	// first 6*maxHead bytes, cut after a whole escape, hold the head.
	i := 0
	for i < len(raw) && i < 6*maxHead {
		switch {
		case raw[i] != '\\':
			i++
		case raw[i+1] != 'u':
			i += 2
		case i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u':
			i += 12 // perhaps a surrogate pair: kept together
		default:
			i += 6
		}
	}
	*buf = integrity.Unescape((*buf)[:0], raw[:i])
	return (*buf)[:min(len(*buf), maxHead)]
}
