//go:build !linux

package ledger

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// Without open file description locks, every stripe shares one flock of
// the whole lock file between processes (correct, only coarser): the
// process takes it when its first stripe is locked and releases it with
// its last.
var flocks struct {
	sync.Mutex
	held map[*os.File]int
}

// tryLockByte takes f's exclusive flock for stripe without waiting; free
// is false when another process holds it.
func tryLockByte(f *os.File, _ int) (free bool, err error) {
	flocks.Lock()
	defer flocks.Unlock()
	if flocks.held[f] > 0 {
		flocks.held[f]++
		return true, nil
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if flocks.held == nil {
		flocks.held = map[*os.File]int{}
	}
	flocks.held[f] = 1
	return true, nil
}

// unlockByte releases stripe's share of f's flock.
func unlockByte(f *os.File, _ int) error {
	flocks.Lock()
	defer flocks.Unlock()
	if flocks.held[f]--; flocks.held[f] > 0 {
		return nil
	}
	delete(flocks.held, f)
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
