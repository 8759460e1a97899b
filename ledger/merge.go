package ledger

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/journalship/journalship/journalfile"
)

// contains reports whether o lies within r.
func (r Range) contains(o Range) bool { return r.Start <= o.Start && o.End <= r.End }

// touches reports whether r and o overlap or are adjacent.
func (r Range) touches(o Range) bool { return r.Start <= o.End && o.Start <= r.End }

// merge joins two touching ranges. a is the one already known (the stored
// range, or the earlier one in sort order); it wins ties.
func merge(a, b Range) Range {
	m := Range{Start: min(a.Start, b.Start), End: max(a.End, b.End)}
	m.FirstSeq = a.FirstSeq
	if b.Start < a.Start || (b.Start == a.Start && b.End > a.End) {
		m.FirstSeq = b.FirstSeq
	}
	m.LastSeq = a.LastSeq
	if b.End > a.End || (b.End == a.End && b.Start < a.Start) {
		m.LastSeq = b.LastSeq
	}
	switch {
	case a.contains(b):
		m.Lines = a.Lines
	case b.contains(a):
		m.Lines = b.Lines
	default:
		m.Lines = a.Lines + b.Lines
	}
	return m
}

// filePlan is the merged new ranges of one file in a Record call.
type filePlan struct {
	path     string
	identity journalfile.Identity // of the file the segments were read from ("" unknown)
	ranges   []Range              // sorted, disjoint, not touching
}

// agree takes in the identity of another segment of the plan's file: a
// call may not mix segments of two different files under one path.
func (p *filePlan) agree(id journalfile.Identity) error {
	if !journalfile.Same(p.identity, id) {
		return invalid("record", p.path, fmt.Errorf("segments of two files, %s and %s", p.identity, id))
	}
	if len(id) > len(p.identity) {
		p.identity = id // the one with the fingerprint
	}
	return nil
}

// plan validates segs and merges them per file, ignoring empty segments.
// Files come out sorted by path.
func plan(segs []Segment) ([]filePlan, error) {
	sorted := make([]Segment, 0, len(segs))
	for i, s := range segs {
		if err := s.validate(i); err != nil {
			return nil, err
		}
		if s.End > s.Start {
			sorted = append(sorted, s)
		}
	}
	slices.SortStableFunc(sorted, func(a, b Segment) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End))
	})
	var plans []filePlan
	for _, s := range sorted {
		n := len(plans)
		if n == 0 || plans[n-1].path != s.Path {
			plans = append(plans, filePlan{path: s.Path, identity: s.Identity, ranges: []Range{s.rng()}})
			continue
		}
		if err := plans[n-1].agree(s.Identity); err != nil {
			return nil, err
		}
		rs := plans[n-1].ranges
		if last := rs[len(rs)-1]; last.touches(s.rng()) {
			rs[len(rs)-1] = merge(last, s.rng())
		} else {
			plans[n-1].ranges = append(rs, s.rng())
		}
	}
	return plans, nil
}
