package integrity

// Arena holds copies of extracted values for the lifetime of one batch of
// lines. Slices it returns never move: when a block is full a new block is
// started and the old one stays alive through the slices that point into it.
type Arena struct {
	buf []byte
}

// NewArena returns an arena whose first block holds size bytes.
func NewArena(size int) *Arena {
	return &Arena{buf: make([]byte, 0, size)}
}

// Reset forgets every value, reusing the current block when it is at least
// size bytes long.
func (a *Arena) Reset(size int) {
	if cap(a.buf) < size {
		a.buf = make([]byte, 0, size)
	}
	a.buf = a.buf[:0]
}

// Copy stores b and returns the stored copy (nil for an empty b).
func (a *Arena) Copy(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		n := 2 * cap(a.buf)
		if n < len(b) {
			n = len(b)
		}
		if n < 4096 {
			n = 4096
		}
		a.buf = make([]byte, 0, n)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[start:len(a.buf):len(a.buf)]
}
