package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sqlite3 "modernc.org/sqlite/lib"
)

func TestSQLiteKind(t *testing.T) {
	tests := []struct {
		code int
		want Kind
	}{
		{sqlite3.SQLITE_BUSY, ErrBusy},
		{sqlite3.SQLITE_BUSY | 2<<8, ErrBusy}, // SQLITE_BUSY_SNAPSHOT
		{sqlite3.SQLITE_LOCKED, ErrBusy},
		{sqlite3.SQLITE_PROTOCOL, ErrBusy},
		{sqlite3.SQLITE_IOERR, ErrIO},
		{sqlite3.SQLITE_IOERR | 4<<8, ErrIO}, // SQLITE_IOERR_FSYNC
		{sqlite3.SQLITE_FULL, ErrIO},
		{sqlite3.SQLITE_NOMEM, ErrIO},
		{sqlite3.SQLITE_INTERRUPT, ErrCanceled},
		{sqlite3.SQLITE_CORRUPT, ErrCorrupt},
		{sqlite3.SQLITE_NOTADB, ErrCorrupt},
		{sqlite3.SQLITE_CANTOPEN, ErrUnusable},
		{sqlite3.SQLITE_READONLY, ErrUnusable},
		{sqlite3.SQLITE_CONSTRAINT, ErrInternal},
		{sqlite3.SQLITE_ERROR, ErrInternal},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			require.Equal(t, tt.want, sqliteKind(tt.code))
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"canceled", fmt.Errorf("x: %w", context.Canceled), ErrCanceled},
		{"deadline", context.DeadlineExceeded, ErrCanceled},
		{"conn done", sql.ErrConnDone, ErrClosed},
		{"permission", &fs.PathError{Op: "mkdir", Path: "/x", Err: fs.ErrPermission}, ErrUnusable},
		{"other", errors.New("boom"), ErrInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, classify(tt.err))
			err := wrap("record", "/j/a", tt.err)
			requireKind(t, err, tt.want)
			require.ErrorIs(t, err, tt.err)
			require.Equal(t, "ledger: record /j/a: "+string(tt.want)+": "+tt.err.Error(), err.Error())
		})
	}
	require.NoError(t, wrap("x", "y", nil))
	inner := &Error{Op: "finish", Path: "p", Kind: ErrNotCovered}
	require.Same(t, inner, wrap("record", "q", inner), "an *Error keeps its classification")
	require.Equal(t, "ledger: finish p: not covered", inner.Error())
}

func TestBusyIsRetryable(t *testing.T) {
	cfg := testConfig(t)
	cfg.BusyTimeout = 50 * time.Millisecond
	l, err := Open(cfg)
	require.NoError(t, err)
	defer l.Close()
	ctx := context.Background()

	// Another "process" (a separate pool, so SQLite's file locks apply)
	// holds the write lock.
	other, err := sql.Open("sqlite", cfg.Path)
	require.NoError(t, err)
	defer other.Close()
	conn, err := other.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	require.NoError(t, err)

	start := time.Now()
	err = l.Record(ctx, []Segment{seg("/j/busy", 0, 10, 1)})
	requireKind(t, err, ErrBusy)
	require.ErrorContains(t, err, "ledger: record /j/busy: database busy")
	require.GreaterOrEqual(t, time.Since(start), 40*time.Millisecond, "it waited for the lock")
	requireKind(t, l.Forget(ctx, "/j/busy"), ErrBusy)

	fs, err := l.File(ctx, "/j/busy")
	require.NoError(t, err, "readers are not blocked by a writer")
	require.Empty(t, fs.Ranges)

	_, err = conn.ExecContext(ctx, "ROLLBACK")
	require.NoError(t, err)
	require.NoError(t, l.Record(ctx, []Segment{seg("/j/busy", 0, 10, 1)}), "the retry succeeds")
}
