package ledger

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecondProcess runs a writer child that records the even slots of
// /j/even while this process records the odd ones and, concurrently, reads
// the file over and over. Every read must be a consistent snapshot (exactly
// the merged state of the slots it claims), claim none of this process's
// slots before its Record began, and include every slot whose commit was known before the read
// began: the child's reported commits and this process's own. At the end
// both processes' writes are merged into one range: no update was lost
// between the two processes.
func TestSecondProcess(t *testing.T) {
	const n = 150 // calls per process
	cfg := testConfig(t)
	l, err := Open(cfg)
	require.NoError(t, err)
	defer l.Close()
	ctx := context.Background()

	c := startChild(t, cfg.Path, "even", 0, n, 1)
	var mu sync.Mutex
	childDone, ownDone := int64(-1), int64(-1) // highest call known committed
	ownStarted := int64(-1)                    // highest call of ours begun
	go func() {
		for i := range c.commits {
			mu.Lock()
			childDone = i
			mu.Unlock()
		}
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // this process's writer: odd slots
		defer wg.Done()
		for i := range int64(n) {
			mu.Lock()
			ownStarted = i
			mu.Unlock()
			if !assert.NoError(t, l.Record(ctx, []Segment{slotSeg("/j/even", 2*i+1)})) {
				return
			}
			mu.Lock()
			ownDone = i
			mu.Unlock()
		}
	}()

	reads := 0
	for {
		mu.Lock()
		cd, od := childDone, ownDone
		mu.Unlock()
		fs := mustFile(t, l, "/j/even")
		slots := slotsOf(t, fs)
		for s := int64(0); s <= 2*cd; s += 2 {
			require.True(t, slices.Contains(slots, s), "child's committed slot %d not visible", s)
		}
		for s := int64(1); s <= 2*od+1; s += 2 {
			require.True(t, slices.Contains(slots, s), "own committed slot %d not visible", s)
		}
		mu.Lock()
		started := ownStarted // taken after the read: an upper bound of what it could see
		mu.Unlock()
		for _, s := range slots {
			require.Less(t, s, 2*int64(n), "slot %d was never written", s)
			if s%2 == 1 {
				require.LessOrEqual(t, s, 2*started+1, "own slot %d claimed before its Record began", s)
			}
		}
		reads++
		if cd == n-1 && od == n-1 {
			break
		}
	}
	wg.Wait()
	require.NoError(t, c.cmd.Wait(), "the child wrote all its calls")
	fs := mustFile(t, l, "/j/even")
	require.Equal(t, expectRanges(seq(2*n)), fs.Ranges)
	require.Equal(t, int64(2*n*slotWidth), fs.Watermark)
	t.Logf("%d consistent reads while two processes wrote", reads)
}

// TestReaderProcessSeesCommits checks that a separately opened database
// handle (another process's view: its own pool, file locks and WAL index)
// reads what the child commits while the child is still writing.
func TestReaderProcessSeesCommits(t *testing.T) {
	const g, perG = 2, 60
	db := filepath.Join(t.TempDir(), "ledger.db")
	c := startChild(t, db, "even", 0, perG, g)
	first, ok := <-c.commits
	require.True(t, ok)
	l, err := Open(Config{Path: db})
	require.NoError(t, err)
	defer l.Close()
	reported := []int64{first}
	last := 0
	for i := range c.commits {
		reported = append(reported, i)
		slots := slotsOf(t, mustFile(t, l, "/j/even"))
		for _, r := range reported {
			require.Contains(t, slots, 2*r, "call %d was reported committed before the read", r)
		}
		require.GreaterOrEqual(t, len(slots), last, "a later read lost slots")
		require.LessOrEqual(t, len(slots), g*perG, "more slots than calls")
		last = len(slots)
	}
	require.NoError(t, c.cmd.Wait())
	require.Len(t, reported, g*perG)
	require.Equal(t, expectRanges(evenSlots(g*perG)), mustFile(t, l, "/j/even").Ranges)
}

// seq is 0..n-1.
func seq(n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// evenSlots is 0, 2, .., 2(n-1).
func evenSlots(n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 2 * int64(i)
	}
	return out
}
