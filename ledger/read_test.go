package ledger

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFileUnknown(t *testing.T) {
	l := openTest(t)
	fs := mustFile(t, l, "/nope")
	require.Equal(t, FileState{Path: "/nope", Size: -1}, fs)
	_, err := l.File(context.Background(), "")
	requireKind(t, err, ErrInvalid)
}

func TestFileUpdatedAt(t *testing.T) {
	l := openTest(t)
	before := time.Now()
	require.NoError(t, l.Record(context.Background(), []Segment{seg("/j/a", 0, 10, 1)}))
	fs := mustFile(t, l, "/j/a")
	require.False(t, fs.UpdatedAt.Before(before.Truncate(time.Microsecond)))
	require.False(t, fs.UpdatedAt.After(time.Now()))
}

func TestWatermark(t *testing.T) {
	tests := []struct {
		name string
		segs []Segment
		want int64
	}{
		{"none", nil, 0},
		{"not from zero", []Segment{seg("f", 1, 10, 1)}, 0},
		{"from zero", []Segment{seg("f", 0, 10, 1)}, 10},
		{"from zero with later gap", []Segment{seg("f", 0, 10, 1), seg("f", 11, 20, 1)}, 10},
		{"joined", []Segment{seg("f", 0, 10, 1), seg("f", 11, 20, 1), seg("f", 10, 11, 1)}, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := openTest(t)
			for _, s := range tt.segs {
				require.NoError(t, l.Record(context.Background(), []Segment{s}))
			}
			require.Equal(t, tt.want, mustFile(t, l, "f").Watermark)
		})
	}
}

func TestCovering(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	require.NoError(t, l.Record(ctx, []Segment{
		{Path: "f", Start: 0, End: 100, Lines: 3, FirstSeq: 1, LastSeq: 3},
		{Path: "f", Start: 200, End: 300, Lines: 2, FirstSeq: 8, LastSeq: 9},
		{Path: "g", Start: 0, End: 50, Lines: 1, FirstSeq: 4, LastSeq: 4},
	}))
	tests := []struct {
		name string
		path string
		end  int64
		want Range
		ok   bool
	}{
		{"first range", "f", 100, Range{0, 100, 1, 3, 3}, true},
		{"second range", "f", 300, Range{200, 300, 8, 9, 2}, true},
		{"other file", "g", 50, Range{0, 50, 4, 4, 1}, true},
		{"not an end", "f", 150, Range{}, false},
		{"a start", "f", 200, Range{}, false},
		{"unknown file", "h", 100, Range{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok, err := l.Covering(ctx, tt.path, tt.end)
			require.NoError(t, err)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, r)
		})
	}
	_, _, err := l.Covering(ctx, "f", -1)
	requireKind(t, err, ErrInvalid)

	require.NoError(t, l.Record(ctx, []Segment{{Path: "f", Start: 100, End: 200, Lines: 1, FirstSeq: 5, LastSeq: 5}}))
	_, ok, err := l.Covering(ctx, "f", 100)
	require.NoError(t, err)
	require.False(t, ok, "a merged range loses its inner edge")
	r, ok, err := l.Covering(ctx, "f", 300)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, Range{0, 300, 1, 9, 6}, r)
}
