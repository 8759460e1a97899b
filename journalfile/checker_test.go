package journalfile

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckerRemembersAFilesHead: a Checker reads a file's head once. A
// first line changed in place without the file shrinking is not seen by
// it (what it trades for no read per flush), but is by Holds.
func TestCheckerRemembersAFilesHead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n{\"b\":2}\n"), 0o644))
	c := NewChecker()
	first, err := c.Holds(p, 8, []byte(`{"b":2}`), 0)
	require.NoError(t, err)
	want, err := IdentityOf(p)
	require.NoError(t, err)
	require.Equal(t, want, first)

	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte(`{"a":9}`), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	again, err := c.Holds(p, 8, []byte(`{"b":2}`), 0)
	require.NoError(t, err)
	if hasBirthTime(t, p) {
		assert.Equal(t, first, again, "remembered: the head was not read again")
	} else {
		assert.NotEqual(t, first, again, "no birth time: nothing remembered, the head read again")
	}
	fresh, err := Holds(p, 8, []byte(`{"b":2}`), 0)
	require.NoError(t, err)
	assert.NotEqual(t, first, fresh, "Holds reads the head every time")
}

// TestCheckerSeesReplacedTruncatedAndChangedFiles: appending keeps the
// identity; a file replaced under the name, truncated and rewritten, or
// no longer holding the line is told apart.
func TestCheckerSeesReplacedTruncatedAndChangedFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n{\"b\":2}\n"), 0o644))
	c := NewChecker()
	first, err := c.Holds(p, 8, []byte(`{"b":2}`), 0)
	require.NoError(t, err)

	appendTo(t, p, "{\"c\":3}\n")
	appended, err := c.Holds(p, 16, []byte(`{"c":3}`), 0)
	require.NoError(t, err)
	assert.Equal(t, first, appended, "appending keeps the identity")

	_, err = c.Holds(p, 16, []byte(`{"x":3}`), 0)
	assert.ErrorIs(t, err, ErrChanged, "the line at the offset is read every time")

	require.NoError(t, os.WriteFile(p, []byte("{\"z\":1}\n"), 0o644)) // truncated, rewritten shorter
	shrunk, err := c.Holds(p, 0, []byte(`{"z":1}`), 0)
	require.NoError(t, err)
	assert.False(t, Same(first, shrunk), "a file that shrank is read again")

	tmp := filepath.Join(dir, "new.jsonl")
	require.NoError(t, os.WriteFile(tmp, []byte("{\"z\":1}\n{\"y\":2}\n{\"x\":3}\n"), 0o644))
	require.NoError(t, os.Rename(tmp, p))
	replaced, err := c.Holds(p, 0, []byte(`{"z":1}`), 0)
	require.NoError(t, err)
	want, err := IdentityOf(p)
	require.NoError(t, err)
	assert.Equal(t, want, replaced, "a file replaced under the name is another file")
	assert.False(t, Same(shrunk, replaced))

	require.NoError(t, os.Remove(p))
	_, err = c.Holds(p, 0, []byte(`{"z":1}`), 0)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestCheckerIsBounded: past its bound a Checker forgets what it knew.
func TestCheckerIsBounded(t *testing.T) {
	dir := t.TempDir()
	c := NewChecker()
	c.max = 3
	for i := range 10 {
		p := filepath.Join(dir, strconv.Itoa(i)+".jsonl")
		require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n"), 0o644))
		_, err := c.Holds(p, 0, []byte(`{"a":1}`), 0)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(c.files), 3)
	}
	if hasBirthTime(t, dir+"/0.jsonl") {
		assert.NotEmpty(t, c.files)
	}
}

// hasBirthTime tells whether the file system of p gives birth times (a
// Checker remembers nothing where it does not).
func hasBirthTime(t *testing.T, p string) bool {
	t.Helper()
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	_, _, ok := incarnationOf(f)
	return ok
}
