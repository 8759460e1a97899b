package integrity

import (
	"fmt"
	"strings"
	"time"
)

// The format-neutral side of the scanner: a journal format names the key
// paths it reads ("type", "output.usage.input_tokens"), compiled once into
// Paths; Capture then checks a whole line as strict JSON in one pass and
// keeps, for each path, where its value lies in the line. Nothing is built
// and nothing is allocated per line: values are positions, decoded on
// demand by Str, Int, Float and Time.

// JSONKind is the JSON type of a captured value.
type JSONKind = valueKind

// JSON value kinds of captured values; JSONAbsent means the path was not in
// the line.
const (
	JSONAbsent = kindNone
	JSONString = kindString
	JSONNumber = kindNumber
	JSONTrue   = kindTrue
	JSONFalse  = kindFalse
	JSONNull   = kindNull
	JSONObject = kindObject
	JSONArray  = kindArray
)

// MaxPaths bounds the paths of one Paths, so a Capture's values fit in a
// fixed array.
const MaxPaths = 64

// Paths is a compiled set of dotted key paths. A path's id is its index in
// the list given to NewPaths. Safe for concurrent use once built.
type Paths struct {
	nodes []pathNode // nodes[0] is the top-level object
	names []string
}

// pathNode is one object level: the keys wanted in it, each with the id it
// is captured under (-1: not captured) and the node of its members
// (0: not descended into).
type pathNode struct {
	keys  []string
	ids   []int8
	child []int32
}

// NewPaths compiles paths: "a" is the top-level member a, "a.b" the member
// b of the object a. Keys with a dot cannot be named.
func NewPaths(paths ...string) (*Paths, error) {
	if len(paths) > MaxPaths {
		return nil, fmt.Errorf("integrity: %d paths, at most %d", len(paths), MaxPaths)
	}
	p := &Paths{nodes: make([]pathNode, 1), names: paths}
	for id, path := range paths {
		n := 0
		keys := strings.Split(path, ".")
		for depth, key := range keys {
			if key == "" {
				return nil, fmt.Errorf("integrity: path %q has an empty key", path)
			}
			k := p.nodes[n].find(key)
			if k < 0 {
				k = p.nodes[n].add(key)
			}
			if depth == len(keys)-1 {
				if p.nodes[n].ids[k] >= 0 {
					return nil, fmt.Errorf("integrity: path %q is named twice", path)
				}
				p.nodes[n].ids[k] = int8(id)
				break
			}
			if p.nodes[n].child[k] == 0 {
				p.nodes = append(p.nodes, pathNode{})
				p.nodes[n].child[k] = int32(len(p.nodes) - 1)
			}
			n = int(p.nodes[n].child[k])
		}
	}
	return p, nil
}

// MustPaths is NewPaths for paths fixed in the code; it panics on an error.
func MustPaths(paths ...string) *Paths {
	p, err := NewPaths(paths...)
	if err != nil {
		panic(err)
	}
	return p
}

// Name returns the path with the given id.
func (p *Paths) Name(id int) string { return p.names[id] }

func (n *pathNode) find(key string) int {
	for i, k := range n.keys {
		if k == key {
			return i
		}
	}
	return -1
}

func (n *pathNode) findBytes(key []byte) int {
	for i, k := range n.keys {
		if len(k) == len(key) && k == string(key) {
			return i
		}
	}
	return -1
}

func (n *pathNode) add(key string) int {
	n.keys, n.ids, n.child = append(n.keys, key), append(n.ids, -1), append(n.child, 0)
	return len(n.keys) - 1
}

// Value is where a captured value lies in its line.
type Value struct {
	start, end int
	Kind       JSONKind
	esc        bool // a string with backslash escapes
	// Count is how often the path occurred in the line (keys repeated in
	// an object); the first occurrence is the value.
	Count uint8
}

// Capture checks lines and captures the values of one Paths. It is not safe
// for concurrent use; it is cheap, give each goroutine its own.
type Capture struct {
	sc      scanner
	line    []byte
	paths   *Paths
	vals    [MaxPaths]Value
	keyBuf  []byte // an escaped key, decoded
	scratch []byte // string values, decoded; valid until the next Str
}

