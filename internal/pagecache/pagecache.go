// Package pagecache evicts files from the kernel's page cache, so that a
// measurement reads them from the disk as Fluent Bit's tail does: tail
// drops a file's pages before each read (File_Cache_Advise, on by
// default), so an output that reads a journal again reads the disk.
package pagecache

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Drop writes every regular file under root to the disk and evicts it
// from the page cache.
func Drop(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := f.Sync(); err != nil { // only clean pages can be evicted
			return err
		}
		return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	})
}
