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
// chosen by a hash of the path, so it is released when its holder dies.
// Within a process a stripe is also a semaphore, and its file stays open
// (one open per stripe and process, not one per flush and journal); after
// each flock the file is checked to still be the one its name gives, so a
// locks directory deleted or replaced under a running process cannot
// leave it locking a file no one else sees. The returned context records
// the lock: LockFile with it (a nested call of the same caller, e.g. the
// finalizer shipping through the pipeline) returns at once. A caller
// taking several locks takes them in LockOrder, so two callers never wait
// for each other in a circle. unlock releases it; it must be called once.
func (l *Ledger) LockFile(ctx context.Context, path string) (context.Context, func(), error) {
	stripe := LockOrder(path)
	if held, _ := ctx.Value(heldKey{}).(map[int]bool); held[stripe] {
		return ctx, func() {}, nil
	}
	s := &l.c.locks[stripe]
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx, nil, &Error{Op: "lock", Path: path, Kind: ErrCanceled, Err: ctx.Err()}
	}
	if err := l.flockStripe(ctx, s, stripe); err != nil {
		<-s.sem
		err.Path = path
		return ctx, nil, err
	}
	held, _ := ctx.Value(heldKey{}).(map[int]bool)
	next := make(map[int]bool, len(held)+1)
	for k := range held {
		next[k] = true
	}
	next[stripe] = true
	unlock := func() {
		_ = syscall.Flock(int(s.f.Fd()), syscall.LOCK_UN)
		<-s.sem
	}
	return context.WithValue(ctx, heldKey{}, next), unlock, nil
}

// stripeLock is one lock stripe of a process: sem is held by the
// goroutine holding the stripe, f is the stripe's lock file (nil until
// first used), only touched by that goroutine.
type stripeLock struct {
	sem chan struct{}
	f   *os.File
}

// flockStripe takes the flock of stripe s (whose sem the caller holds) on
// the file its name gives now.
func (l *Ledger) flockStripe(ctx context.Context, s *stripeLock, stripe int) *Error {
	name := filepath.Join(l.c.path+".locks", strconv.Itoa(stripe)+".lock")
	for {
		if s.f == nil {
			f, err := openLock(name)
			if err != nil {
				return &Error{Op: "lock", Kind: ErrUnusable, Err: err}
			}
			s.f = f
		}
		if err := flockWait(ctx, s.f); err != nil {
			return err
		}
		if sameFile(s.f, name) {
			return nil
		}
		_ = syscall.Flock(int(s.f.Fd()), syscall.LOCK_UN)
		s.f.Close()
		s.f = nil
	}
}

// flockWait takes f's exclusive flock, polling until it is free or ctx
// ends.
func flockWait(ctx context.Context, f *os.File) *Error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return &Error{Op: "lock", Kind: ErrIO, Err: err}
		}
		select {
		case <-ctx.Done():
			return &Error{Op: "lock", Kind: ErrCanceled, Err: ctx.Err()}
		case <-time.After(lockPoll):
		}
	}
}

// sameFile tells whether the open file f is the file name gives.
func sameFile(f *os.File, name string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(name)
	return err == nil && os.SameFile(a, b)
}

// LockOrder is the order in which a caller holding several file locks
// takes them: the index of the path's lock stripe.
func LockOrder(path string) int {
	sum := sha256.Sum256([]byte(path))
	return int(sum[0]) % lockStripes
}

// openLock opens (creating) a stripe's lock file name, and its directory.
func openLock(name string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(name), 0o750); err != nil {
		return nil, err
	}
	return os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o640)
}

// closeLocks closes the stripes' lock files (the core is closing: no one
// holds a stripe).
func (c *core) closeLocks() {
	for i := range c.locks {
		if f := c.locks[i].f; f != nil {
			f.Close()
			c.locks[i].f = nil
		}
	}
}
