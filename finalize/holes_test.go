package finalize

import (
	"context"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHolesAreTheGapsBelowTheLastShippedRange(t *testing.T) {
	r := func(s, e int64) ledger.Range { return ledger.Range{Start: s, End: e, FirstSeq: -1, LastSeq: -1} }
	assert.Empty(t, Holes(nil), "nothing shipped: the whole file is tail's")
	assert.Empty(t, Holes([]ledger.Range{r(0, 100)}), "the bytes past the last range are not a hole")
	assert.Equal(t, []ledger.Range{r(0, 10)}, Holes([]ledger.Range{r(10, 100)}), "before the first range")
	assert.Equal(t, []ledger.Range{r(0, 10), r(40, 60)}, Holes([]ledger.Range{r(10, 40), r(60, 80)}))
}

// recordingShipper records the offsets it is asked to ship.
type recordingShipper struct{ offsets []int64 }

func (s *recordingShipper) Ship(_ context.Context, recs []chunk.Record, _ string) (pipeline.Result, error) {
	for i, r := range recs {
		if r.Index != i {
			return pipeline.Result{}, assert.AnError
		}
		s.offsets = append(s.offsets, r.Offset)
	}
	return pipeline.Result{Lines: len(recs), Shipped: len(recs)}, nil
}

func TestBelowShipperNeverSendsPastTheLastRange(t *testing.T) {
	inner := &recordingShipper{}
	s := &belowShipper{Shipper: inner, below: 30}
	recs := []chunk.Record{{Offset: 0, HasOffset: true}, {Offset: 20, HasOffset: true, Index: 1}, {Offset: 30, HasOffset: true, Index: 2}, {Offset: 45, HasOffset: true, Index: 3}}
	res, err := s.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	assert.Equal(t, 2, res.Shipped)
	assert.Equal(t, []int64{0, 20}, inner.offsets)
	res, err = s.Ship(context.Background(), recs[2:], "t")
	require.NoError(t, err)
	assert.Zero(t, res.Shipped)
	assert.Equal(t, []int64{0, 20}, inner.offsets, "a batch wholly past the limit is not sent at all")
}

// A finished file with a hole: the pass ships the hole (counted as hole
// lines) and then the rest, and marks the file finished.
func TestFinishedFileShipsItsHoleFirst(t *testing.T) {
	e := newEnv(t)
	lines := []string{start, ev("LLM_REQUEST", 1, ""), ev("ERROR", 2, ""), ev("SESSION_END", 3, `"reason":"completed"`)}
	data := ""
	var offsets []int64
	for _, l := range lines {
		offsets = append(offsets, int64(len(data)))
		data += l + "\n"
	}
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", data, 0)
	res, err := e.inst.Ship(context.Background(), []chunk.Record{{Time: time.Now(), Line: []byte(lines[2]), Path: []byte(path), Offset: offsets[2], HasOffset: true}}, "t")
	require.NoError(t, err)
	require.Equal(t, 1, res.Shipped)

	o, err := e.finalizer(t, nil, nil).File(context.Background(), path)
	require.NoError(t, err)
	assert.True(t, o.Finished)
	assert.Equal(t, 2, o.HoleLines, "lines 0 and 1, before the shipped line 2")
	assert.Equal(t, []ledger.Range{{Start: 0, End: offsets[2], FirstSeq: -1, LastSeq: -1}}, o.Holes)
	assert.Equal(t, 1, o.ShippedLines, "then the last line, past the shipped range")
	got := e.entries(t, 5)
	assert.Len(t, got, 5, "four lines and the file summary")
}

// TestQuietFileNeverFinishedShipsWhatTailLost: Fluent Bit lost every
// chunk of a file (discarded after a crash) whose session never ends: the
// ledger holds no range of it, so it has no hole, and it is never
// finished. Once it has been unchanged for StaleAfter, a pass ships its
// complete lines all the same, once.
func TestQuietFileNeverFinishedShipsWhatTailLost(t *testing.T) {
	e := newEnv(t)
	body := start + "\n" + ev("LLM_REQUEST", 1, `"step_index":0,"model":"m"`) + "\n"
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", body, 20*time.Minute)
	f := e.finalizer(t, nil, nil)

	o, err := f.File(context.Background(), path)
	require.NoError(t, err)
	assert.False(t, o.Finished)
	assert.Equal(t, "still being written", o.Why)
	assert.Equal(t, 2, o.HoleLines, "both lines, though no range of the file was ever shipped")
	assert.Len(t, e.entries(t, 2), 2)

	o, err = f.File(context.Background(), path)
	require.NoError(t, err)
	assert.Zero(t, o.HoleLines, "nothing twice")

	fresh := e.write(t, "session_20261121T110000Z_p2.jsonl", body, 0)
	o, err = f.File(context.Background(), fresh)
	require.NoError(t, err)
	assert.Zero(t, o.HoleLines, "a file still changing is left to tail")
}
