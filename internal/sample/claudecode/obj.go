package claudecode

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
// every line's key order is fixed by construction.
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
