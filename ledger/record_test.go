package ledger

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRecordMerges(t *testing.T) {
	const f = "/j/a.jsonl"
	tests := []struct {
		name      string
		calls     [][]Segment // each inner slice is one Record call
		want      []Range
		watermark int64
	}{
		{"single", [][]Segment{{seg(f, 0, 10, 2)}}, []Range{rg(0, 10, 2)}, 10},
		{"adjacent calls", [][]Segment{{seg(f, 0, 10, 2)}, {seg(f, 10, 25, 3)}, {seg(f, 25, 30, 1)}},
			[]Range{rg(0, 30, 6)}, 30},
		{"adjacent in one call", [][]Segment{{seg(f, 0, 10, 2), seg(f, 10, 25, 3)}}, []Range{rg(0, 25, 5)}, 25},
		{"overlapping", [][]Segment{{seg(f, 0, 15, 3)}, {seg(f, 10, 20, 2)}}, []Range{rg(0, 20, 5)}, 20},
		{"out of order", [][]Segment{{seg(f, 20, 30, 1)}, {seg(f, 0, 10, 1)}, {seg(f, 10, 20, 1)}},
			[]Range{rg(0, 30, 3)}, 30},
		{"gaps stay apart", [][]Segment{{seg(f, 20, 30, 1)}, {seg(f, 40, 50, 1)}},
			[]Range{rg(20, 30, 1), rg(40, 50, 1)}, 0},
		{"gap then watermark", [][]Segment{{seg(f, 20, 30, 1)}, {seg(f, 0, 10, 1)}},
			[]Range{rg(0, 10, 1), rg(20, 30, 1)}, 10},
		{"bridge joins three", [][]Segment{{seg(f, 0, 10, 1), seg(f, 20, 30, 1)}, {seg(f, 10, 20, 1)}},
			[]Range{rg(0, 30, 3)}, 30},
		{"duplicates in one call", [][]Segment{{seg(f, 0, 10, 2), seg(f, 0, 10, 2)}}, []Range{rg(0, 10, 2)}, 10},
		{"retried same segment", [][]Segment{{seg(f, 0, 10, 2)}, {seg(f, 0, 10, 2)}, {seg(f, 0, 10, 2)}},
			[]Range{rg(0, 10, 2)}, 10},
		{"retry inside merged range", [][]Segment{{seg(f, 0, 10, 2)}, {seg(f, 10, 20, 2)}, {seg(f, 10, 20, 2)}},
			[]Range{rg(0, 20, 4)}, 20},
		{"retry grown to contain", [][]Segment{{seg(f, 0, 10, 2)}, {seg(f, 0, 30, 5)}}, []Range{rg(0, 30, 5)}, 30},
		{"covers several", [][]Segment{{seg(f, 5, 10, 1), seg(f, 20, 25, 1)}, {seg(f, 0, 30, 6)}},
			[]Range{rg(0, 30, 6)}, 30},
		{"empty segment ignored", [][]Segment{{seg(f, 0, 10, 2), seg(f, 15, 15, 0)}}, []Range{rg(0, 10, 2)}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := openTest(t)
			for _, call := range tt.calls {
				require.NoError(t, l.Record(context.Background(), call))
			}
			fs := mustFile(t, l, f)
			require.Equal(t, tt.want, fs.Ranges)
			require.Equal(t, tt.watermark, fs.Watermark)
			require.Equal(t, int64(-1), fs.Size)
			require.False(t, fs.Finished)
		})
	}
}

func TestRecordSeqEdges(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	const f = "/j/s.jsonl"
	require.NoError(t, l.Record(ctx, []Segment{{Path: f, Start: 100, End: 200, Lines: 2, FirstSeq: 7, LastSeq: 8}}))
	require.NoError(t, l.Record(ctx, []Segment{{Path: f, Start: 0, End: 100, Lines: 2, FirstSeq: -1, LastSeq: 6}}))
	require.NoError(t, l.Record(ctx, []Segment{{Path: f, Start: 200, End: 300, Lines: 1, FirstSeq: 9, LastSeq: 9}}))
	fs := mustFile(t, l, f)
	require.Equal(t, []Range{{Start: 0, End: 300, FirstSeq: -1, LastSeq: 9, Lines: 5}}, fs.Ranges)
}

func TestRecordSeveralFilesAtomically(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	require.NoError(t, l.Record(ctx, []Segment{seg("/j/b", 0, 10, 1), seg("/j/a", 0, 5, 1), seg("/j/b", 10, 20, 1)}))
	files, err := l.Files(ctx)
	require.NoError(t, err)
	require.Len(t, files, 2)
	require.Equal(t, "/j/a", files[0].Path)
	require.Equal(t, []Range{rg(0, 5, 1)}, files[0].Ranges)
	require.Equal(t, "/j/b", files[1].Path)
	require.Equal(t, []Range{rg(0, 20, 2)}, files[1].Ranges)

	err = l.Record(ctx, []Segment{seg("/j/c", 0, 10, 1), seg("/j/d", 10, 5, 1)})
	requireKind(t, err, ErrInvalid)
	require.ErrorContains(t, err, "/j/d")
	require.ErrorContains(t, err, "segment 1")
	require.Equal(t, int64(-1), mustFile(t, l, "/j/c").Size, "nothing of a refused call is recorded")
	require.Empty(t, mustFile(t, l, "/j/c").Ranges)
}

func TestRecordEmptyCallIsNoop(t *testing.T) {
	l := openTest(t)
	require.NoError(t, l.Record(context.Background(), nil))
	files, err := l.Files(context.Background())
	require.NoError(t, err)
	require.Empty(t, files)
}

func TestRecordCanceledContext(t *testing.T) {
	l := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := l.Record(ctx, []Segment{seg("/j/a", 0, 10, 1)})
	requireKind(t, err, ErrCanceled)
	require.Empty(t, mustFile(t, l, "/j/a").Ranges)
}
