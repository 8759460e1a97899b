package ledger

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMarks(t *testing.T) {
	ctx := context.Background()
	l := openTest(t)
	m, err := l.Marks(ctx, "/s/a/messages.jsonl")
	require.NoError(t, err)
	assert.Empty(t, m, "a session without marks")

	require.NoError(t, l.SetMarks(ctx, "/s/a/messages.jsonl", map[string]string{"cost": "0.5", "checkpoint:cp-1": "1"}))
	require.NoError(t, l.SetMarks(ctx, "/s/b/messages.jsonl", map[string]string{"cost": "9"}))
	require.NoError(t, l.SetMarks(ctx, "/s/a/messages.jsonl", map[string]string{"cost": "0.75"}))
	m, err = l.Marks(ctx, "/s/a/messages.jsonl")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cost": "0.75", "checkpoint:cp-1": "1"}, m, "a mark set again takes the new value, the others stay")

	require.NoError(t, l.ForgetMarks(ctx, "/s/a/messages.jsonl"))
	require.NoError(t, l.ForgetMarks(ctx, "/never"), "forgetting an unknown session is no error")
	m, err = l.Marks(ctx, "/s/a/messages.jsonl")
	require.NoError(t, err)
	assert.Empty(t, m)
	m, err = l.Marks(ctx, "/s/b/messages.jsonl")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cost": "9"}, m, "another session's marks stay")

	for _, err := range []error{
		l.SetMarks(ctx, "", map[string]string{"a": "b"}),
		l.SetMarks(ctx, "/s", map[string]string{"": "b"}),
		l.ForgetMarks(ctx, ""),
		func() error { _, err := l.Marks(ctx, ""); return err }(),
	} {
		assert.True(t, errors.Is(err, ErrInvalid), "%v", err)
	}
}

func TestMarksSurviveReopen(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	l, err := Open(cfg)
	require.NoError(t, err)
	require.NoError(t, l.SetMarks(ctx, "k", map[string]string{"cost": "1.25"}))
	require.NoError(t, l.Close())
	l, err = Open(cfg)
	require.NoError(t, err)
	defer l.Close()
	m, err := l.Marks(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cost": "1.25"}, m)
}

// TestMigratesToMarks: a version 1, 2 or 3 ledger opens as the current
// version, its files kept, with empty marks and bills tables.
func TestMigratesToMarks(t *testing.T) {
	ctx := context.Background()
	v1 := []string{
		`CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL DEFAULT -1,
			finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)), updated_at INTEGER NOT NULL)`,
		`CREATE TABLE ranges (file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
			start_off INTEGER NOT NULL, end_off INTEGER NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL,
			lines INTEGER NOT NULL, PRIMARY KEY (file_id, start_off)) WITHOUT ROWID`,
		`INSERT INTO files (path, size, finished, updated_at) VALUES ('/j/a.jsonl', 10, 1, 1)`,
		fmt.Sprintf("PRAGMA application_id = %d", applicationID),
	}
	for version, stmts := range map[int][]string{
		1: append(v1, "PRAGMA user_version = 1"),
		2: append(v1, `ALTER TABLE files ADD COLUMN identity TEXT NOT NULL DEFAULT ''`, "PRAGMA user_version = 2"),
		3: append(v1, `ALTER TABLE files ADD COLUMN identity TEXT NOT NULL DEFAULT ''`, marksSQL, "PRAGMA user_version = 3"),
	} {
		t.Run(fmt.Sprint("version ", version), func(t *testing.T) {
			l, err := Open(Config{Path: rawDB(t, stmts...), BusyTimeout: time.Second})
			require.NoError(t, err)
			defer l.Close()
			st, err := l.File(ctx, "/j/a.jsonl")
			require.NoError(t, err)
			assert.True(t, st.Finished)
			assert.Equal(t, int64(10), st.Size)
			require.NoError(t, l.SetMarks(ctx, "k", map[string]string{"n": "v"}))
			m, err := l.Marks(ctx, "k")
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"n": "v"}, m)
			taken, err := l.ClaimBills(ctx, []Bill{{Key: 1, Owner: "/j/a.jsonl"}})
			require.NoError(t, err)
			assert.Empty(t, taken)
			var uv int
			require.NoError(t, l.c.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&uv))
			assert.Equal(t, schemaVersion, uv)
		})
	}
}

// TestRaiseMarksOnlyRaises: a lower value written later never lowers a
// mark (two processes publishing their streams' newest times).
func TestRaiseMarksOnlyRaises(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	require.NoError(t, l.RaiseMarks(ctx, "k", map[string]int64{"a": 1_000_000_000_000_000_000, "b": 5}))
	require.NoError(t, l.RaiseMarks(ctx, "k", map[string]int64{"a": 999_999_999_999_999_999, "b": 7}))
	got, err := l.Marks(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a": "1000000000000000000", "b": "7"}, got)
}
