package journalfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdentity: appending keeps a file's identity; a file replaced under
// the same name, a new file that got the freed inode back, and a file
// rewritten in place with another first line each get another.
func TestIdentity(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"type":"SESSION_START","session_id":"a"}`), 0o644))
	partial, err := IdentityOf(p)
	require.NoError(t, err)
	_, fp := partial.split()
	assert.Empty(t, fp, "no fingerprint before the first line is complete")

	appendTo(t, p, "\n{\"type\":\"X\"}\n")
	first, err := IdentityOf(p)
	require.NoError(t, err)
	assert.True(t, Same(partial, first), "the first line completed: the same file")
	appendTo(t, p, "{\"type\":\"Y\"}\n")
	again, err := IdentityOf(p)
	require.NoError(t, err)
	assert.Equal(t, first, again, "appending keeps the identity")

	require.NoError(t, os.Remove(p))
	require.NoError(t, os.WriteFile(p, []byte(`{"type":"SESSION_START","session_id":"b"}`+"\n"), 0o644))
	replaced, err := IdentityOf(p)
	require.NoError(t, err)
	assert.False(t, Same(first, replaced), "replaced under the same name")

	fi, err := os.Stat(p)
	require.NoError(t, err)
	dev, ino := statOf(t, fi)
	assert.False(t, Same(identity(dev, ino, []byte("{\"a\":1}\n")), identity(dev, ino, []byte("{\"a\":2}\n"))),
		"a freed inode reused by another file")
	long := strings.Repeat("x", FingerprintBytes+10)
	assert.Equal(t, identity(dev, ino, []byte(long[:FingerprintBytes])), identity(dev, ino, []byte(long[:FingerprintBytes])),
		"a first line longer than FingerprintBytes is fingerprinted on its first bytes")
	assert.True(t, Same("", replaced), "an identity unknown to an old ledger matches")
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func statOf(t *testing.T, fi os.FileInfo) (uint64, uint64) {
	t.Helper()
	st, ok := fi.Sys().(*syscall.Stat_t)
	require.True(t, ok)
	return uint64(st.Dev), st.Ino
}

// TestHoldsSeesAFileRewrittenLargerInPlace: `cp` of another journal over
// a live one truncates it and writes it again, keeping the inode (and its
// birth time), and the copy may be longer than the file was: only its
// first line tells it from the old file, so Holds reads it every time
// (the ledger must never take the copy's bytes for the old file's
// ranges).
func TestHoldsSeesAFileRewrittenLargerInPlace(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n{\"b\":2}\n"), 0o644))
	old, err := Holds(p, 8, []byte(`{"b":2}`), 0)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, []byte("{\"z\":1}\n{\"y\":2}\n{\"x\":3}\n"), 0o644)) // O_TRUNC: same inode
	got, err := Holds(p, 16, []byte(`{"x":3}`), 0)
	require.NoError(t, err)
	assert.False(t, Same(old, got), "another first line: another file")
	_, err = Holds(p, 8, []byte(`{"b":2}`), 0)
	assert.ErrorIs(t, err, ErrChanged)
}

// TestBornSurvivesARename: a file's birth time is kept across a rename
// where the file system has one.
func TestBornSurvivesARename(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, []byte("x\n"), 0o644))
	born, ok := Born(a)
	if !ok {
		_, ok = Born(a)
		assert.False(t, ok, "no birth time here, consistently")
		return
	}
	assert.WithinDuration(t, time.Now(), born, time.Minute)
	require.NoError(t, os.Rename(a, b))
	after, ok := Born(b)
	require.True(t, ok)
	assert.Equal(t, born, after)
	_, ok = Born(a)
	assert.False(t, ok, "gone")
}

func TestHasFingerprint(t *testing.T) {
	for id, want := range map[Identity]bool{"1:2:ab12": true, "1:2:": false, "": false} {
		assert.Equal(t, want, id.HasFingerprint(), "%q", id)
	}
}
