package audit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTreeWalksJournals(t *testing.T) {
	root := t.TempDir()
	clean := journal(cleanSession(2)...)
	crashed, _ := crash()
	writeJournal(t, filepath.Join(root, "jobA", "session_1.jsonl"), clean)
	writeJournal(t, filepath.Join(root, "jobA", "session_2.jsonl"), crashed)
	writeJournal(t, filepath.Join(root, "jobA", "notes.txt"), "not a journal")
	writeJournal(t, filepath.Join(root, "jobB", "nested", "session_3.jsonl"), clean)
	mkfifo(t, filepath.Join(root, "jobB", "pipe.jsonl"))
	require.NoError(t, os.Symlink(filepath.Join(root, "jobA", "session_1.jsonl"), filepath.Join(root, "link.jsonl")))
	require.NoError(t, os.Symlink(filepath.Join(root, "jobA"), filepath.Join(root, "linkdir")))
	other := filepath.Join(t.TempDir(), "explicit.log")
	writeJournal(t, other, clean)
	linkArg := filepath.Join(t.TempDir(), "arg-link")
	require.NoError(t, os.Symlink(filepath.Join(root, "jobB"), linkArg))

	cfg := DefaultConfig()
	cfg.JobDirSizeAlert = int64(len(clean) + len(crashed) - 1)
	var got []Report
	jobs, err := Tree([]string{root, other, filepath.Join(root, "missing"), linkArg}, cfg, func(r Report) { got = append(got, r) })
	require.NoError(t, err)

	var paths []string
	for _, r := range got {
		paths = append(paths, r.Path)
	}
	assert.Equal(t, []string{
		filepath.Join(root, "jobA", "session_1.jsonl"),
		filepath.Join(root, "jobA", "session_2.jsonl"),
		filepath.Join(root, "jobB", "nested", "session_3.jsonl"),
		filepath.Join(root, "jobB", "pipe.jsonl"),
		other,
		filepath.Join(root, "missing"),
		filepath.Join(linkArg, "nested", "session_3.jsonl"), // a named symlink is followed
		filepath.Join(linkArg, "pipe.jsonl"),
	}, paths, "lexical order, *.jsonl only, symlinks inside the tree not followed")

	assert.Equal(t, Clean, got[0].Level())
	assert.Equal(t, Warning, got[1].Level())
	assert.Equal(t, []string{"not a regular file (named pipe)"}, got[3].Problems)
	assert.Equal(t, Corrupt, got[3].Level())
	assert.Equal(t, Clean, got[4].Level(), "a file named explicitly is audited whatever its name")
	assert.Equal(t, []string{"no such file or directory"}, got[5].Problems)
	assert.Equal(t, SeverityUnreadable, got[5].Severity)

	require.Len(t, jobs, 6)
	assert.Equal(t, JobReport{Dir: filepath.Join(root, "jobA"), Size: int64(len(clean) + len(crashed)), Files: 2, SizeAlert: true}, jobs[0])
	assert.Equal(t, JobReport{Dir: filepath.Join(root, "jobB"), Size: 0, Files: 1}, jobs[1])
	assert.Equal(t, JobReport{Dir: filepath.Join(root, "jobB", "nested"), Size: int64(len(clean)), Files: 1}, jobs[2])
}

func TestTreeNeedsPaths(t *testing.T) {
	_, err := Tree(nil, DefaultConfig(), func(Report) {})
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, "audit: tree: invalid argument: no paths given")
}

func TestTreeUnreadableDirectoryAndFile(t *testing.T) {
	root := t.TempDir()
	writeJournal(t, filepath.Join(root, "ok.jsonl"), journal(cleanSession(1)...))
	writeJournal(t, filepath.Join(root, "secret.jsonl"), journal(cleanSession(1)...))
	writeJournal(t, filepath.Join(root, "locked", "hidden.jsonl"), journal(cleanSession(1)...))
	require.NoError(t, os.Chmod(filepath.Join(root, "secret.jsonl"), 0))
	require.NoError(t, os.Chmod(filepath.Join(root, "locked"), 0))
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, "locked"), 0o755) })
	require.NoError(t, chmodParents(filepath.Join(root, "x")))

	res := asUnprivileged(t, "AUDIT_HELPER_TREE="+root)
	assert.Empty(t, res.Err, "an unreadable entry does not abort the walk")
	require.Len(t, res.Reports, 3)
	assert.Equal(t, filepath.Join(root, "locked"), res.Reports[0].Path)
	assert.Equal(t, []string{"permission denied"}, res.Reports[0].Problems)
	assert.Equal(t, SeverityUnreadable, res.Reports[0].Severity)
	assert.Equal(t, Clean, res.Reports[1].Level())
	assert.Equal(t, filepath.Join(root, "secret.jsonl"), res.Reports[2].Path)
	assert.Equal(t, []string{"permission denied"}, res.Reports[2].Problems)
	assert.Equal(t, Corrupt, res.Reports[2].Level())
}
