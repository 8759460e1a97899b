// Package deadletter keeps the lines Loki refused for good, each with the
// reason, in an append-only JSONL file. A line lands here instead of being
// dropped: together with Loki and the metrics, this file is where every
// journal line ends up.
package deadletter

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Config says where dead letters go.
type Config struct {
	// Path of the JSONL file. Default /var/lib/journalship/deadletter.jsonl.
	Path string
	// Sync fsyncs after every write (default true): a dead letter must be
	// durable before the plugin tells Fluent Bit the chunk is done.
	Sync bool
}

// DefaultConfig returns the default location.
func DefaultConfig() Config {
	return Config{Path: "/var/lib/journalship/deadletter.jsonl", Sync: true}
}

// Validate checks the path.
func (c Config) Validate() error {
	if c.Path == "" {
		return errors.New("deadletter: path is empty")
	}
	return nil
}

// Entry is one refused line.
type Entry struct {
	Time      time.Time `json:"time"`
	File      string    `json:"file,omitempty"`
	Offset    int64     `json:"offset"`
	HasOffset bool      `json:"-"`
	Line      []byte    `json:"-"`
	Reason    string    `json:"reason"`
	// Stage is where the line was refused: "decode", "pipeline" or "loki".
	Stage string `json:"stage"`
	Tag   string `json:"tag,omitempty"`
}

type record struct {
	Entry
	Time       *time.Time `json:"time,omitempty"`
	TimeRaw    string     `json:"time_raw,omitempty"` // a time JSON cannot hold (outside years 0-9999)
	Offset     *int64     `json:"offset,omitempty"`
	Line       string     `json:"line,omitempty"`
	LineBase64 string     `json:"line_base64,omitempty"`
}

// WriteError is returned when entries could not be made durable. It is
// retryable: the caller must not acknowledge the lines.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("deadletter: write %s: %v", e.Path, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// Retryable is always true: a full or failing disk may recover.
func (e *WriteError) Retryable() bool { return true }

// Writer appends entries. It is safe for concurrent use, and several
// processes (the plugin, the CLI, the retention agent) may append to the
// same path: each write takes an exclusive flock on the file.
//
// Two things an operator or the disk may do are handled, so a dead letter
// is never counted as kept while it is not in the file the path names:
//   - The file is removed or rotated while the writer runs: before each
//     write, and again after it, the path is compared with the open file
//     (device and inode); a file that is no longer the path's is closed and
//     the path opened anew. A record that went into a file that stopped
//     being the path's during the write is reported as failed (the caller
//     retries it), never as kept.
//   - The disk fills mid-write: a record is written whole with one write
//     on an O_APPEND descriptor, and when that write (or its fsync) fails
//     the file is truncated back to where it ended before, so no fragment
//     is left for the next record to be glued to. A file found not ending
//     in a newline (a writer killed mid-write) is cut back to its last
//     complete record before anything is appended.
type Writer struct {
	cfg Config
	mu  sync.Mutex
	f   *os.File
	// afterWrite, when set by a test, runs between a write and the check
	// that the path still names the file written to.
	afterWrite func()
}

// Open opens (creating if needed) the dead-letter file for appending.
func Open(cfg Config) (*Writer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &Writer{cfg: cfg}
	if err := w.open(); err != nil {
		return nil, &WriteError{Path: cfg.Path, Err: err}
	}
	return w, nil
}

