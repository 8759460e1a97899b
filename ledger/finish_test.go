package ledger

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMarkFinished(t *testing.T) {
	tests := []struct {
		name           string
		segs           []Segment
		size, tailFrom int64
		kind           Kind // "" for success
		msg            string
	}{
		{"fully shipped", []Segment{seg("f", 0, 100, 3)}, 100, 100, "", ""},
		{"partial tail", []Segment{seg("f", 0, 100, 3)}, 120, 100, "", ""},
		{"tail before watermark", []Segment{seg("f", 0, 100, 3)}, 100, 80, "", ""},
		{"empty file", nil, 0, 0, "", ""},
		{"only a partial line", nil, 40, 0, "", ""},
		{"nothing shipped", nil, 100, 100, ErrNotCovered, "nothing shipped"},
		{"short", []Segment{seg("f", 0, 90, 3)}, 100, 100, ErrNotCovered, "shipped up to 90, need 100"},
		{"leading gap", []Segment{seg("f", 10, 100, 3)}, 100, 100, ErrNotCovered, "gap [0,10)"},
		{"inner gap", []Segment{seg("f", 0, 50, 1), seg("f", 60, 100, 1)}, 100, 100, ErrNotCovered, "2 separate ranges"},
		{"range inside tail", []Segment{seg("f", 0, 50, 1), seg("f", 60, 70, 1)}, 100, 50, ErrNotCovered, "separate ranges"},
		{"past size", []Segment{seg("f", 0, 100, 3)}, 90, 90, ErrNotCovered, "past size 90"},
		{"negative size", nil, -1, 0, ErrInvalid, "tailFrom"},
		{"tail past size", nil, 10, 11, ErrInvalid, "tailFrom (11) <= size (10)"},
		{"negative tail", nil, 10, -1, ErrInvalid, "tailFrom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := openTest(t)
			ctx := context.Background()
			require.NoError(t, l.Record(ctx, tt.segs))
			before := mustFile(t, l, "f")
			err := l.MarkFinished(ctx, "f", "", tt.size, tt.tailFrom)
			after := mustFile(t, l, "f")
			if tt.kind == "" {
				require.NoError(t, err)
				require.True(t, after.Finished)
				require.Equal(t, tt.size, after.Size)
				require.Equal(t, before.Ranges, after.Ranges)
				return
			}
			requireKind(t, err, tt.kind)
			require.ErrorContains(t, err, "ledger: finish f")
			require.ErrorContains(t, err, tt.msg)
			require.Equal(t, before, after, "a refused call changes nothing")
		})
	}
	l := openTest(t)
	requireKind(t, l.MarkFinished(context.Background(), "", "", 0, 0), ErrInvalid)
}

func TestRecordPastFinishedSizeClearsFinished(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	require.NoError(t, l.Record(ctx, []Segment{seg("f", 0, 100, 3)}))
	require.NoError(t, l.MarkFinished(ctx, "f", "", 110, 100))

	require.NoError(t, l.Record(ctx, []Segment{seg("f", 0, 100, 3)}), "a retry within size")
	fs := mustFile(t, l, "f")
	require.True(t, fs.Finished)
	require.Equal(t, int64(110), fs.Size)

	require.NoError(t, l.Record(ctx, []Segment{seg("f", 100, 150, 1)}), "the file grew")
	fs = mustFile(t, l, "f")
	require.False(t, fs.Finished)
	require.Equal(t, int64(110), fs.Size, "Size stays the last finished size")
	require.Equal(t, int64(150), fs.Watermark)

	require.NoError(t, l.MarkFinished(ctx, "f", "", 150, 150))
	fs = mustFile(t, l, "f")
	require.True(t, fs.Finished)
	require.Equal(t, int64(150), fs.Size)
}

func TestForget(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	require.NoError(t, l.Record(ctx, []Segment{seg("a", 0, 10, 1), seg("b", 0, 10, 1), seg("b", 20, 30, 1)}))
	require.NoError(t, l.MarkFinished(ctx, "a", "", 10, 10))

	require.NoError(t, l.Forget(ctx, "b"))
	require.Equal(t, FileState{Path: "b", Size: -1}, mustFile(t, l, "b"))
	require.NoError(t, l.Forget(ctx, "a"))
	require.Equal(t, FileState{Path: "a", Size: -1}, mustFile(t, l, "a"))
	require.NoError(t, l.Forget(ctx, "never-seen"))
	requireKind(t, l.Forget(ctx, ""), ErrInvalid)

	files, err := l.Files(ctx)
	require.NoError(t, err)
	require.Empty(t, files)
	var n int
	require.NoError(t, l.c.db.QueryRow(`SELECT count(*) FROM ranges`).Scan(&n))
	require.Zero(t, n, "ranges of forgotten files are deleted with them")

	require.NoError(t, l.Record(ctx, []Segment{seg("b", 0, 5, 1)}))
	require.Equal(t, []Range{rg(0, 5, 1)}, mustFile(t, l, "b").Ranges, "a forgotten path starts afresh")
}
