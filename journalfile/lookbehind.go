// Package journalfile reads journal files on disk. The plugin uses it to
// look behind a chunk: when the line before a chunk's first line was
// flushed in another chunk (Fluent Bit retries, workers > 1, a restart),
// the file itself says what that line was. Continuity is thus judged by
// file offsets and content, never by the order chunks arrive in.
package journalfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"sync"
	"sync/atomic"

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
	// Model is the model of the nearest LLM_REQUEST before the line whose
	// step_index is the requested step ("" when not found in the window).
	Model string
	// RequestStep and RequestModel are the step_index and model of the
	// nearest LLM_REQUEST before the line, whatever its step ("" when none
	// is in the window): a chunk that starts with that step's LLM_RESPONSE
	// needs no second look-behind for its model.
	RequestStep  int64
	RequestModel string
}

// Reader performs look-behinds. It is safe for concurrent use.
type Reader struct {
	cfg        Config
	validators sync.Pool
	reads      atomic.Int64
}

// Reads returns how many look-behinds read the file so far.
func (r *Reader) Reads() int64 { return r.reads.Load() }

// New returns a Reader.
func New(cfg Config) (*Reader, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Reader{cfg: cfg}
	r.validators.New = func() any {
		v, _ := integrity.New(integrity.DefaultConfig())
		return v
	}
	return r, nil
}

// Lookbehind reads the file before offset, after checking that line really
// starts there. With step >= 0 it also looks for that step's LLM_REQUEST.
func (r *Reader) Lookbehind(path string, offset int64, line []byte, step int64) (Before, error) {
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
	return r.scanBack(buf[:head-1], start == 0, step), nil
}

// scanBack walks the complete lines of buf from the last one backwards.
// buf ends just before the newline that ends the previous line; atFileStart
// says whether buf begins at the file's first byte.
func (r *Reader) scanBack(buf []byte, atFileStart bool, step int64) Before {
	v := r.validators.Get().(*integrity.Validator)
	defer r.validators.Put(v)
	var a integrity.Arena
	var ev integrity.Event
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
		// carries a valid seq counts.
		v.Validate(l, false, &a, &ev)
		if ev.HasSeq && (!b.SeqKnown || ev.Seq > b.PrevSeq) {
			b.SeqKnown, b.PrevSeq = true, ev.Seq
		}
		if ev.Kind == integrity.KindLLMRequest && ev.HasStepIndex && len(ev.Model) > 0 {
			if b.RequestModel == "" {
				b.RequestStep, b.RequestModel = ev.StepIndex, string(ev.Model)
			}
			if needModel && ev.StepIndex == step {
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
