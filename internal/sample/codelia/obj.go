package codelia

import (
	"bytes"
	"encoding/json"
)

// kv is one member of an obj.
type kv struct {
	k string
	v any
}

// obj is a JSON object whose members are written in the order given, so
// every record's key order is fixed by construction.
type obj []kv

// MarshalJSON implements json.Marshaler, without HTML escaping (as
// JSON.stringify writes).
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(m.k)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// get returns the value of member k, or nil.
func (o obj) get(k string) any {
	for _, m := range o {
		if m.k == k {
			return m.v
		}
	}
	return nil
}

// without returns a copy of o without member k.
func (o obj) without(k string) obj {
	out := make(obj, 0, len(o))
	for _, m := range o {
		if m.k != k {
			out = append(out, m)
		}
	}
	return out
}

// marshal encodes v as compact JSON without HTML escaping and without a
// trailing newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// marshalIndent encodes v as JSON indented by two spaces (as
// JSON.stringify(v, null, 2) writes the session state snapshots), with a
// trailing newline.
func marshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
