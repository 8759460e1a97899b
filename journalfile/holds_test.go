package journalfile

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

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

// TestHoldsLinesPastTheSpan is TestHoldsLines for lines beyond
// spanBytes, each checked with reads of its own.
func TestHoldsLinesPastTheSpan(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	head := bytes.Repeat([]byte("h"), spanBytes) // the first line ends past the span
	line := []byte(`{"type":"TOOL_CALL"}`)
	at := int64(len(head) + 1)
	require.NoError(t, os.WriteFile(p, append(append(append(head, '\n'), line...), '\n'), 0o644))
	want, err := IdentityOf(p)
	require.NoError(t, err)
	require.Greater(t, spanOf([]Line{{Offset: at, Text: line}}), int64(spanBytes))
	id, err := HoldsLines(p, Line{Offset: at, Text: line})
	require.NoError(t, err)
	assert.Equal(t, want, id)
	_, err = HoldsLines(p, Line{Offset: at, Text: []byte(`{"type":"TOOL_CALX"}`)})
	assert.ErrorIs(t, err, ErrChanged)
}

// TestHoldsInSpanAgreesWithHoldsEach: on random files and lines (held,
// changed, cut short, past the end, without an end of line), the one
// read of the span and the reads line by line give the same answer.
func TestHoldsInSpanAgreesWithHoldsEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	compared := 0
	for i := range 500 {
		var data []byte
		var lines []Line
		for range 1 + rng.IntN(6) {
			text := bytes.Repeat([]byte{byte('a' + rng.IntN(26))}, 1+rng.IntN(300))
			lines = append(lines, Line{Offset: int64(len(data)), Text: text})
			data = append(data, text...)
			data = append(data, [][]byte{[]byte("\n"), []byte("\r\n"), []byte("\r")}[rng.IntN(3)]...)
		}
		data = data[:len(data)-rng.IntN(2)] // sometimes no end of line at the end
		path := filepath.Join(dir, fmt.Sprintf("%d.jsonl", i))
		require.NoError(t, os.WriteFile(path, data, 0o644))
		var check []Line
		for range 1 + rng.IntN(3) {
			l := lines[rng.IntN(len(lines))]
			switch rng.IntN(5) {
			case 1: // changed
				l.Text = append(bytes.Clone(l.Text[:len(l.Text)-1]), 'Z')
			case 2: // cut short
				l.Size, l.Text = int64(len(l.Text)), l.Text[:rng.IntN(len(l.Text))+1]
			case 3: // moved
				l.Offset += int64(rng.IntN(5)) - 2
			case 4: // past the end
				l.Offset = int64(len(data)) + int64(rng.IntN(3))
			}
			check = append(check, l)
		}
		end := spanOf(check)
		if end > spanBytes {
			continue // a negative offset: HoldsLines reads line by line
		}
		compared++
		fd, err := openRead(path)
		require.NoError(t, err)
		span, spanErr := holdsInSpan(fd, path, 1, 2, end, check)
		each, eachErr := holdsEach(fd, path, 1, 2, check)
		require.NoError(t, unix.Close(fd))
		assert.Equal(t, each, span, "file %d %q lines %+v", i, data, check)
		assert.Equal(t, eachErr, spanErr, "file %d %q lines %+v", i, data, check)
	}
	assert.Greater(t, compared, 300)
}
