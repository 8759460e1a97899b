package deadletter

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func entry(line string) Entry {
	return Entry{Time: time.Date(2026, 2, 23, 14, 0, 0, 0, time.UTC), Line: []byte(line), Reason: "test", Stage: "loki"}
}

// lineTexts returns the "line" of every record in path (every record must
// be whole JSON).
func lineTexts(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, r := range readLines(t, path) {
		out = append(out, r["line"].(string))
	}
	return out
}

// TestRemovedOrRotatedFileIsReopened: an operator who moves the file away
// (logrotate) or removes it does not make later dead letters vanish into
// an unlinked file: the next write creates the path anew.
func TestRemovedOrRotatedFileIsReopened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dl.jsonl")
	w, err := Open(Config{Path: path, Sync: true})
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Write([]Entry{entry("a")}))
	require.NoError(t, os.Rename(path, path+".1"))
	require.NoError(t, w.Write([]Entry{entry("b")}))
	assert.Equal(t, []string{"a"}, lineTexts(t, path+".1"), "the rotated file keeps what it had")
	assert.Equal(t, []string{"b"}, lineTexts(t, path), "the path is written again")
	require.NoError(t, os.Remove(path))
	require.NoError(t, w.Write([]Entry{entry("c")}))
	assert.Equal(t, []string{"c"}, lineTexts(t, path))
}

// TestRemovedDuringWriteIsNotCounted: a file removed between the write and
// its check makes Write fail, so the caller does not count the entries as
// kept and writes them again, into the new file.
func TestRemovedDuringWriteIsNotCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dl.jsonl")
	w, err := Open(Config{Path: path, Sync: true})
	require.NoError(t, err)
	defer w.Close()
	w.afterWrite = func() { require.NoError(t, os.Remove(path)) }
	var we *WriteError
	require.ErrorAs(t, w.Write([]Entry{entry("a")}), &we)
	assert.True(t, we.Retryable())
	w.afterWrite = nil
	require.NoError(t, w.Write([]Entry{entry("a")}), "the retry")
	assert.Equal(t, []string{"a"}, lineTexts(t, path))
}

// TestTornRecordIsCutBeforeAppending: a record cut off by a writer killed
// mid-write is removed before the next one, which would otherwise be
// glued to it and be invalid JSON.
func TestTornRecordIsCutBeforeAppending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dl.jsonl")
	w, err := Open(Config{Path: path, Sync: true})
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Write([]Entry{entry("a")}))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"time":"2026-02-23T14:00:00Z","line":"torn`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, w.Write([]Entry{entry("b")}))
	assert.Equal(t, []string{"a", "b"}, lineTexts(t, path))
}

// TestDiskFullLeavesNoFragment fills a real (tmpfs) file system: the write
// that does not fit fails and leaves the file as it was; once space is
// back the retry lands whole after the earlier records. Mounting needs
// root, which CI has (`make test` runs as root to install packages).
func TestDiskFullLeavesNoFragment(t *testing.T) {
	dir := smallFS(t, "64k")
	path := filepath.Join(dir, "dl.jsonl")
	w, err := Open(Config{Path: path, Sync: true})
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Write([]Entry{entry("before")}))
	filler := filepath.Join(dir, "filler")
	fill(t, filler)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	big := strings.Repeat("x", 16<<10)
	err = w.Write([]Entry{entry("small"), entry(big)})
	var we *WriteError
	require.ErrorAs(t, err, &we, "a full disk fails the write")
	assert.ErrorContains(t, err, "no space left on device")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "no fragment, not even the record that fitted")

	require.NoError(t, os.Remove(filler))
	require.NoError(t, w.Write([]Entry{entry("small"), entry(big)}), "space is back")
	assert.Equal(t, []string{"before", "small", big}, lineTexts(t, path))
}

// smallFS mounts a tmpfs of size at a temp dir for the test.
func smallFS(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("a full disk is tested on a small tmpfs, which needs root; CI runs as root")
		}
		t.Skip("a full disk is tested on a small tmpfs, which needs root (CI runs it)")
	}
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	require.NoError(t, err, "mount: %s", out)
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes to path until the file system is full (leaving whatever
// less than one block it cannot take).
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			require.ErrorContains(t, err, "no space left on device")
			return
		}
	}
}

// TestRotationWhileWaitingForTheLock: the file is moved away (and a new
// one created at the path) while this writer waits for another process's
// lock: the moved file keeps every record it had, and the new record goes
// to the file the path names.
func TestRotationWhileWaitingForTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dl.jsonl")
	w, err := Open(Config{Path: path, Sync: true})
	require.NoError(t, err)
	defer w.Close()
	var many []Entry
	for range 200 {
		many = append(many, entry("old"))
	}
	require.NoError(t, w.Write(many))
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	other, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0) // another process, mid-write
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(other.Fd()), syscall.LOCK_EX))
	done := make(chan error, 1)
	go func() { done <- w.Write([]Entry{entry("new")}) }()
	time.Sleep(200 * time.Millisecond) // the writer waits for the lock
	require.NoError(t, os.Rename(path, path+".1"))
	require.NoError(t, os.WriteFile(path, []byte(`{"reason":"x","line":"rotated"}`+"\n"), 0o640))
	require.NoError(t, syscall.Flock(int(other.Fd()), syscall.LOCK_UN))
	require.NoError(t, other.Close())
	require.NoError(t, <-done)
	after, err := os.ReadFile(path + ".1")
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the moved file keeps its dead letters")
	assert.Equal(t, []string{"rotated", "new"}, lineTexts(t, path))
}