// Scan checks line as strict JSON (RFC 8259, valid UTF-8, nested at most
// 10000 deep) and captures the values of p. It returns "" for a JSON
// object, else the reason the line is corrupt: "blank line", "invalid
// UTF-8", "not JSON", "not JSON: nested deeper than 10000 levels" or "not
// a JSON object". After a corrupt verdict nothing is captured.
func (c *Capture) Scan(line []byte, p *Paths) string {
	c.line, c.paths = line, p
	clear(c.vals[:len(p.names)])
	if isBlank(line) {
		return "blank line"
	}
	sc := &c.sc
	sc.b, sc.i, sc.limit = line, 0, maxDepth
	sc.status, sc.deep, sc.more, sc.object = scanOK, false, false, false
	i := skipWS(line, 0)
	var end int
	var ok bool
	if i < len(line) && line[i] == '{' {
		sc.object = true
		end, ok = c.object(i, 1, 0)
	} else {
		end, _, ok = sc.value(i, 1)
	}
	sc.end(end, ok)
	reason := sc.reason()
	if reason != "" {
		clear(c.vals[:len(p.names)])
	}
	return reason
}

// object scans the object opening at b[i], at depth, capturing the members
// node n names, and returns the index after it. Recursion only follows the
// paths (a few levels); other nested values are skipped without recursion.
func (c *Capture) object(i, depth, n int) (int, bool) {
	s, b := &c.sc, c.line
	if depth > s.limit {
		s.deep = true
	}
	node := &c.paths.nodes[n]
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		end, esc, ok := shortString(b, i+1)
		if !ok {
			if end, esc, ok = s.scanString(i + 1); !ok {
				return end, false
			}
		}
		key := b[i+1 : end]
		if esc {
			c.keyBuf = Unescape(c.keyBuf[:0], key)
			key = c.keyBuf
		}
		k := node.findBytes(key)
		i = skipWS(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		start := skipWS(b, i+1)
		var kind valueKind
		if k >= 0 && node.child[k] != 0 && start < len(b) && b[start] == '{' {
			end, ok = c.object(start, depth+1, int(node.child[k]))
			kind = kindObject
		} else {
			end, kind, ok = s.value(start, depth+1)
		}
		if !ok {
			return end, false
		}
		if k >= 0 && node.ids[k] >= 0 {
			c.keep(int(node.ids[k]), start, end, kind)
		}
		i = skipWS(b, end)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i = skipWS(b, i+1)
		default:
			return i, false
		}
	}
}

func (c *Capture) keep(id, start, end int, kind valueKind) {
	v := &c.vals[id]
	if v.Count < 255 {
		v.Count++
	}
	if v.Count > 1 {
		return
	}
	*v = Value{start: start, end: end, Kind: kind, Count: 1}
	if kind == kindString {
		for _, ch := range c.line[start+1 : end-1] {
			if ch == '\\' {
				v.esc = true
				break
			}
		}
	}
}

// Get returns the value captured for the path id (Kind JSONAbsent when the
// line did not have it).
func (c *Capture) Get(id int) *Value { return &c.vals[id] }

// Has tells whether the line had the path id.
func (c *Capture) Has(id int) bool { return c.vals[id].Kind != JSONAbsent }

// Raw returns the value of id as written in the line (nil when absent).
func (c *Capture) Raw(id int) []byte {
	v := &c.vals[id]
	if v.Kind == JSONAbsent {
		return nil
	}
	return c.line[v.start:v.end]
}

// Str returns the decoded string value of id; ok is false when the value is
// absent or not a string. The bytes point into the line, or into a scratch
// buffer reused by the next Str of an escaped value: copy what is kept.
func (c *Capture) Str(id int) (s []byte, ok bool) {
	v := &c.vals[id]
	if v.Kind != kindString {
		return nil, false
	}
	s = c.line[v.start+1 : v.end-1]
	if v.esc {
		c.scratch = Unescape(c.scratch[:0], s)
		s = c.scratch
	}
	return s, true
}

// Int returns the value of id as an integer: a JSON number with no
// fractional part (3.0 and 3e0 count, as in JSON Schema) within int64.
func (c *Capture) Int(id int) (int64, bool) {
	v := &c.vals[id]
	s := Slot{Start: v.start, End: v.end, Kind: v.Kind}
	return s.Int(c.line)
}

// Float returns a number value of id.
func (c *Capture) Float(id int) (float64, bool) {
	v := &c.vals[id]
	if v.Kind != kindNumber {
		return 0, false
	}
	return parseFloat(c.line[v.start:v.end])
}

// Time returns a string value of id read as an RFC 3339 date-time.
func (c *Capture) Time(id int) (time.Time, bool) {
	s, ok := c.Str(id)
	if !ok {
		return time.Time{}, false
	}
	return ParseTime(s)
}

// IsUUID tells whether id is a string in the hyphenated UUID form.
func (c *Capture) IsUUID(id int) bool {
	s, ok := c.Str(id)
	return ok && IsUUID(s)
}
