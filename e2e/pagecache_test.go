package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// dropPages evicts the journals under root from the page cache, as
// Fluent Bit's tail does before each read of a file (File_Cache_Advise,
// on by default): the plugin's checks that a file still holds the lines
// read then go to the disk, as they do inside Fluent Bit.
func dropPages(b *testing.B, root string) {
	b.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := f.Sync(); err != nil { // only clean pages can be dropped
			return err
		}
		return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	})
	if err != nil {
		b.Fatal(err)
	}
}
