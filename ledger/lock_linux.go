package ledger

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLockByte takes an exclusive open file description lock on byte
// stripe of f without waiting; free is false when another open of the
// file holds it. Such a lock belongs to the open file, not the process
// (so it excludes other processes and other opens, not this open's other
// users: the stripes' semaphores do that), and is released when the file
// is closed, also by the holder's death.
func tryLockByte(f *os.File, stripe int) (free bool, err error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: int64(stripe), Len: 1}
	err = unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
		return false, nil
	}
	return err == nil, err
}

// unlockByte releases the lock on byte stripe of f.
func unlockByte(f *os.File, stripe int) error {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: 0, Start: int64(stripe), Len: 1}
	return unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
}
