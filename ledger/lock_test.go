package ledger

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// otherProcess takes the lock of path's stripe the way another process
// does (its own open of the lock file), and returns its release.
func otherProcess(t *testing.T, l *Ledger, path string) func() {
	t.Helper()
	f, err := openLock(l.Path() + ".lock")
	require.NoError(t, err)
	free, err := tryLockByte(f, LockOrder(path))
	require.NoError(t, err)
	require.True(t, free, "the stripe is free")
	return func() {
		_ = unlockByte(f, LockOrder(path))
		f.Close()
	}
}

// TestLockFileExcludesGoroutines: goroutines of one process locking the
// same journal never hold it at once.
func TestLockFileExcludesGoroutines(t *testing.T) {
	l := openTest(t)
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				_, unlock, err := l.LockFile(context.Background(), "/j/a.jsonl")
				if !assert.NoError(t, err) {
					return
				}
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				inside.Add(-1)
				unlock()
			}
		}()
	}
	wg.Wait()
	assert.Zero(t, overlaps.Load())
}

// TestLockFileWaitsForAnotherProcess: a lock another process holds is
// waited for until it is released, or until the context ends.
func TestLockFileWaitsForAnotherProcess(t *testing.T) {
	l := openTest(t)
	_, unlock, err := l.LockFile(context.Background(), "/j/a.jsonl") // the stripe file opened and kept
	require.NoError(t, err)
	unlock()
	release := otherProcess(t, l, "/j/a.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, leaked, err := l.LockFile(ctx, "/j/a.jsonl")
	if !assert.ErrorIs(t, err, ErrCanceled, "held by the other process") && err == nil {
		leaked()
	}
	release()
	_, unlock, err = l.LockFile(context.Background(), "/j/a.jsonl")
	require.NoError(t, err)
	unlock()
}

// TestLockFileFollowsAReplacedLockFile: the lock file is deleted under a
// running process; another process then locks the new one. The first
// process must wait for it, not lock the deleted file it kept open.
func TestLockFileFollowsAReplacedLockFile(t *testing.T) {
	l := openTest(t)
	_, unlock, err := l.LockFile(context.Background(), "/j/a.jsonl")
	require.NoError(t, err)
	unlock()
	require.NoError(t, os.Remove(l.Path()+".lock"))
	release := otherProcess(t, l, "/j/a.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, leaked, err := l.LockFile(ctx, "/j/a.jsonl")
	if !assert.ErrorIs(t, err, ErrCanceled, "the other process holds the stripe file the name gives now") && err == nil {
		leaked()
	}
	release()
	_, unlock, err = l.LockFile(context.Background(), "/j/a.jsonl")
	require.NoError(t, err)
	unlock()
}

// TestLockFileNested: a caller holding a journal's lock locks it again at
// once (the finalizer shipping through the pipeline).
func TestLockFileNested(t *testing.T) {
	l := openTest(t)
	ctx, unlock, err := l.LockFile(context.Background(), "/j/a.jsonl")
	require.NoError(t, err)
	defer unlock()
	done := make(chan error, 1)
	go func() {
		_, inner, err := l.LockFile(ctx, "/j/a.jsonl")
		if err == nil {
			inner()
		}
		done <- err
	}()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("a nested lock waited for itself")
	}
}

// TestLockFileStripesAreIndependent: another process holding one stripe
// does not keep this process from locking another, and this process's
// goroutines hold two stripes at once, each released on its own.
func TestLockFileStripesAreIndependent(t *testing.T) {
	l := openTest(t)
	a := "/j/a.jsonl"
	b := otherStripe(t, a)
	c := otherStripe(t, a, b)
	release := otherProcess(t, l, a)
	defer release()
	_, unlockB, err := l.LockFile(context.Background(), b)
	require.NoError(t, err, "another stripe is free")
	_, unlockC, err := l.LockFile(context.Background(), c)
	require.NoError(t, err)
	unlockB()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	f, err := openLock(l.Path() + ".lock")
	require.NoError(t, err)
	defer f.Close()
	free, err := tryLockByte(f, LockOrder(c))
	require.NoError(t, err)
	assert.False(t, free, "the stripe still held by this process excludes another")
	free, err = tryLockByte(f, LockOrder(b))
	require.NoError(t, err)
	assert.True(t, free, "the stripe released is free for another process")
	require.NoError(t, unlockByte(f, LockOrder(b)))
	unlockC()
	_, leaked, err := l.LockFile(ctx, a)
	if !assert.ErrorIs(t, err, ErrCanceled, "the other process's stripe") && err == nil {
		leaked()
	}
}

// TestLockFileIsOneFile: a thousand journals lock through one lock file.
func TestLockFileIsOneFile(t *testing.T) {
	l := openTest(t)
	for i := range 1000 {
		_, unlock, err := l.LockFile(context.Background(), "/j/"+strconv.Itoa(i)+".jsonl")
		require.NoError(t, err)
		unlock()
	}
	matches, err := filepath.Glob(l.Path() + ".lock*")
	require.NoError(t, err)
	assert.Equal(t, []string{l.Path() + ".lock"}, matches)
}

// otherStripe returns a journal path whose stripe is none of paths'.
func otherStripe(t *testing.T, paths ...string) string {
	t.Helper()
	for i := range 100000 {
		p := "/j/other-" + strconv.Itoa(i) + ".jsonl"
		if !slices.ContainsFunc(paths, func(q string) bool { return LockOrder(q) == LockOrder(p) }) {
			return p
		}
	}
	t.Fatal("no path found")
	return ""
}
