package ledger

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// lockPoll is how often a held file lock is tried again.
const lockPoll = 20 * time.Millisecond

// lockStripes bounds the lock files: a path's lock is one of this many,
// chosen by a hash of the path, so a node that saw millions of journals
// keeps 256 small files. Two journals sharing a stripe only wait for each
// other.
const lockStripes = 256

// heldKey is the context key of the file locks a caller holds.
type heldKey struct{}

// LockFile takes the shipping lock of the journal at path, shared by every
// process using this ledger (the plugin's workers, `journalship ship`, the
// finalizer): whoever holds it reads the ranges already shipped, ships the
// rest and records it, so two shippers never send the same byte range at
// the same time. It waits until the lock is free or ctx ends.
//
// The lock is an flock on one of lockStripes files in <ledger>.locks/,
// chosen by a hash of the path, so it is released when its holder dies,
// and it serializes the goroutines of one process as well (each takes its
// own descriptor). The returned context records the lock: LockFile with it
// (a nested call of the same caller, e.g. the finalizer shipping through
// the pipeline) returns at once. A caller taking several locks takes them
// in LockOrder, so two callers never wait for each other in a circle.
// unlock releases it; it must be called once.
func (l *Ledger) LockFile(ctx context.Context, path string) (context.Context, func(), error) {
	stripe := LockOrder(path)
	if held, _ := ctx.Value(heldKey{}).(map[int]bool); held[stripe] {
		return ctx, func() {}, nil
	}
	f, err := l.openLock(stripe)
	if err != nil {
		return ctx, nil, &Error{Op: "lock", Path: path, Kind: ErrUnusable, Err: err}
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return ctx, nil, &Error{Op: "lock", Path: path, Kind: ErrIO, Err: err}
		}
		select {
		case <-ctx.Done():
			f.Close()
			return ctx, nil, &Error{Op: "lock", Path: path, Kind: ErrCanceled, Err: ctx.Err()}
		case <-time.After(lockPoll):
		}
	}
	held, _ := ctx.Value(heldKey{}).(map[int]bool)
	next := make(map[int]bool, len(held)+1)
	for k := range held {
		next[k] = true
	}
	next[stripe] = true
	unlock := func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
	return context.WithValue(ctx, heldKey{}, next), unlock, nil
}

// LockOrder is the order in which a caller holding several file locks
// takes them: the index of the path's lock stripe.
func LockOrder(path string) int {
	sum := sha256.Sum256([]byte(path))
	return int(sum[0]) % lockStripes
}

// openLock opens (creating) the lock file of a stripe.
func (l *Ledger) openLock(stripe int) (*os.File, error) {
	dir := l.c.path + ".locks"
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(dir, strconv.Itoa(stripe)+".lock"), os.O_CREATE|os.O_RDWR, 0o640)
}
