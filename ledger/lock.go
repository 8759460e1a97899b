package ledger

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// lockPoll is how often a held file lock is tried again.
const lockPoll = 20 * time.Millisecond

// lockStripes bounds the locks: a path's lock is one of this many, chosen
// by a hash of the path, so a node that saw millions of journals keeps
// one small lock file. Two journals sharing a stripe only wait for each
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
// The lock is one byte of the lock file <ledger>.lock, the byte of the
// path's stripe (a hash of the path), locked with an open file
// description lock (lock_linux.go), so it is released when its holder
// dies. The file stays open for the process's life: taking a lock costs
// no open and creates no file. Within a process a stripe is also a
// semaphore. After locking, the file is checked to still be the one its
// name gives, so a lock file deleted or replaced under a running process
// cannot leave it locking a file no one else sees. The returned context
// records the lock: LockFile with it (a nested call of the same caller,
// e.g. the finalizer shipping through the pipeline) returns at once.
// unlock releases it; it must be called once.
func (l *Ledger) LockFile(ctx context.Context, path string) (context.Context, func(), error) {
	return l.LockFiles(ctx, []string{path})
}

// LockFiles is LockFile for several journals at once (a flush's files):
// it takes their stripes in LockOrder, so two callers never wait for each
// other in a circle, each stripe once however many of the paths share it,
// and checks the lock file once for all of them. On an error nothing is
// held. unlock releases every lock it took; it must be called once.
func (l *Ledger) LockFiles(ctx context.Context, paths []string) (context.Context, func(), error) {
	if len(paths) == 0 {
		return ctx, func() {}, nil
	}
	if err := l.check("lock", paths[0]); err != nil {
		return ctx, nil, err
	}
	held, _ := ctx.Value(heldKey{}).(map[int]bool)
	stripes := make([]int, 0, len(paths))
	for _, p := range paths {
		if s := LockOrder(p); !held[s] {
			stripes = append(stripes, s)
		}
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	if len(stripes) == 0 {
		return ctx, func() {}, nil
	}
	f, at, err := l.c.locks.lockAll(ctx, l.c.path+".lock", stripes)
	if err != nil {
		for _, p := range paths {
			if LockOrder(p) == at {
				err.Path = p // the journal whose stripe could not be locked
				break
			}
		}
		return ctx, nil, err
	}
	next := make(map[int]bool, len(held)+len(stripes))
	for k := range held {
		next[k] = true
	}
	for _, s := range stripes {
		next[s] = true
	}
	unlock := func() { l.c.locks.unlockAll(f, stripes) }
	return context.WithValue(ctx, heldKey{}, next), unlock, nil
}

// stripeLocks are a process's file locks: a semaphore per stripe, held by
// the goroutine holding the stripe, and the lock file, opened once. A
// lock file replaced under the process is opened again; the old one stays
// open until close, because other stripes may still be locked on it.
type stripeLocks struct {
	sems [lockStripes]chan struct{}
	mu   sync.Mutex
	f    *os.File   // the lock file the name gave when last checked
	old  []*os.File // lock files since replaced
}

func newStripeLocks() *stripeLocks {
	s := &stripeLocks{}
	for i := range s.sems {
		s.sems[i] = make(chan struct{}, 1)
	}
	return s
}

// lockAll takes the semaphores and the bytes of stripes (sorted) on the
// lock file name gives now, and returns the open file they are locked
// on. Either all are taken or none: on an error, at is the stripe that
// could not be taken.
func (s *stripeLocks) lockAll(ctx context.Context, name string, stripes []int) (f *os.File, at int, _ *Error) {
	for k, st := range stripes {
		select {
		case s.sems[st] <- struct{}{}:
		case <-ctx.Done():
			s.release(stripes[:k])
			return nil, st, &Error{Op: "lock", Kind: ErrCanceled, Err: ctx.Err()}
		}
	}
	for {
		f, err := s.file(name)
		if err != nil {
			s.release(stripes)
			return nil, stripes[0], &Error{Op: "lock", Kind: ErrUnusable, Err: err}
		}
		for k, st := range stripes {
			if err := lockWait(ctx, f, st); err != nil {
				s.unlockAll(f, stripes[:k])
				s.release(stripes[k:])
				return nil, st, err
			}
		}
		if sameFile(f, name) {
			return f, 0, nil
		}
		for _, st := range stripes {
			_ = unlockByte(f, st)
		}
		s.replaced(f)
	}
}

// unlockAll releases stripes locked on f, and their semaphores.
func (s *stripeLocks) unlockAll(f *os.File, stripes []int) {
	for i := len(stripes) - 1; i >= 0; i-- {
		_ = unlockByte(f, stripes[i])
		<-s.sems[stripes[i]]
	}
}

// release gives back the semaphores of stripes.
func (s *stripeLocks) release(stripes []int) {
	for _, st := range stripes {
		<-s.sems[st]
	}
}

// file returns the open lock file, opening (creating) it when needed.
func (s *stripeLocks) file(name string) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		f, err := openLock(name)
		if err != nil {
			return nil, err
		}
		s.f = f
	}
	return s.f, nil
}

// replaced sets f aside: its name now gives another file (or none).
func (s *stripeLocks) replaced(f *os.File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == f {
		s.old = append(s.old, f)
		s.f = nil
	}
}

// close closes the lock files (the core is closing: no one holds a
// stripe).
func (s *stripeLocks) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range append(s.old, s.f) {
		if f != nil {
			f.Close()
		}
	}
	s.f, s.old = nil, nil
}

// lockWait locks byte stripe of f, polling until it is free or ctx ends.
func lockWait(ctx context.Context, f *os.File, stripe int) *Error {
	for {
		free, err := tryLockByte(f, stripe)
		if err != nil {
			return &Error{Op: "lock", Kind: ErrIO, Err: err}
		}
		if free {
			return nil
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

// openLock opens (creating) the lock file name, and its directory.
func openLock(name string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(name), 0o750); err != nil {
		return nil, err
	}
	return os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o640)
}
