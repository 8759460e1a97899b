package main

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dropCorpus writes the corpus under root to the disk and evicts it from
// the page cache. Every run then starts from the same cache: tail reads
// each journal from the disk, as it does a journal it did not just see
// written. Without it a run would find the pages an earlier run's output
// left cached (tail evicts what it read, File_Cache_Advise; an output
// that reads a journal again caches it for the next run).
func dropCorpus(root string) error {
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
