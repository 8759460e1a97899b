package journalfile

import (
	"bytes"
	"errors"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Holds checks that the file at path holds line at offset, a complete line
// (followed by "\n" or "\r\n"), and returns the file's identity, read
// from the same open file. A line cut short (only its first bytes held)
// has size, its full length, larger than len(line); size 0 means
// len(line). ErrChanged means the path no longer holds that line: the
// file was replaced or rewritten since the line was read, and nothing may
// be recorded for it under this path.
//
// The head is read on every call: a file copied over another (cp keeps
// the inode and its birth time, and the copy may be longer) is told from
// it only by its first line. The head is read first: its read starts the
// kernel's readahead, which for a journal of a few hundred KB brings the
// line into memory with it (Fluent Bit's tail drops a file's pages before
// each read, so what is not in memory is read from disk).
func Holds(path string, offset int64, line []byte, size int64) (Identity, error) {
	return HoldsLines(path, Line{Offset: offset, Text: line, Size: size})
}

// Line is a line as read from a journal: its offset, its bytes (its first
// bytes when cut short) and its full length (0: len(Text)).
type Line struct {
	Offset int64
	Text   []byte
	Size   int64
}

// HoldsLines is Holds for several lines of one file, checked on one open
// of it.
//
// It runs once per file and flush inside Fluent Bit, so it uses the
// system calls themselves (open, fstat, pread, close) rather than an
// *os.File, whose poller registration, finalizer and buffers cost about
// as much as the check's reads; its buffers are on the stack or pooled.
func HoldsLines(path string, lines ...Line) (Identity, error) {
	fd, err := openRead(path)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstat(fd, &st) }); err != nil {
		return "", &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if end := spanOf(lines); end <= spanBytes {
		return holdsInSpan(fd, path, uint64(st.Dev), st.Ino, end, lines)
	}
	return holdsEach(fd, path, uint64(st.Dev), st.Ino, lines)
}

// holdsEach is HoldsLines reading the head, then each line on its own.
func holdsEach(fd int, path string, dev, ino uint64, lines []Line) (Identity, error) {
	var head [FingerprintBytes]byte
	n, err := preadFull(fd, head[:], 0)
	if err != nil {
		return "", &os.PathError{Op: "read", Path: path, Err: err}
	}
	id := identity(dev, ino, head[:n])
	for _, l := range lines {
		err := holdsLine(fd, l.Offset, l.Text, max(l.Size, int64(len(l.Text))))
		if err != nil && !errors.Is(err, ErrChanged) {
			err = &os.PathError{Op: "read", Path: path, Err: err}
		}
		if err != nil {
			return "", err
		}
	}
	return id, nil
}

// spanBytes bounds the one read of holdsInSpan. Most journals, and the
// whole of most flushes of a file, lie within it: one read instead of one
// for the head and two for each line (its bytes, its end of line), which
// inside Fluent Bit were each a system call per file and flush.
const spanBytes = 64 << 10

// spans keep holdsInSpan's buffers.
var spans = sync.Pool{New: func() any { return new([spanBytes]byte) }}

// spanOf is the end of what checking lines reads: the head, and each line
// with the two bytes after it.
func spanOf(lines []Line) int64 {
	end := int64(FingerprintBytes)
	for _, l := range lines {
		if l.Offset < 0 || l.Offset > spanBytes || l.Size > spanBytes || len(l.Text) > spanBytes {
			return spanBytes + 1 // and no sum overflows
		}
		end = max(end, l.Offset+max(l.Size, int64(len(l.Text)))+2)
	}
	return end
}

// holdsInSpan is HoldsLines for lines that lie, with the head, within the
// file's first end bytes (at most spanBytes): one read of them.
func holdsInSpan(fd int, path string, dev, ino uint64, end int64, lines []Line) (Identity, error) {
	buf := spans.Get().(*[spanBytes]byte)
	defer spans.Put(buf)
	n, err := preadFull(fd, buf[:end], 0)
	if err != nil {
		return "", &os.PathError{Op: "read", Path: path, Err: err}
	}
	data := buf[:n]
	for _, l := range lines {
		if !holdsAt(data, l.Offset, l.Text, max(l.Size, int64(len(l.Text)))) {
			return "", ErrChanged
		}
	}
	return identity(dev, ino, data[:min(n, FingerprintBytes)]), nil
}

// holdsAt is holdsLine on the bytes data read from the file's start.
func holdsAt(data []byte, offset int64, line []byte, size int64) bool {
	if offset < 0 || offset+int64(len(line)) > int64(len(data)) || !bytes.Equal(data[offset:offset+int64(len(line))], line) {
		return false
	}
	rest := data[min(offset+size, int64(len(data))):]
	return len(rest) > 0 && (rest[0] == '\n' || (len(rest) > 1 && rest[0] == '\r' && rest[1] == '\n'))
}

// openRead opens path for reading, as os.Open does.
func openRead(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			return fd, nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return -1, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
}

// holdsLine checks that fd holds line at offset, followed by "\n" or
// "\r\n" after size bytes (ErrChanged when not). The line is compared a
// block at a time.
func holdsLine(fd int, offset int64, line []byte, size int64) error {
	var buf [4096]byte
	for done := 0; done < len(line); {
		want := line[done:min(len(line), done+len(buf))]
		n, err := preadFull(fd, buf[:len(want)], offset+int64(done))
		if err != nil || n < len(want) || !bytes.Equal(buf[:n], want) {
			return ErrChanged
		}
		done += n
	}
	n, err := preadFull(fd, buf[:2], offset+size)
	if err != nil {
		return err
	}
	if rest := buf[:n]; n == 0 || (rest[0] != '\n' && (n < 2 || rest[0] != '\r' || rest[1] != '\n')) {
		return ErrChanged
	}
	return nil
}

// preadFull reads into b at offset until b is full or the file ends, and
// returns how much it read.
func preadFull(fd int, b []byte, offset int64) (int, error) {
	done := 0
	for done < len(b) {
		n, err := unix.Pread(fd, b[done:], offset+int64(done))
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return done, err
		case n == 0:
			return done, nil // the end of the file
		}
		done += n
	}
	return done, nil
}

// ignoringEINTR calls fn until it is not interrupted.
func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
