package journalfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// incarnation names one file for as long as it exists: a new file given
// a freed inode has another birth time.
type incarnation struct {
	dev, ino  uint64
	btime     int64
	btimeNsec uint32
}

// incarnationOf returns f's incarnation and size; ok is false when the
// file system gives no birth time.
func incarnationOf(f *os.File) (inc incarnation, size int64, ok bool) {
	var st unix.Statx_t
	if err := unix.Statx(int(f.Fd()), "", unix.AT_EMPTY_PATH, unix.STATX_INO|unix.STATX_SIZE|unix.STATX_BTIME, &st); err != nil {
		return inc, 0, false
	}
	if st.Mask&unix.STATX_BTIME == 0 || st.Mask&unix.STATX_INO == 0 {
		return inc, 0, false
	}
	dev := unix.Mkdev(st.Dev_major, st.Dev_minor)
	return incarnation{dev: dev, ino: st.Ino, btime: st.Btime.Sec, btimeNsec: st.Btime.Nsec}, int64(st.Size), true
}
