package journalfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadTail(t *testing.T) {
	cases := []struct {
		name, data string
		window     int64
		from       int64
		partial    string
		last       string
		hasLast    bool
	}{
		{"empty", "", 1024, 0, "", "", false},
		{"only a partial line", `{"type":"SESS`, 1024, 0, `{"type":"SESS`, "", false},
		{"complete lines", "a\nbb\r\n", 1024, 6, "", "bb", true},
		{"lines and a torn tail", "a\nbb\ncc", 1024, 5, "cc", "bb", true},
		{"one complete line", "a\n", 1024, 2, "", "a", true},
		{"last line longer than the window", "a\n" + strings.Repeat("x", 50) + "\n", 20, 53, "", "", false},
		{"no newline in the window", "a\n" + strings.Repeat("x", 50), 20, -1, "", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tc.data), 0o644))
			got, err := ReadTail(path, tc.window)
			require.NoError(t, err)
			assert.Equal(t, int64(len(tc.data)), got.Size)
			assert.Equal(t, tc.from, got.From)
			assert.Equal(t, tc.partial, string(got.Partial))
			assert.Equal(t, tc.hasLast, got.Last != nil)
			assert.Equal(t, tc.last, string(got.Last))
		})
	}
	_, err := ReadTail(t.TempDir(), 10)
	assert.ErrorContains(t, err, "not a regular file")
}

// TestReadTailGrowsPastItsFirstRead: a last complete line longer than the
// first read is still found whole, as is a torn line after it.
func TestReadTailGrowsPastItsFirstRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	long := strings.Repeat("x", 3*firstTailRead)
	require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n"+long+"\n{\"torn"), 0o644))
	tail, err := ReadTail(p, 1<<20)
	require.NoError(t, err)
	assert.Equal(t, long, string(tail.Last))
	assert.Equal(t, `{"torn`, string(tail.Partial))
	assert.Equal(t, int64(8+len(long)+1), tail.From)
}
