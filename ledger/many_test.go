package ledger

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oddPaths are journal paths a list of paths must carry exactly: quotes,
// backslashes, JSON escapes, non-ASCII and bytes that are not UTF-8.
var oddPaths = []string{"/j/plain.jsonl", `/j/"quoted" \back.jsonl`, "/j/caf\u00e9 <&>.jsonl", "/j/\xff\xfe latin1.jsonl", "/j/\\u0041.jsonl"}

// TestRecordManyFiles: one Record call of files new to the ledger, files
// with stored ranges it continues, a file of another identity and a
// finished file recorded past its size, each ends as if recorded alone.
func TestRecordManyFiles(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	require.NoError(t, l.Record(ctx, []Segment{seg("/j/cont", 0, 10, 1), seg("/j/gap", 0, 10, 1),
		{Path: "/j/moved", Identity: "1:2:aa", Start: 0, End: 10, Lines: 1, FirstSeq: 0, LastSeq: 9}}))
	require.NoError(t, l.MarkFinished(ctx, "/j/cont", "", 10, 10))
	segs := []Segment{seg("/j/cont", 10, 20, 1), seg("/j/gap", 30, 40, 1),
		{Path: "/j/moved", Identity: "1:3:bb", Start: 0, End: 5, Lines: 1, FirstSeq: 0, LastSeq: 4},
		seg("/j/new", 0, 10, 1), seg("/j/new", 20, 30, 1), seg("/j/new", 10, 20, 1), seg("/j/two", 0, 5, 1), seg("/j/two", 50, 60, 1),
		{Path: "/j/known", Identity: "7:8:cc", Start: 0, End: 3, Lines: 1, FirstSeq: 0, LastSeq: 2}}
	for _, p := range oddPaths {
		segs = append(segs, seg(p, 0, 7, 1))
	}
	require.NoError(t, l.Record(ctx, segs))

	cont := mustFile(t, l, "/j/cont")
	assert.Equal(t, []Range{rg(0, 20, 2)}, cont.Ranges, "continued")
	assert.False(t, cont.Finished, "recorded past its finished size")
	assert.Equal(t, []Range{rg(0, 10, 1), rg(30, 40, 1)}, mustFile(t, l, "/j/gap").Ranges)
	moved := mustFile(t, l, "/j/moved")
	assert.Equal(t, []Range{rg(0, 5, 1)}, moved.Ranges, "the old file's ranges retired")
	assert.Equal(t, "1:3:bb", string(moved.Identity))
	assert.Equal(t, []Range{rg(0, 30, 3)}, mustFile(t, l, "/j/new").Ranges, "merged within the call")
	assert.Empty(t, mustFile(t, l, "/j/new").Identity, "unknown")
	assert.Equal(t, "7:8:cc", string(mustFile(t, l, "/j/known").Identity), "a new file's identity")
	assert.Equal(t, []Range{rg(0, 5, 1), rg(50, 60, 1)}, mustFile(t, l, "/j/two").Ranges)
	for _, p := range oddPaths {
		assert.Equal(t, []Range{rg(0, 7, 1)}, mustFile(t, l, p).Ranges, "%q", p)
	}
}

// TestFilesOf: one read gives each known path's state as File does, and
// leaves out the paths the ledger does not know.
func TestFilesOf(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	var segs []Segment
	for i, p := range oddPaths {
		segs = append(segs, seg(p, 0, int64(10+i), 1), seg(p, 20, 30, 1))
	}
	require.NoError(t, l.Record(ctx, segs))
	got, err := l.FilesOf(ctx, append([]string{"/j/unknown", oddPaths[0] + "x"}, oddPaths...))
	require.NoError(t, err)
	require.Len(t, got, len(oddPaths))
	for _, p := range oddPaths {
		assert.Equal(t, mustFile(t, l, p), got[p], "%q", p)
	}
	none, err := l.FilesOf(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, none)
	require.NoError(t, l.Close())
	_, err = l.FilesOf(ctx, oddPaths)
	requireKind(t, err, ErrClosed)
}

