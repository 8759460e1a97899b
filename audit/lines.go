package audit

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// readBufSize is the bufio buffer: lines shorter than this are handed out
// without a copy.
const readBufSize = 256 << 10

// headBytes is how much of an over-long line is kept for its preview.
const headBytes = 4 * PreviewChars

// rawLine is one line of the file, without its "\n".
type rawLine struct {
	data     []byte // the line; nil when oversize. Valid until the next call.
	offset   int64  // offset of its first byte
	length   int64  // its length in bytes
	oversize bool   // longer than the limit: only head is kept
	head     []byte // oversize: its first headBytes bytes
	blank    bool   // oversize: ASCII whitespace only
	nuls     int64  // oversize: NUL bytes counted while streaming
}

// lineReader splits a stream on "\n" in bounded memory.
type lineReader struct {
	br   *bufio.Reader
	max  int
	off  int64  // offset of the next unread byte
	long []byte // a line that spans several buffers
	done bool
}

// newLineReader reads from br, whose buffer must be readBufSize long.
func newLineReader(br *bufio.Reader, max int) *lineReader {
	return &lineReader{br: br, max: max}
}

// peek returns up to n bytes from the start without consuming them.
func (lr *lineReader) peek(n int) []byte {
	b, _ := lr.br.Peek(n)
	return b
}

// next returns the next line; io.EOF after the last one (a final line
// without "\n" is returned first); another error when reading fails.
func (lr *lineReader) next() (rawLine, error) {
	if lr.done {
		return rawLine{}, io.EOF
	}
	if cap(lr.long) > keepLongCap {
		lr.long = nil // do not keep a huge buffer for the rest of the file
	}
	lr.long = lr.long[:0]
	l := rawLine{offset: lr.off}
	for {
		chunk, err := lr.br.ReadSlice('\n')
		lr.off += int64(len(chunk))
		switch {
		case err == nil:
			lr.add(&l, chunk[:len(chunk)-1], true)
			return lr.finish(l), nil
		case errors.Is(err, bufio.ErrBufferFull):
			lr.add(&l, chunk, false)
		case errors.Is(err, io.EOF):
			lr.done = true
			if l.length == 0 && len(chunk) == 0 {
				return rawLine{}, io.EOF
			}
			lr.add(&l, chunk, true)
			return lr.finish(l), nil
		default:
			lr.done = true
			return rawLine{}, err
		}
	}
}

// keepLongCap is the largest line buffer kept between lines.
const keepLongCap = 4 << 20

// add appends one piece of the current line; last is true for its final
// piece. A line that fits the read buffer is handed out without a copy.
func (lr *lineReader) add(l *rawLine, chunk []byte, last bool) {
	l.length += int64(len(chunk))
	switch {
	case l.oversize:
		lr.countTail(l, chunk)
	case l.length > int64(lr.max):
		l.oversize, l.blank = true, true
		lr.countTail(l, lr.long)
		lr.countTail(l, chunk)
		lr.long = lr.long[:0]
	case last && len(lr.long) == 0:
		l.data = chunk
	default:
		lr.long = append(lr.long, chunk...)
		if last {
			l.data = lr.long
		}
	}
}

// countTail accounts for bytes of an oversize line that are not kept.
func (lr *lineReader) countTail(l *rawLine, b []byte) {
	if len(l.head) < headBytes {
		n := min(headBytes-len(l.head), len(b))
		l.head = append(l.head, b[:n]...)
	}
	l.nuls += int64(bytes.Count(b, []byte{0}))
	if l.blank {
		for _, c := range b {
			if c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f' {
				l.blank = false
				break
			}
		}
	}
}

func (lr *lineReader) finish(l rawLine) rawLine {
	if l.oversize {
		l.data = nil
	}
	return l
}
