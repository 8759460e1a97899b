package pagecache

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// resident counts the pages of path in the page cache (mincore).
func resident(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	require.NoError(t, err)
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	require.Zero(t, errno)
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

func TestDropEvictsFilesUnderRoot(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a", "s.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, make([]byte, 1<<20), 0o644))
	if resident(t, path) == 0 {
		t.Fatal("a file just written is expected in the page cache")
	}
	require.NoError(t, Drop(root))
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(root, &st))
	if st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC {
		// The page cache is the file's only copy there: nothing to evict.
		t.Logf("%s is in memory: Drop can only leave the file whole", root)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Len(t, data, 1<<20)
	} else {
		assert.Zero(t, resident(t, path))
	}
	assert.Error(t, Drop(filepath.Join(root, "missing")))
}