// TestLockFilesAllOrNothing: paths sharing a stripe lock it once; when
// another process holds one of the stripes, the call fails naming that
// journal and holds none of the others.
func TestLockFilesAllOrNothing(t *testing.T) {
	l := openTest(t)
	a := "/j/a.jsonl"
	a2, b := sameStripe(t, a), otherStripe(t, a)
	ctx, unlock, err := l.LockFiles(context.Background(), []string{a, b, a2, a})
	require.NoError(t, err)
	_, innerUnlock, err := l.LockFiles(ctx, []string{a2, b})
	require.NoError(t, err, "held already: nested")
	innerUnlock()
	unlock()

	release := otherProcess(t, l, b)
	defer release()
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, leaked, err := l.LockFiles(short, []string{a, b})
	if !assert.Error(t, err) {
		leaked()
	}
	requireKind(t, err, ErrCanceled)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, b, e.Path, "the journal whose stripe is held elsewhere")
	otherProcess(t, l, a)() // a's stripe was given back: another process takes it
	_, unlockA, err := l.LockFiles(context.Background(), []string{a})
	require.NoError(t, err, "and so does this one")
	unlockA()
	require.NoError(t, l.Close())
	_, leaked, err = l.LockFiles(context.Background(), []string{a})
	if !assert.Error(t, err) {
		leaked()
	}
	requireKind(t, err, ErrClosed)
}

// sameStripe returns another journal path with path's stripe.
func sameStripe(t *testing.T, path string) string {
	t.Helper()
	for i := range 100000 {
		p := "/j/same-" + strconv.Itoa(i) + ".jsonl"
		if p != path && LockOrder(p) == LockOrder(path) {
			return p
		}
	}
	t.Fatal("no path found")
	return ""
}

// TestClaimBillsMany: one call claims many units at once, keeps the first
// claim of a unit named twice, reports the units others own, and carries
// any owner path exactly; AllBills then gives them all, or says there
// are more than asked for.
func TestClaimBillsMany(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	_, err := l.ClaimBills(ctx, []Bill{{Key: 5, Owner: "/j/first"}})
	require.NoError(t, err)
	bills := []Bill{{Key: 5, Owner: "/j/second"}, {Key: 1 << 63, Owner: "/j/second"}, {Key: 7, Owner: "/j/second"}, {Key: 7, Owner: "/j/third"}}
	for i, p := range oddPaths {
		bills = append(bills, Bill{Key: uint64(100 + i), Owner: p})
	}
	taken, err := l.ClaimBills(ctx, bills)
	require.NoError(t, err)
	assert.ElementsMatch(t, []Bill{{Key: 5, Owner: "/j/first"}, {Key: 7, Owner: "/j/second"}}, taken,
		"5 was claimed before; 7 went to its first claimer in the call")
	for i, p := range oddPaths {
		owner, ok, err := l.BillOwner(ctx, uint64(100+i))
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, p, owner)
	}
	all, complete, err := l.AllBills(ctx, 100)
	require.NoError(t, err)
	assert.True(t, complete)
	assert.Len(t, all, 3+len(oddPaths))
	assert.Contains(t, all, Bill{Key: 1 << 63, Owner: "/j/second"})
	all, complete, err = l.AllBills(ctx, 3)
	require.NoError(t, err)
	assert.False(t, complete)
	assert.Nil(t, all)
}

