package ledger

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkInvariants asserts that the ranges of fs are sorted, non-empty,
// disjoint and not adjacent, and that Watermark matches them.
func checkInvariants(t testing.TB, fs FileState) {
	t.Helper()
	for i, r := range fs.Ranges {
		assert.Less(t, r.Start, r.End, "%s range %d empty", fs.Path, i)
		if i > 0 {
			assert.Less(t, fs.Ranges[i-1].End, r.Start, "%s ranges %d and %d touch or overlap", fs.Path, i-1, i)
		}
	}
	assert.Equal(t, watermark(fs.Ranges), fs.Watermark)
}

func TestConcurrentRecord(t *testing.T) {
	const (
		workers = 16
		perG    = 20
		width   = 10
	)
	cfg := testConfig(t)
	keep, err := Open(cfg) // keeps the database open across the workers' Open/Close
	require.NoError(t, err)
	defer keep.Close()
	ctx := context.Background()

	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := Open(cfg) // every plugin instance opens its own handle
			if !assert.NoError(t, err) {
				return
			}
			defer func() { assert.NoError(t, l.Close()) }()
			own := fmt.Sprintf("/j/own-%02d", g)
			for i := range perG {
				slot := int64(i*workers + g) // slots of "shared" interleave across workers
				rev := int64(perG - 1 - i)   // own file written back to front
				segs := []Segment{seg("/j/shared", slot*width, (slot+1)*width, 1), seg(own, rev*width, (rev+1)*width, 1)}
				if !assert.NoError(t, l.Record(ctx, segs)) {
					return
				}
			}
		}()
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(1)
	go func() { // a reader in the same process, concurrently
		defer readers.Done()
		var last int64
		for {
			select {
			case <-stop:
				return
			default:
			}
			fs, err := keep.File(ctx, "/j/shared")
			if !assert.NoError(t, err) {
				return
			}
			checkInvariants(t, fs)
			assert.GreaterOrEqual(t, fs.Watermark, last, "watermark went back")
			last = fs.Watermark
		}
	}()
	wg.Wait()
	close(stop)
	readers.Wait()

	files, err := keep.Files(ctx)
	require.NoError(t, err)
	require.Len(t, files, workers+1)
	for g := range workers {
		require.Equal(t, fmt.Sprintf("/j/own-%02d", g), files[g].Path)
		require.Equal(t, []Range{rg(0, perG*width, perG)}, files[g].Ranges)
	}
	shared := files[workers]
	require.Equal(t, "/j/shared", shared.Path)
	require.Equal(t, []Range{rg(0, workers*perG*width, workers*perG)}, shared.Ranges, "no merge was lost")
}
