package journalfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"
)

// Tail is what the end of a journal file holds.
type Tail struct {
	// Identity is the file's, read through the same descriptor as the rest.
	Identity Identity
	Size     int64
	ModTime  time.Time
	// From is the offset just past the last newline: the partial last line
	// starts there. It is -1 when the window read holds no newline and does
	// not reach the file's start.
	From int64
	// Partial is the bytes from From to the end: a line still being written,
	// or cut by a crash.
	Partial []byte
	// Last is the last complete line, without its newline and \r; nil when
	// there is none or it does not start within the window.
	Last []byte
}

// firstTailRead is how much ReadTail reads first; it reads more, up to its
// window, only while the last complete line does not fit (the retention
// agent looks at the tail of every journal at every sweep).
const firstTailRead = 64 << 10

// ReadTail reads at most window bytes from the end of path, a regular file.
func ReadTail(path string, window int64) (Tail, error) {
	fh, err := os.Open(path)
	if err != nil {
		return Tail{}, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return Tail{}, err
	}
	if !info.Mode().IsRegular() {
		return Tail{}, &os.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	id, err := IdentityOfFile(fh)
	if err != nil {
		return Tail{}, err
	}
	t := Tail{Identity: id, Size: info.Size(), ModTime: info.ModTime()}
	for n := min(window, firstTailRead); ; n = min(window, 2*n) {
		start := max(0, t.Size-n)
		buf := make([]byte, t.Size-start)
		if _, err := fh.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return Tail{}, err
		}
		if complete := bytes.Count(buf, []byte{'\n'}) >= 2; complete || start == 0 || n == window {
			return t.from(buf, start), nil
		}
	}
}

// from fills in the tail of a file from its last bytes buf, read at start.
func (t Tail) from(buf []byte, start int64) Tail {
	nl := bytes.LastIndexByte(buf, '\n')
	if nl < 0 {
		t.From = -1
		if start == 0 {
			t.From, t.Partial = 0, buf
		}
		return t
	}
	t.From, t.Partial = start+int64(nl)+1, buf[nl+1:]
	prev := bytes.LastIndexByte(buf[:nl], '\n')
	if prev >= 0 || start == 0 {
		t.Last = bytes.TrimSuffix(buf[prev+1:nl], []byte("\r"))
	}
	return t
}
