package sample

import (
	"bytes"
	"encoding/json"
)

// KV is one member of an Obj. It is an alias of an unnamed struct type so
// that a generator can write members unkeyed, as its own type
// (kv{"type", "user"}), without vet's composites check taking them for
// another package's struct.
type KV = struct {
	K string
	V any
}

// Obj is a JSON object whose members are written in the order given, so
// every record's key order is fixed by construction. The Claude Code and
// Codelia generators build their records from it.
type Obj []KV

// MarshalJSON implements json.Marshaler, without HTML escaping (as
// JSON.stringify writes).
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := Marshal(m.K)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := Marshal(m.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Get returns the value of member k, or nil.
func (o Obj) Get(k string) any {
	for _, m := range o {
		if m.K == k {
			return m.V
		}
	}
	return nil
}

// Marshal encodes v as compact JSON without HTML escaping and without a
// trailing newline.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// MarshalIndent encodes v as JSON indented by two spaces (as
// JSON.stringify(v, null, 2) writes), with a trailing newline.
func MarshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