// TestPutMarks: marks of several sessions are stored in one call, each
// taking its value and leaving the session's others.
func TestPutMarks(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	require.NoError(t, l.SetMarks(ctx, "/j/a", map[string]string{"x": "1", "y": "2"}))
	require.NoError(t, l.PutMarks(ctx, []Mark{{"/j/b", "x", "3"}, {"/j/a", "x", "4"}, {oddPaths[3], "z", "5"}}))
	for session, want := range map[string]map[string]string{
		"/j/a": {"x": "4", "y": "2"}, "/j/b": {"x": "3"}, oddPaths[3]: {"z": "5"},
	} {
		got, err := l.Marks(ctx, session)
		require.NoError(t, err)
		assert.Equal(t, want, got, session)
	}
	requireKind(t, l.PutMarks(ctx, []Mark{{"/j/a", "x", "5"}, {"", "x", "1"}}), ErrInvalid)
	got, err := l.Marks(ctx, "/j/a")
	require.NoError(t, err)
	assert.Equal(t, "4", got["x"], "a refused call stores nothing")
	require.NoError(t, l.PutMarks(ctx, nil))

	var twice []Mark // one mark named again and again among others: the last value wins
	for i := range 40 {
		twice = append(twice, Mark{"/j/s", "restamp_base", strconv.Itoa(i)}, Mark{fmt.Sprintf("/j/o%d", i), "x", "1"})
	}
	require.NoError(t, l.PutMarks(ctx, twice))
	got, err = l.Marks(ctx, "/j/s")
	require.NoError(t, err)
	assert.Equal(t, "39", got["restamp_base"])
}

// TestMigratesBillsFrom4: a version 4 ledger's claims (keyed by their
// unit) keep their owners and times in the version 5 table, and a claim
// of one of them is still refused.
func TestMigratesBillsFrom4(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour).UnixNano()
	path := rawDB(t,
		`CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, identity TEXT NOT NULL DEFAULT '',
			size INTEGER NOT NULL DEFAULT -1, finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)), updated_at INTEGER NOT NULL)`,
		`CREATE TABLE ranges (file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
			start_off INTEGER NOT NULL, end_off INTEGER NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL,
			lines INTEGER NOT NULL, PRIMARY KEY (file_id, start_off)) WITHOUT ROWID`,
		marksSQL,
		`CREATE TABLE bills (key INTEGER PRIMARY KEY, owner TEXT NOT NULL, claimed_at INTEGER NOT NULL)`,
		`CREATE INDEX bills_by_time ON bills(claimed_at)`,
		fmt.Sprintf(`INSERT INTO bills VALUES (-5, '/j/a', %d), (9, '/j/b', %d), (7, '/j/a', %d)`, t0+300, t0+100, t0+200),
		`INSERT INTO files (id, path, identity, updated_at) VALUES (1, '/j/a', '1:2:ab', 1)`,
		`INSERT INTO ranges VALUES (1, 0, 10, 0, 3, 4)`,
		`INSERT INTO marks VALUES ('/j/a', 'n', 'v', 1)`,
		fmt.Sprintf("PRAGMA application_id = %d", applicationID),
		"PRAGMA user_version = 4")
	l, err := Open(Config{Path: path, BusyTimeout: time.Second})
	require.NoError(t, err)
	defer l.Close()
	all, complete, err := l.AllBills(ctx, 10)
	require.NoError(t, err)
	require.True(t, complete)
	assert.ElementsMatch(t, []Bill{{Key: 1<<64 - 5, Owner: "/j/a"}, {Key: 9, Owner: "/j/b"}, {Key: 7, Owner: "/j/a"}}, all)
	taken, err := l.ClaimBills(ctx, []Bill{{Key: 9, Owner: "/j/c"}, {Key: 10, Owner: "/j/c"}})
	require.NoError(t, err)
	assert.Equal(t, []Bill{{Key: 9, Owner: "/j/b"}}, taken)
	n, err := l.ForgetBills(ctx, time.Unix(0, t0+250))
	require.NoError(t, err)
	assert.Equal(t, int64(2), n, "the claims' times came along")
	st := mustFile(t, l, "/j/a")
	assert.Equal(t, []Range{{Start: 0, End: 10, FirstSeq: 0, LastSeq: 3, Lines: 4}}, st.Ranges, "files and ranges untouched")
	assert.Equal(t, "1:2:ab", string(st.Identity))
	marks, err := l.Marks(ctx, "/j/a")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"n": "v"}, marks)
	var uv int
	require.NoError(t, l.c.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&uv))
	assert.Equal(t, schemaVersion, uv)
}
