// Package journalfile reads journal files on disk. The plugin uses it to
// look behind a chunk: when the line before a chunk's first line was
// flushed in another chunk (Fluent Bit retries, workers > 1, a restart),
// the file itself says what that line was. Continuity is thus judged by
// file offsets and content, never by the order chunks arrive in.
package journalfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"sync/atomic"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Config bounds how much a look-behind reads.
type Config struct {
	// Window is how many bytes before a line are read at most. Default
	// 256 KiB (the seed's events are 200 B to 2 KB; a TOOL_RESULT tops out
	// near 5 KB).
	Window int
	// FirstLineMax is the longest first line (SESSION_START) read. Default
	// 64 KiB.
	FirstLineMax int
}

// DefaultConfig returns the default bounds.
func DefaultConfig() Config {
	return Config{Window: 256 << 10, FirstLineMax: 64 << 10}
}

// Validate checks the bounds.
func (c Config) Validate() error {
	if c.Window < 4096 {
		return fmt.Errorf("journalfile: window %d is below 4096 bytes", c.Window)
	}
	if c.FirstLineMax < 1024 {
		return fmt.Errorf("journalfile: first line max %d is below 1024 bytes", c.FirstLineMax)
	}
	return nil
}

// ErrChanged means the file on disk no longer holds the line at the offset
// Fluent Bit reported: it was truncated or rewritten. Nothing is judged.
var ErrChanged = errors.New("journalfile: file content does not match the line at this offset")

// Before is what precedes a line in its file.
type Before struct {
	// SeqKnown is true when a sequenced line was found before the line, or
	// when none precedes it in the file (AtStart).
	SeqKnown bool
	AtStart  bool
	// PrevSeq is the highest seq of the lines before the line within the
	// window: exact when the window reaches the file's start (Exact), else
	// the highest of the last Window bytes (stale lines do not lower it).
	PrevSeq int64
	// Exact is true when every line before was read.
	Exact bool
	// Model is the model of the nearest LLM request before the line whose
	// pairing key is the requested one ("" when not found in the window).
	Model string
	// RequestStep and RequestModel are the pairing key and model of the
	// nearest LLM request before the line, whatever its key ("" when none
	// is in the window): a chunk that starts with that request's response
	// needs no second look-behind for its model.
	RequestStep  int64
	RequestModel string
	// Time is the time of the nearest line before with one (HasTime):
	// what a line without a readable time takes.
	Time    time.Time
	HasTime bool
}

// Reader performs look-behinds. It is safe for concurrent use.
type Reader struct {
	cfg   Config
	reads atomic.Int64
}

// Reads returns how many look-behinds read the file so far.
func (r *Reader) Reads() int64 { return r.reads.Load() }

// New returns a Reader.
func New(cfg Config) (*Reader, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reader{cfg: cfg}, nil
}

// Lookbehind reads the file before offset, after checking that line really
// starts there, judging the lines before with j (the file's format). With
// step >= 0 it also looks for the LLM request of that pairing key.
func (r *Reader) Lookbehind(path string, offset int64, line []byte, step int64, j format.Judge) (Before, error) {
	if offset == 0 {
		return Before{SeqKnown: true, AtStart: true}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Before{}, err
	}
	defer f.Close()
	r.reads.Add(1)
	start := max(0, offset-int64(r.cfg.Window))
	buf := make([]byte, offset-start+int64(len(line)))
	n, err := f.ReadAt(buf, start)
	if err != nil && !errors.Is(err, io.EOF) {
		return Before{}, fmt.Errorf("journalfile: read %s at %d: %w", path, start, err)
	}
	buf = buf[:n]
	head := int(offset - start)
	if len(buf) < head+len(line) || !bytes.Equal(buf[head:head+len(line)], line) || buf[head-1] != '\n' {
		return Before{}, ErrChanged
	}
	return scanBack(buf[:head-1], start == 0, step, j), nil
}

// scanBack walks the complete lines of buf from the last one backwards.
// buf ends just before the newline that ends the previous line; atFileStart
// says whether buf begins at the file's first byte.
func scanBack(buf []byte, atFileStart bool, step int64, j format.Judge) Before {
	var a integrity.Arena
	var ev format.Event
	var b Before
	needModel := step >= 0
	for end := len(buf); end >= 0; {
		i := bytes.LastIndexByte(buf[:end], '\n')
		if i < 0 && !atFileStart {
			break // the window's first line is partial
		}
		l := bytes.TrimSuffix(buf[i+1:end], []byte("\r"))
		end = i
		a.Reset(0)
		// The same rule as the pipeline: only a line that is not corrupt and
		// carries a valid seq counts. No file state: the lines are read
		// backwards, each on its own.
		j.Judge(l, nil, &a, &ev)
		if ev.HasTime && !b.HasTime {
			b.Time, b.HasTime = ev.Time, true
		}
		if ev.HasSeq && (!b.SeqKnown || ev.Seq > b.PrevSeq) {
			b.SeqKnown, b.PrevSeq = true, ev.Seq
		}
		if ev.Role == format.RoleLLMRequest && ev.HasPair && len(ev.Model) > 0 {
			if b.RequestModel == "" {
				b.RequestStep, b.RequestModel = ev.Pair, string(ev.Model)
			}
			if needModel && ev.Pair == step {
				b.Model, needModel = string(ev.Model), false
			}
		}
		if i < 0 {
			break
		}
	}
	b.Exact = atFileStart
	if !b.SeqKnown && atFileStart {
		b.SeqKnown, b.AtStart = true, true
	}
	return b
}

// FirstLine returns the file's first line (without its newline), or an
// error when the file cannot be read or has no complete first line within
// FirstLineMax bytes.
func (r *Reader) FirstLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, r.cfg.FirstLineMax)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("journalfile: read %s: %w", path, err)
	}
	i := bytes.IndexByte(buf[:n], '\n')
	if i < 0 {
		return nil, fmt.Errorf("journalfile: %s has no complete first line in %d bytes", path, n)
	}
	return buf[:i], nil
}

// Replay calls fn with each complete line of path before offset, in file
// order (without newline or trailing \r), after checking that line starts
// at offset. It reads at most MaxReplay bytes, streaming: a format whose
// state needs every line is rebuilt this way after a retry or a restart.
func (r *Reader) Replay(path string, offset int64, line []byte, fn func(line []byte)) error {
	if offset <= 0 {
		return nil // nothing before the file's first line
	}
	if offset > MaxReplay {
		return fmt.Errorf("journalfile: %s: %d bytes before the line, more than the %d a replay reads", path, offset, int64(MaxReplay))
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r.reads.Add(1)
	head := make([]byte, len(line)+1)
	n, err := f.ReadAt(head, offset-1)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("journalfile: read %s at %d: %w", path, offset-1, err)
	}
	if n < len(head) || head[0] != '\n' || !bytes.Equal(head[1:], line) {
		return ErrChanged
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, offset), 64<<10)
	for {
		l, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			long := append([]byte(nil), l...)
			for errors.Is(err, bufio.ErrBufferFull) {
				l, err = br.ReadSlice('\n')
				long = append(long, l...)
			}
			l = long
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil // what is left has no newline: not a line yet
			}
			return fmt.Errorf("journalfile: read %s: %w", path, err)
		}
		fn(bytes.TrimSuffix(l[:len(l)-1], []byte("\r")))
	}
}

// MaxReplay bounds what Replay reads: 256 MiB, far above a session's
// journal.
const MaxReplay = 256 << 20
