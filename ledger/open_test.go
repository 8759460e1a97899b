package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOpenSharesOneHandlePerPath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	l1, err := Open(Config{Path: "ledger.db"})
	require.NoError(t, err)
	l2, err := Open(Config{Path: filepath.Join(dir, "sub", "..", "ledger.db")})
	require.NoError(t, err)
	require.Same(t, l1.c, l2.c)
	require.Equal(t, filepath.Join(dir, "ledger.db"), l1.Path())

	ctx := context.Background()
	require.NoError(t, l1.Record(ctx, []Segment{seg("f", 0, 10, 1)}))
	require.NoError(t, l1.Close())
	require.NoError(t, l1.Close(), "a second Close of a handle is a no-op")
	requireKind(t, l1.Record(ctx, []Segment{seg("f", 10, 20, 1)}), ErrClosed)
	_, err = l1.File(ctx, "f")
	requireKind(t, err, ErrClosed)

	require.NoError(t, l2.Record(ctx, []Segment{seg("f", 10, 20, 1)}), "the other handle still works")
	require.Equal(t, int64(20), mustFile(t, l2, "f").Watermark)
	require.NoError(t, l2.Close())

	registry.mu.Lock()
	_, still := registry.cores[l1.Path()]
	registry.mu.Unlock()
	require.False(t, still, "the last Close releases the database")

	l3, err := Open(Config{Path: "ledger.db"})
	require.NoError(t, err)
	require.NotSame(t, l1.c, l3.c)
	require.Equal(t, int64(20), mustFile(t, l3, "f").Watermark, "reopened from disk")
	require.NoError(t, l3.Close())
}

func TestOpenCreatesDirectoryAndOddNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a b", "c?d#e%20f", "ledger 1.db")
	l, err := Open(Config{Path: path})
	require.NoError(t, err)
	require.NoError(t, l.Record(context.Background(), []Segment{seg("f", 0, 10, 1)}))
	require.NoError(t, l.Close())
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular())
}

func TestOpenSetsPragmas(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	conn, err := l.c.db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"foreign_keys", "1"},
		{"busy_timeout", "5000"},
		{"journal_size_limit", fmt.Sprint(walSizeLimit)},
		{"application_id", fmt.Sprint(applicationID)},
		{"user_version", "5"},
		// MEMORY: SQLite makes no temporary file (a statement journal),
		// which a read-only root file system, the DaemonSet's, has no
		// place for.
		{"temp_store", "2"},
	}
	for _, tt := range tests {
		var got string
		require.NoError(t, conn.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got), tt.pragma)
		require.Equal(t, tt.want, got, tt.pragma)
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) string // returns the path to open
		kind  Kind
		msg   string
	}{
		{"invalid config", func(t *testing.T) string { return "" }, ErrInvalid, "Path is empty"},
		{"not a database", func(t *testing.T) string {
			data, err := os.ReadFile(filepath.Join("testdata", "not-a-database.db"))
			require.NoError(t, err)
			p := filepath.Join(t.TempDir(), "garbage.db")
			require.NoError(t, os.WriteFile(p, data, 0o600))
			return p
		}, ErrCorrupt, "garbage.db"},
		{"directory is a file", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "file")
			require.NoError(t, os.WriteFile(p, nil, 0o600))
			return filepath.Join(p, "ledger.db")
		}, ErrUnusable, "not a directory"},
		{"another application's database", func(t *testing.T) string {
			return rawDB(t, "PRAGMA application_id = 42")
		}, ErrUnusable, "not a journalship ledger"},
		{"newer schema", func(t *testing.T) string {
			return rawDB(t, fmt.Sprintf("PRAGMA application_id = %d", applicationID), "PRAGMA user_version = 9")
		}, ErrUnusable, "schema version 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.setup(t)
			l, err := Open(Config{Path: path})
			require.Nil(t, l)
			requireKind(t, err, tt.kind)
			require.ErrorContains(t, err, tt.msg)
			if tt.kind != ErrInvalid {
				require.ErrorContains(t, err, "ledger: open "+path)
			}
		})
	}
}

func TestCorruptPagesArePermanent(t *testing.T) {
	cfg := testConfig(t)
	l, err := Open(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	for i := range int64(200) {
		require.NoError(t, l.Record(ctx, []Segment{seg(filepath.Join("/j", string(rune('a'+i%26)), "x"), i*10, i*10+5, 1)}))
	}
	require.NoError(t, l.Close())

	f, err := os.OpenFile(cfg.Path, os.O_RDWR, 0)
	require.NoError(t, err)
	st, err := f.Stat()
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(4096))
	junk := make([]byte, st.Size()-4096)
	for i := range junk {
		junk[i] = 0xA5
	}
	_, err = f.WriteAt(junk, 4096) // keep page 1 (header), destroy the rest
	require.NoError(t, err)
	require.NoError(t, f.Close())

	l, err = Open(cfg)
	if err == nil {
		defer l.Close()
		_, err = l.Files(ctx)
	}
	requireKind(t, err, ErrCorrupt)
}

// rawDB creates an SQLite database with stmts run on it, without the ledger.
func rawDB(t *testing.T, stmts ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "raw.db")
	db, err := sql.Open("sqlite", p)
	require.NoError(t, err)
	defer db.Close()
	for _, s := range stmts {
		_, err := db.Exec(s)
		require.NoError(t, err)
	}
	return p
}

// TestOpenReadOnlyWritesNothing: a read-only open (a dry run's) creates no
// directory, file or schema, reads what a writer recorded, and refuses
// writes.
func TestOpenReadOnlyWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "ledger.db")
	_, err := Open(Config{Path: path, ReadOnly: true})
	requireKind(t, err, ErrNotExist)
	_, err = os.Stat(filepath.Join(dir, "sub"))
	require.ErrorIs(t, err, os.ErrNotExist, "no directory created")

	ctx := context.Background()
	w, err := Open(Config{Path: path})
	require.NoError(t, err)
	require.NoError(t, w.Record(ctx, []Segment{seg("f", 0, 10, 1)}))
	require.NoError(t, w.Close())
	before := dirListing(t, filepath.Dir(path))

	r, err := Open(Config{Path: path, ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, int64(10), mustFile(t, r, "f").Watermark)
	requireKind(t, r.Record(ctx, []Segment{seg("f", 10, 20, 1)}), ErrUnusable)
	requireKind(t, r.Forget(ctx, "f"), ErrUnusable)
	require.NoError(t, r.Close())
	require.Equal(t, before, dirListing(t, filepath.Dir(path)), "no file created, none changed")

	w, err = Open(Config{Path: path})
	require.NoError(t, err, "a writer while a shipper runs: its WAL holds what it recorded last")
	defer w.Close()
	require.NoError(t, w.Record(ctx, []Segment{seg("f", 10, 30, 1)}))
	r, err = Open(Config{Path: path, ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, int64(30), mustFile(t, r, "f").Watermark, "the reader sees the WAL")
	require.NoError(t, r.Close())

	foreign := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", foreign)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE t (x)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = Open(Config{Path: foreign, ReadOnly: true})
	requireKind(t, err, ErrUnusable)
}

// dirListing returns name, size and mtime of every entry of dir.
func dirListing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		fi, err := e.Info()
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("%s %d %s", e.Name(), fi.Size(), fi.ModTime()))
	}
	return out
}
