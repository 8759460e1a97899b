package journalfile

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHoldsLines: lines of any length, in one open, each checked whole
// with its end of line; a difference anywhere in a line, a line not yet
// ended, or a missing file is told; the identity is IdentityOf's.
func TestHoldsLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	long := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16,000 bytes: several blocks
	first := []byte(`{"type":"SESSION_START"}`)
	data := append(append(append(append([]byte{}, first...), '\n'), long...), "\r\n{\"end\":1}"...)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	longAt := int64(len(first) + 1)
	want, err := IdentityOf(p)
	require.NoError(t, err)

	id, err := HoldsLines(p, Line{Offset: 0, Text: first}, Line{Offset: longAt, Text: long})
	require.NoError(t, err)
	assert.Equal(t, want, id)
	_, err = HoldsLines(p, Line{Offset: longAt, Text: long[:100], Size: int64(len(long))})
	assert.NoError(t, err, "a line cut short: its first bytes and its full length")

	changed := bytes.Clone(long)
	changed[9000] = 'X' // in the third block
	_, err = HoldsLines(p, Line{Offset: 0, Text: first}, Line{Offset: longAt, Text: changed})
	assert.ErrorIs(t, err, ErrChanged)
	_, err = HoldsLines(p, Line{Offset: longAt, Text: long[:len(long)-1]})
	assert.ErrorIs(t, err, ErrChanged, "not followed by its end of line")
	_, err = HoldsLines(p, Line{Offset: int64(len(data) - 9), Text: []byte(`{"end":1}`)})
	assert.ErrorIs(t, err, ErrChanged, "the last line has no newline yet")
	_, err = HoldsLines(p, Line{Offset: int64(len(data)), Text: []byte("x")})
	assert.ErrorIs(t, err, ErrChanged, "past the end")
	_, err = HoldsLines(filepath.Join(filepath.Dir(p), "gone.jsonl"), Line{Offset: 0, Text: first})
	assert.ErrorIs(t, err, fs.ErrNotExist)
}
