package loki

import (
	"slices"
	"strings"
	"time"
)

// Loki's ingester refuses an entry as too far behind when its time is
// before its stream's newest time minus a window (half the ingester's
// max_chunk_age), the newest time moving up with every entry it stores
// (pkg/ingester/stream.go, validateEntries). Its answer names at most ten
// refused entries, in request order, and counts them all; each named one
// carries the cutoff it was judged against (chunkenc.ErrTooFarBehind).
const (
	tooFarBehindPrefix = "entry too far behind, entry timestamp is: "
	cutoffInfix        = ", oldest acceptable timestamp is: "
)

// inferBehind tells which entries of segment seg Loki refused when its
// answer counts total refusals but names only the first ones (listed),
// all too far behind. It replays Loki's rule from the first named entry,
// once with the lowest and once with the highest newest time the printed
// cutoff (to the second) allows; when both replays refuse the same
// entries, as many as Loki counted, starting with the named ones, those
// are rejected and the others are stored. It reports false, rejecting
// nothing, when the answer cannot be explained this way.
func (v *reqView) inferBehind(seg int, listed []ingesterLine, total int) bool {
	if len(listed) == 0 || v.window <= 0 {
		return false
	}
	for _, il := range listed {
		if !strings.HasPrefix(il.reason, tooFarBehindPrefix) {
			return false
		}
	}
	cutoff, ok := parseCutoff(listed[0].reason)
	if !ok {
		return false
	}
	es := v.entries(seg)
	first := slices.IndexFunc(es, func(e pushEntry) bool { return e.Timestamp.Equal(listed[0].ts) })
	if first < 0 {
		return false
	}
	// Loki prints the cutoff in RFC 3339 (whole seconds, cut down): the
	// newest time it was taken from lies within that second plus window.
	lo := cutoff.Add(v.window)
	low := refusedFrom(es, first, lo, v.window)
	high := refusedFrom(es, first, lo.Add(time.Second-1), v.window)
	if !slices.Equal(low, high) || len(low) != total {
		return false
	}
	for i, il := range listed {
		if !es[low[i]].Timestamp.Equal(il.ts) {
			return false
		}
	}
	for _, k := range low {
		if p := v.first[seg] + k; v.reason[p] == "" {
			v.reason[p] = "entry too far behind its stream's newest entry (Loki counted " +
				"more refusals than it named; this one follows from its rule): " + v.body
		}
	}
	return true
}

// refusedFrom replays the too-far-behind rule on es from position first,
// the stream's newest time being newest there, and returns the positions
// of the entries it refuses.
func refusedFrom(es []pushEntry, first int, newest time.Time, window time.Duration) []int {
	var out []int
	for k := first; k < len(es); k++ {
		ts := es[k].Timestamp
		if newest.Add(-window).After(ts) {
			out = append(out, k)
			continue
		}
		if ts.After(newest) {
			newest = ts
		}
	}
	return out
}

// parseCutoff reads the cutoff out of a too-far-behind reason.
func parseCutoff(reason string) (time.Time, bool) {
	i := strings.Index(reason, cutoffInfix)
	if i < 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, reason[i+len(cutoffInfix):])
	return t, err == nil
}