// open opens the path for appending, creating it and its directory, and
// makes a new file's directory entry durable.
func (w *Writer) open() error {
	dir := filepath.Dir(w.cfg.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	_, statErr := os.Lstat(w.cfg.Path)
	// Read-write: a torn record is found by reading this descriptor, never
	// the path, which may name another file by then.
	f, err := os.OpenFile(w.cfg.Path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o640)
	if err != nil {
		return err
	}
	if errors.Is(statErr, os.ErrNotExist) && w.cfg.Sync {
		if err := syncDir(dir); err != nil {
			f.Close()
			return err
		}
	}
	w.f = f
	return nil
}

// syncDir fsyncs a directory, so a file created in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// current reports whether the path still names the open file.
func (w *Writer) current() bool {
	fi, err := w.f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Stat(w.cfg.Path)
	return err == nil && os.SameFile(fi, pi)
}

// reopen makes w.f the file the path names, if it is not already.
func (w *Writer) reopen() error {
	if w.f != nil && w.current() {
		return nil
	}
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	return w.open()
}

// Path returns the file's path.
func (w *Writer) Path() string { return w.cfg.Path }

// Write appends entries in one write and, with Sync, fsyncs. When it
// returns nil every entry is in the file the path names (durable with
// Sync); otherwise none is counted as written and the caller must retry.
func (w *Writer) Write(entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	var buf []byte
	for _, e := range entries {
		b, err := json.Marshal(toRecord(e))
		if err != nil {
			return &WriteError{Path: w.cfg.Path, Err: err}
		}
		buf = append(append(buf, b...), '\n')
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.appendLocked(buf); err != nil {
		return &WriteError{Path: w.cfg.Path, Err: err}
	}
	if w.afterWrite != nil {
		w.afterWrite()
	}
	if !w.current() {
		return &WriteError{Path: w.cfg.Path, Err: errors.New("the file was removed or replaced during the write; the entries will be written again")}
	}
	return nil
}

// appendLocked appends buf to the file the path names, under an exclusive
// flock (other processes append to the same file), cutting any torn
// record first and undoing a failed write.
func (w *Writer) appendLocked(buf []byte) error {
	unlock, err := w.lockCurrent()
	if err != nil {
		return err
	}
	defer unlock()
	end, err := w.completeEnd()
	if err != nil {
		return err
	}
	if _, err := w.f.Write(buf); err != nil {
		return w.undo(end, err)
	}
	if w.cfg.Sync {
		if err := w.f.Sync(); err != nil {
			return w.undo(end, err)
		}
	}
	return nil
}

// lockCurrent takes the flock of the file the path names: the path is
// checked again once the lock is held, since another process or logrotate
// may have moved the file while this one waited; the file is then opened
// anew and locked in turn.
func (w *Writer) lockCurrent() (func(), error) {
	for range 10 {
		if err := w.reopen(); err != nil {
			return nil, err
		}
		fd := int(w.f.Fd())
		if err := syscall.Flock(fd, syscall.LOCK_EX); err != nil {
			return nil, err
		}
		if w.current() {
			return func() { _ = syscall.Flock(fd, syscall.LOCK_UN) }, nil
		}
		_ = syscall.Flock(fd, syscall.LOCK_UN) // moved while we waited: the next turn opens the path again
	}
	return nil, errors.New("the file keeps being replaced while waiting for its lock")
}

// completeEnd returns the size of the file up to its last complete record,
// truncating a torn one (left by a writer killed mid-write) away. It reads
// and truncates the same descriptor, held under the lock.
func (w *Writer) completeEnd() (int64, error) {
	fi, err := w.f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if size == 0 {
		return 0, nil
	}
	end, err := lastNewlineEnd(w.f, size)
	if err != nil || end == size {
		return end, err
	}
	return end, w.f.Truncate(end)
}

// lastNewlineEnd returns the offset just past the last '\n' of the first
// size bytes of r, or 0 when there is none.
func lastNewlineEnd(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 4096)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := r.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// undo truncates the file back to end after a failed write, so no
// fragment stays; cause is returned, with the truncation's error if that
// failed too.
func (w *Writer) undo(end int64, cause error) error {
	if err := w.f.Truncate(end); err != nil {
		return fmt.Errorf("%w; and truncating back to %d bytes failed: %v", cause, end, err)
	}
	return cause
}

func toRecord(e Entry) record {
	r := record{Entry: e}
	// A broken chunk can carry any time; one JSON cannot encode must not
	// make the dead-letter write (and so the flush) fail forever.
	if y := e.Time.Year(); y >= 0 && y <= 9999 {
		t := e.Time
		r.Time = &t
	} else {
		r.TimeRaw = fmt.Sprintf("unix %d.%09d", e.Time.Unix(), e.Time.Nanosecond())
	}
	if e.HasOffset {
		off := e.Offset
		r.Offset = &off
	}
	if utf8.Valid(e.Line) {
		r.Line = string(e.Line)
	} else {
		r.LineBase64 = base64.StdEncoding.EncodeToString(e.Line)
	}
	return r
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	return w.f.Close()
}
