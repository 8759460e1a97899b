package journalfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
)

// checkerFiles bounds a Checker's memory: when it knows this many files
// it forgets them all and starts again (each is then read once more).
const checkerFiles = 1 << 16

// Checker does what Holds does, remembering the identity of each file it
// has read, so that a file's head is read once per process rather than
// once per flush. Fluent Bit's tail drops a file's pages from memory
// before each read, so every read of a head here would be a disk read.
//
// A file is remembered by its incarnation (device, inode and birth time:
// a freed inode given to a new file has a new birth time) and the size
// last seen. A file that shrank (truncated, perhaps to be rewritten) is
// read again; where the file system gives no birth time nothing is
// remembered. The line at the offset is read on every call: it proves the
// path still holds the line that was read, and was read moments ago, so
// it is usually still in memory. A Checker is safe for concurrent use.
type Checker struct {
	mu    sync.Mutex
	files map[incarnation]known
	max   int // checkerFiles
}

// known is what a Checker remembers of one file.
type known struct {
	id   Identity
	size int64
}

// NewChecker returns an empty Checker.
func NewChecker() *Checker {
	return &Checker{files: map[incarnation]known{}, max: checkerFiles}
}

// Holds is journalfile.Holds, reading the file's head only when the file
// is new to the Checker. A nil Checker remembers nothing.
func (c *Checker) Holds(path string, offset int64, line []byte, size int64) (Identity, error) {
	if size < int64(len(line)) {
		size = int64(len(line))
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	inc, fsize, ok := incarnationOf(f)
	ok = ok && c != nil
	id, hit := Identity(""), false
	if ok {
		id, hit = c.recall(inc, fsize)
	}
	if !hit {
		// The head first: its read starts the kernel's readahead, which
		// for a journal of a few hundred KB brings the line below into
		// memory with it.
		if id, err = IdentityOfFile(f); err != nil {
			return "", err
		}
	}
	if err := holdsLine(f, offset, line, size); err != nil {
		return "", err
	}
	if ok && !hit {
		c.remember(inc, fsize, id)
	}
	return id, nil
}

// recall returns the identity remembered for inc, unless the file shrank
// below the size last seen.
func (c *Checker) recall(inc incarnation, size int64) (Identity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.files[inc]
	if !ok || size < k.size {
		delete(c.files, inc)
		return "", false
	}
	k.size = size
	c.files[inc] = k
	return k.id, true
}

func (c *Checker) remember(inc incarnation, size int64, id Identity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.files) >= c.max {
		clear(c.files)
	}
	c.files[inc] = known{id: id, size: size}
}

// holdsLine checks that f holds line at offset, followed by "\n" or
// "\r\n" after size bytes (ErrChanged when not).
func holdsLine(f *os.File, offset int64, line []byte, size int64) error {
	head := make([]byte, len(line))
	if _, err := f.ReadAt(head, offset); err != nil || !bytes.Equal(head, line) {
		return ErrChanged
	}
	end := make([]byte, 2)
	n, err := f.ReadAt(end, offset+size)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if rest := end[:n]; n == 0 || (rest[0] != '\n' && (n < 2 || rest[0] != '\r' || rest[1] != '\n')) {
		return ErrChanged
	}
	return nil
}
