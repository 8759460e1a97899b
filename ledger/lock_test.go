package ledger

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// otherProcess takes the flock of path's stripe file the way another
// process does (its own open file description), and returns its release.
func otherProcess(t *testing.T, l *Ledger, path string) func() {
	t.Helper()
	name := filepath.Join(l.Path()+".locks", strconv.Itoa(LockOrder(path))+".lock")
	f, err := openLock(name)
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
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

// TestLockFileFollowsAReplacedLockDirectory: the locks directory is
// deleted under a running process; another process then locks the new
// stripe file. The first process must wait for it, not lock the deleted
// file it kept open.
func TestLockFileFollowsAReplacedLockDirectory(t *testing.T) {
	l := openTest(t)
	_, unlock, err := l.LockFile(context.Background(), "/j/a.jsonl")
	require.NoError(t, err)
	unlock()
	require.NoError(t, os.RemoveAll(l.Path()+".locks"))
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
