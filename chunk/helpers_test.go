package chunk

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// t0 is a fixed event time with nanoseconds.
var t0 = time.Unix(1767225600, 123456789).UTC()

// view is a Record without its byte position, with strings for readable
// diffs. PathNil distinguishes an absent path from an empty one.
type view struct {
	Time      time.Time
	Line      string
	Path      string
	PathNil   bool
	Offset    int64
	HasOffset bool
	Problem   string
	Index     int
}

func viewOf(r *Record) view {
	return view{
		Time: r.Time, Line: string(r.Line), Path: string(r.Path), PathNil: r.Path == nil,
		Offset: r.Offset, HasOffset: r.HasOffset, Problem: r.Problem, Index: r.Index,
	}
}

// ok is the view of a usable tail record.
func ok(index int, tm time.Time, path string, offset int64, line string) view {
	return view{Time: tm, Line: line, Path: path, Offset: offset, HasOffset: true, Index: index}
}

// decodeAll decodes data and returns the views of every delivered record.
func decodeAll(t testing.TB, cfg Config, data []byte) ([]view, error) {
	t.Helper()
	d, err := NewDecoder(cfg)
	require.NoError(t, err)
	var got []view
	err = d.Decode(data, func(r *Record) error {
		got = append(got, viewOf(r))
		return nil
	})
	return got, err
}

// within reports whether s is empty or lies inside data's backing array.
func within(data, s []byte) bool {
	if len(s) == 0 {
		return true
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return p >= lo && p+uintptr(len(s)) <= lo+uintptr(len(data))
}

// tailEvents returns n tail events of the default config with distinct
// times, offsets and lines.
func tailEvents(n int) []Event {
	cfg := DefaultConfig()
	evs := make([]Event, n)
	var off int64
	for i := range evs {
		line := []byte(`{"n":` + itoa(int64(i)) + `,"msg":"hello"}`)
		evs[i] = TailEvent(cfg, t0.Add(time.Duration(i)*time.Second), "/var/log/agent/s1.jsonl", off, line)
		off += int64(len(line)) + 1
	}
	return evs
}
