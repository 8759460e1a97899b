package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// recordReq is a write request recording segs, as Record builds it.
func recordReq(t *testing.T, segs ...Segment) *writeReq {
	t.Helper()
	plans, err := plan(segs)
	require.NoError(t, err)
	return &writeReq{ctx: context.Background(), done: make(chan error, 1), fn: func(w *wtx) error {
		return recordFiles(w, plans, 1)
	}}
}

// fnReq is a write request running fn.
func fnReq(fn func(*wtx) error) *writeReq {
	return &writeReq{ctx: context.Background(), done: make(chan error, 1), fn: fn}
}

func TestRunBatchIsolatesCalls(t *testing.T) {
	l := openTest(t)
	refused := fnReq(func(w *wtx) error { return checkCovered(w, "/j/a", 100, 100) })
	writesThenFails := fnReq(func(w *wtx) error {
		if err := recordFiles(w, []filePlan{{path: "/j/c", ranges: []Range{rg(0, 10, 1)}}}, 1); err != nil {
			return err
		}
		return errors.New("call-local failure after writing")
	})
	reqs := []*writeReq{recordReq(t, seg("/j/a", 0, 10, 1)), refused, writesThenFails, recordReq(t, seg("/j/b", 0, 10, 1))}
	errs := l.c.runBatch(reqs)
	require.NoError(t, errs[0])
	requireKind(t, errs[1], ErrNotCovered)
	require.ErrorContains(t, errs[2], "call-local failure")
	require.NoError(t, errs[3])
	require.Equal(t, []Range{rg(0, 10, 1)}, mustFile(t, l, "/j/a").Ranges)
	require.Equal(t, []Range{rg(0, 10, 1)}, mustFile(t, l, "/j/b").Ranges)
	require.Equal(t, FileState{Path: "/j/c", Size: -1}, mustFile(t, l, "/j/c"), "rolled back to its savepoint")
}

func TestRunBatchTransactionFailureFailsAll(t *testing.T) {
	l := openTest(t)
	ioErr := &Error{Op: "test", Kind: ErrIO, Err: errors.New("disk on fire")}
	reqs := []*writeReq{
		recordReq(t, seg("/j/a", 0, 10, 1)),
		fnReq(func(w *wtx) error { return checkCovered(w, "/j/x", 1, 1) }),
		fnReq(func(*wtx) error { return ioErr }),
		recordReq(t, seg("/j/b", 0, 10, 1)),
	}
	errs := l.c.runBatch(reqs)
	require.ErrorIs(t, errs[0], ioErr)
	requireKind(t, errs[1], ErrNotCovered) // its own outcome stands
	require.ErrorIs(t, errs[2], ioErr)
	require.ErrorIs(t, errs[3], ioErr, "calls after the failure are not run")
	files, err := l.Files(context.Background())
	require.NoError(t, err)
	require.Empty(t, files, "nothing of the transaction was committed")
}

func TestGroupCommit(t *testing.T) {
	l := openTest(t)
	const n = 8
	l.c.wsem <- struct{}{} // hold the write slot so that the calls queue up
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.Record(context.Background(), []Segment{seg(fmt.Sprint("/j/", i), 0, 10, 1)})
		}()
	}
	require.Eventually(t, func() bool {
		l.c.qmu.Lock()
		defer l.c.qmu.Unlock()
		return len(l.c.pending) == n
	}, 5*time.Second, time.Millisecond)
	<-l.c.wsem
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "call %d", i)
	}
	files, err := l.Files(context.Background())
	require.NoError(t, err)
	require.Len(t, files, n)
}

func TestCanceledWhileQueuedHasNoEffect(t *testing.T) {
	l := openTest(t)
	l.c.wsem <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := l.Record(ctx, []Segment{seg("/j/a", 0, 10, 1)})
	requireKind(t, err, ErrCanceled)
	l.c.qmu.Lock()
	require.Empty(t, l.c.pending, "the canceled call withdrew")
	l.c.qmu.Unlock()
	<-l.c.wsem
	require.Empty(t, mustFile(t, l, "/j/a").Ranges)

	// A call whose context ends after it queued but before a transaction
	// takes it is answered without running.
	gone, stop := context.WithCancel(context.Background())
	req := recordReq(t, seg("/j/b", 0, 10, 1))
	req.ctx = gone
	l.c.enqueue(req)
	stop()
	l.c.commitPending()
	require.ErrorIs(t, <-req.done, context.Canceled)
	require.Empty(t, mustFile(t, l, "/j/b").Ranges)
}
