package ledger

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name string
		a, b Range
		want Range
	}{
		{"adjacent", rg(0, 10, 2), rg(10, 20, 3), rg(0, 20, 5)},
		{"adjacent reversed", rg(10, 20, 3), rg(0, 10, 2), rg(0, 20, 5)},
		{"partial overlap counts overlap twice", rg(0, 15, 3), rg(10, 20, 2), rg(0, 20, 5)},
		{"identical keeps a", Range{0, 10, 7, 9, 2}, Range{0, 10, 1, 2, 2}, Range{0, 10, 7, 9, 2}},
		{"b inside a", rg(0, 30, 6), rg(10, 20, 2), rg(0, 30, 6)},
		{"a inside b", rg(10, 20, 2), rg(0, 30, 6), rg(0, 30, 6)},
		{"same start longer b", Range{0, 10, 5, 9, 2}, Range{0, 20, 6, 19, 4}, Range{0, 20, 6, 19, 4}},
		{"same end lower b", Range{10, 20, 5, 9, 2}, Range{0, 20, 6, 19, 4}, Range{0, 20, 6, 19, 4}},
		{"no seqs kept as -1", Range{0, 10, -1, -1, 0}, Range{10, 20, 3, 4, 2}, Range{0, 20, -1, 4, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.True(t, tt.a.touches(tt.b))
			require.Equal(t, tt.want, merge(tt.a, tt.b))
		})
	}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name string
		segs []Segment
		want []filePlan
	}{
		{"nothing", nil, nil},
		{"empty segment ignored", []Segment{seg("a", 5, 5, 0)}, nil},
		{"out of order adjacent", []Segment{seg("a", 10, 20, 1), seg("a", 0, 10, 1)},
			[]filePlan{{path: "a", ranges: []Range{rg(0, 20, 2)}}}},
		{"gap stays", []Segment{seg("a", 30, 40, 1), seg("a", 0, 10, 1)},
			[]filePlan{{path: "a", ranges: []Range{rg(0, 10, 1), rg(30, 40, 1)}}}},
		{"duplicate", []Segment{seg("a", 0, 10, 2), seg("a", 0, 10, 2)},
			[]filePlan{{path: "a", ranges: []Range{rg(0, 10, 2)}}}},
		{"container after contained", []Segment{seg("a", 0, 10, 2), seg("a", 0, 30, 5)},
			[]filePlan{{path: "a", ranges: []Range{rg(0, 30, 5)}}}},
		{"files sorted", []Segment{seg("b", 0, 10, 1), seg("a", 0, 10, 1), seg("b", 10, 20, 1)},
			[]filePlan{{path: "a", ranges: []Range{rg(0, 10, 1)}}, {path: "b", ranges: []Range{rg(0, 20, 2)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := plan(tt.segs)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestPlanInvalid(t *testing.T) {
	tests := []struct {
		name string
		seg  Segment
		msg  string
	}{
		{"empty path", Segment{Start: 0, End: 1, Lines: 1}, "segment 1: empty path"},
		{"negative start", seg("a", -1, 10, 1), "start -1 is negative"},
		{"end before start", seg("a", 10, 5, 1), "end 5 is before start 10"},
		{"negative lines", seg("a", 0, 10, -1), "lines -1 is negative"},
		{"lines in empty range", seg("a", 3, 3, 1), "1 lines in an empty range"},
		{"seq below -1", Segment{Path: "a", End: 10, Lines: 1, FirstSeq: -2, LastSeq: 0}, "below -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := plan([]Segment{seg("ok", 0, 10, 1), tt.seg})
			requireKind(t, err, ErrInvalid)
			require.ErrorContains(t, err, "ledger: record")
			require.ErrorContains(t, err, tt.msg)
		})
	}
}
