package chunk

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic or hang,
// must report records in order with slices inside the input, and must fail
// only with a *DecodeError positioned inside the input.
func FuzzDecode(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.msgpack"))
	if err != nil {
		f.Fatal(err)
	}
	if len(seeds) == 0 {
		f.Fatal("no seeds in testdata/; run the golden test with -update")
	}
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte{})
	f.Add([]byte{0x92, 0xc1})
	f.Add([]byte{0x92, 0x92, 0xd7, 0x00})
	f.Add([]byte{0x92, 0x01, 0xdf, 0xff, 0xff, 0xff, 0xff})

	d, err := NewDecoder(DefaultConfig())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lastIndex, lastStart := -1, -1
		err := d.Decode(data, func(r *Record) error {
			if r.Index <= lastIndex || r.Start <= lastStart || r.Start >= len(data) {
				t.Fatalf("record out of order: index %d start %d after index %d start %d (len %d)",
					r.Index, r.Start, lastIndex, lastStart, len(data))
			}
			lastIndex, lastStart = r.Index, r.Start
			if !within(data, r.Line) || !within(data, r.Path) {
				t.Fatalf("record %d: slices outside the chunk", r.Index)
			}
			if r.Problem == "" && r.Line == nil {
				t.Fatalf("record %d: usable record without a line", r.Index)
			}
			return nil
		})
		if err == nil {
			return
		}
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("want *DecodeError, got %T: %v", err, err)
		}
		if de.Index <= lastIndex || de.Start <= lastStart || de.Start >= len(data) || de.Reason == "" {
			t.Fatalf("bad DecodeError %+v after index %d start %d (len %d)", de, lastIndex, lastStart, len(data))
		}
	})
}
