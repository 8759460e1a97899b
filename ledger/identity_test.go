package ledger

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplacedFileStartsOver: ranges recorded for one file are retired
// when the same path is recorded as another file (replaced, or a freed
// inode reused): the new file has nothing shipped, is not finished, and
// cannot be finished with the old file's identity.
func TestReplacedFileStartsOver(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	old, repl := segID("f", 0, 100, 3, "1:10:aa"), segID("f", 0, 40, 1, "1:10:bb")
	require.NoError(t, l.Record(ctx, []Segment{old}))
	require.NoError(t, l.MarkFinished(ctx, "f", "1:10:aa", 100, 100))
	require.True(t, mustFile(t, l, "f").Finished)

	requireKind(t, l.MarkFinished(ctx, "f", "1:10:bb", 100, 100), ErrNotCovered)
	require.NoError(t, l.Record(ctx, []Segment{repl}))
	st := mustFile(t, l, "f")
	require.Equal(t, []Range{rg(0, 40, 1)}, st.Ranges, "the old file's ranges are retired")
	require.False(t, st.Finished)
	require.Equal(t, int64(-1), st.Size)
	require.EqualValues(t, "1:10:bb", st.Identity)
	requireKind(t, l.MarkFinished(ctx, "f", "1:10:aa", 40, 40), ErrNotCovered) // the old identity cannot finish the new file
	require.NoError(t, l.MarkFinished(ctx, "f", "1:10:bb", 40, 40))

	require.NoError(t, l.Record(ctx, []Segment{segID("f", 40, 50, 1, "1:10:bb")}), "appending keeps the ranges")
	require.Equal(t, []Range{{Start: 0, End: 50, FirstSeq: 0, LastSeq: 49, Lines: 2}}, mustFile(t, l, "f").Ranges)
	// One call may not hold two files under one path.
	requireKind(t, l.Record(ctx, []Segment{segID("g", 0, 10, 1, "1:11:aa"), segID("g", 10, 20, 1, "1:12:aa")}), ErrInvalid)
}

// TestFingerprintCompletesIdentity: a file finished while its only line
// was torn (no fingerprint yet) keeps its ranges when its first line is
// later completed and shipped: same device and inode.
func TestFingerprintCompletesIdentity(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	require.NoError(t, l.MarkFinished(ctx, "f", "1:10:", 20, 0))
	require.NoError(t, l.Record(ctx, []Segment{segID("f", 0, 30, 1, "1:10:cc")}))
	st := mustFile(t, l, "f")
	require.EqualValues(t, "1:10:cc", st.Identity)
	require.Equal(t, []Range{rg(0, 30, 1)}, st.Ranges)
}

// TestVersion1LedgerIsMigrated: a ledger written before identities were
// kept opens, keeps its rows with an unknown identity (matching any file,
// as before), and learns the identity at the next record.
func TestVersion1LedgerIsMigrated(t *testing.T) {
	path := rawDB(t,
		`CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL DEFAULT -1,
			finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)), updated_at INTEGER NOT NULL)`,
		`CREATE TABLE ranges (file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
			start_off INTEGER NOT NULL CHECK (start_off >= 0), end_off INTEGER NOT NULL CHECK (end_off > start_off),
			first_seq INTEGER NOT NULL CHECK (first_seq >= -1), last_seq INTEGER NOT NULL CHECK (last_seq >= -1),
			lines INTEGER NOT NULL CHECK (lines >= 0), PRIMARY KEY (file_id, start_off)) WITHOUT ROWID`,
		`CREATE UNIQUE INDEX ranges_by_end ON ranges(file_id, end_off)`,
		`INSERT INTO files (id, path, size, finished, updated_at) VALUES (1, 'f', 10, 1, 0)`,
		`INSERT INTO ranges VALUES (1, 0, 10, 0, 9, 1)`,
		fmt.Sprintf(`PRAGMA application_id = %d`, applicationID),
		`PRAGMA user_version = 1`)
	l, err := Open(Config{Path: path})
	require.NoError(t, err)
	defer l.Close()
	ctx := context.Background()
	st := mustFile(t, l, "f")
	require.True(t, st.Finished)
	require.EqualValues(t, "", st.Identity)
	require.NoError(t, l.Record(ctx, []Segment{segID("f", 10, 20, 1, "1:10:aa")}))
	st = mustFile(t, l, "f")
	require.EqualValues(t, "1:10:aa", st.Identity)
	require.Equal(t, []Range{{Start: 0, End: 20, FirstSeq: 0, LastSeq: 19, Lines: 2}}, st.Ranges)
}

func segID(path string, start, end int64, lines int, id string) Segment {
	s := seg(path, start, end, lines)
	s.Identity = journalfileIdentity(id)
	return s
}

// TestFilesOfIdentity: the files of one identity, whatever their paths
// (a journal renamed, a hard link), and none for the unknown identity.
func TestFilesOfIdentity(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	require.NoError(t, l.Record(ctx, []Segment{
		segID("/j/old", 0, 10, 1, "1:2:aa"), segID("/j/new", 10, 20, 1, "1:2:aa"), segID("/j/other", 0, 5, 1, "1:3:bb"),
	}))
	got, err := l.FilesOfIdentity(ctx, "1:2:aa")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "/j/new", got[0].Path)
	assert.Equal(t, []Range{{Start: 10, End: 20, FirstSeq: 10, LastSeq: 19, Lines: 1}}, got[0].Ranges)
	assert.Equal(t, "/j/old", got[1].Path)
	none, err := l.FilesOfIdentity(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, none)
}
