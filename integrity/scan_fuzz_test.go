package integrity

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"testing"
	"unicode/utf8"
)

// FuzzScan compares the scanner with encoding/json on every valid UTF-8
// input (and checks it refuses any other): the same accept/reject verdict, and for an object the same
// top-level members (keys decoded, raw values) in the same order, so the
// first occurrence of a duplicate key is the one the scanner reports
// first. Seeds: testdata/fuzz/FuzzScan.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,"x",{"y":null}]`, `{"type":"x","n":-0.5e-7}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		free := scanLine(in, math.MaxInt) // no depth limit
		limited := scanLine(in, maxDepth)
		if !utf8.Valid(in) {
			// encoding/json does not judge UTF-8; the scanner refuses it.
			if free.status == scanOK || limited.status == scanOK {
				t.Fatalf("invalid UTF-8 accepted: %q", in)
			}
			return
		}
		containers, values := nesting(in)
		if containers <= 10000 { // encoding/json's own limit
			if want := json.Valid(in); (free.status == scanOK) != want {
				t.Fatalf("scanner says %v, encoding/json.Valid says %v for %q", free.status, want, in)
			}
		}
		switch {
		case free.status != scanOK:
			if limited.status != scanSyntax {
				t.Fatalf("invalid JSON reported as %v with the depth limit: %q", limited.status, in)
			}
			return
		case values > maxDepth:
			if limited.status != scanTooDeep {
				t.Fatalf("depth %d reported as %v: %q", values, limited.status, in)
			}
		case limited.status != scanOK:
			t.Fatalf("depth %d reported as %v: %q", values, limited.status, in)
		}
		if free.object != (bytes.TrimLeft(in, " \t\r\n")[0] == '{') {
			t.Fatalf("object = %v for %q", free.object, in)
		}
		if free.object {
			compareMembers(t, in, free.members)
		}
		for _, sh := range []Shape{ShapeUUID, ShapeHex64} {
			compareShaped(t, in, limited, scanShaped(in, maxDepth, sh))
		}
	})
}

// compareMembers checks the scanner's members of a valid object against
// encoding/json's: in order (so first occurrences agree) through a Decoder,
// and last occurrences against Unmarshal into a map of RawMessage.
func compareMembers(t *testing.T, in []byte, got []scannedMember) {
	t.Helper()
	type kv struct {
		key string
		raw string
	}
	var want []kv
	dec := json.NewDecoder(bytes.NewReader(in))
	if _, err := dec.Token(); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		want = append(want, kv{tok.(string), string(raw)})
	}
	if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("encoding/json: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d members, encoding/json has %d: %q", len(got), len(want), in)
	}
	last := map[string]string{}
	for i, m := range got {
		var key string
		if err := json.Unmarshal(append(append([]byte{'"'}, m.key...), '"'), &key); err != nil {
			t.Fatalf("key %q: %v", m.key, err)
		}
		if key != want[i].key || string(m.raw) != want[i].raw {
			t.Fatalf("member %d is %q: %s, encoding/json has %q: %s", i, key, m.raw, want[i].key, want[i].raw)
		}
		if m.keyEsc != (bytes.IndexByte(m.key, '\\') >= 0) {
			t.Fatalf("member %d: keyEsc %v for %q", i, m.keyEsc, m.key)
		}
		checkKind(t, m)
		last[key] = string(m.raw)
	}
	var asMap map[string]json.RawMessage
	if err := json.Unmarshal(in, &asMap); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	for k, v := range asMap {
		if last[k] != string(v) {
			t.Fatalf("key %q: last value %s, encoding/json map has %s", k, last[k], v)
		}
	}
}

func checkKind(t *testing.T, m scannedMember) {
	t.Helper()
	kinds := map[byte]valueKind{'"': kindString, '{': kindObject, '[': kindArray, 't': kindTrue, 'f': kindFalse, 'n': kindNull}
	want, ok := kinds[m.raw[0]]
	if !ok {
		want = kindNumber
	}
	if m.kind != want {
		t.Fatalf("kind %v for %s", m.kind, m.raw)
	}
	if m.esc != (want == kindString && bytes.IndexByte(m.raw, '\\') >= 0) {
		t.Fatalf("esc %v for %s", m.esc, m.raw)
	}
}

// nesting measures valid JSON: the most containers open at once, and the
// deepest value counting the top-level value as depth 1 (scalars too).
func nesting(in []byte) (containers, values int) {
	open, inString := 0, false
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		case c == '[' || c == '{':
			open++
			containers = max(containers, open)
			values = max(values, open)
			continue
		case c == ']' || c == '}':
			open--
			continue
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ':':
			continue
		}
		values = max(values, open+1) // a scalar (or string) inside open containers
	}
	return containers, values
}

// compareShaped checks that expecting a shape changes nothing but the
// shaped flags.
func compareShaped(t *testing.T, in []byte, plain, shaped scanned) {
	t.Helper()
	if shaped.status != plain.status || shaped.object != plain.object || len(shaped.members) != len(plain.members) {
		t.Fatalf("with a shape: %v %v %d members, without: %v %v %d: %q", shaped.status, shaped.object,
			len(shaped.members), plain.status, plain.object, len(plain.members), in)
	}
	for i, m := range shaped.members {
		p := plain.members[i]
		if string(m.key) != string(p.key) || string(m.raw) != string(p.raw) || m.kind != p.kind || m.esc != p.esc || p.shaped {
			t.Fatalf("member %d with a shape %+v, without %+v: %q", i, m, p, in)
		}
	}
}
