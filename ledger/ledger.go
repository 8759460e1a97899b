package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// walSizeLimit is the size the WAL file is truncated to after a checkpoint,
// so a burst of writes does not leave a large WAL behind.
const walSizeLimit = 4 << 20

// maxConns bounds the connections of one shared handle: one writer at a
// time plus concurrent readers.
const maxConns = 4

// Ledger is one user's handle on a shared, reference-counted connection pool
// to a ledger database. Handles from Open calls with the same absolute path
// share the pool; the pool is closed when the last handle is closed. A
// Ledger is safe for concurrent use.
type Ledger struct {
	c      *core
	closed atomic.Bool
}

// core is the state shared by all handles on one database file.
type core struct {
	path  string            // absolute database path
	key   string            // the registry key: path, marked when read-only
	db    *sql.DB           // the connection pool
	stmts [nStmts]*sql.Stmt // prepared statements, see statements.go
	wsem  chan struct{}     // the write slot: one write transaction at a time in this process
	refs  int               // open handles, guarded by registry.mu

	billsPruned atomic.Int64 // when this process last forgot old claims (unix ns)

	locks *stripeLocks // the file locks, see lock.go

	qmu     sync.Mutex  // guards pending
	pending []*writeReq // write calls waiting for a transaction, see batch.go
}

// registry maps absolute database paths to their shared core.
var registry = struct {
	mu    sync.Mutex
	cores map[string]*core
}{cores: map[string]*core{}}

// Open returns a handle on the ledger at cfg.Path, creating the file, its
// directory and the schema if missing. Handles for the same absolute path
// share one pool; the BusyTimeout of the first Open is the one in effect
// until the last handle is closed.
func Open(cfg Config) (*Ledger, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, &Error{Op: "open", Path: cfg.Path, Kind: ErrInvalid, Err: err}
	}
	key := abs
	if cfg.ReadOnly {
		key += "\x00ro" // read-only pools are never shared with writers
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if c, ok := registry.cores[key]; ok {
		c.refs++
		return &Ledger{c: c}, nil
	}
	cfg.Path = abs
	c, err := openCore(cfg)
	if err != nil {
		return nil, withPath(wrap("open", abs, err), abs)
	}
	c.key = key
	registry.cores[key] = c
	return &Ledger{c: c}, nil
}

// openCore opens and prepares the database at cfg.Path (absolute).
func openCore(cfg Config) (*core, error) {
	if cfg.ReadOnly {
		if _, err := os.Stat(cfg.Path); err != nil {
			kind := ErrUnusable
			if errors.Is(err, os.ErrNotExist) {
				kind = ErrNotExist
			}
			return nil, &Error{Op: "open", Path: cfg.Path, Kind: kind, Err: err}
		}
	} else if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o750); err != nil {
		return nil, &Error{Op: "open", Path: cfg.Path, Kind: ErrUnusable, Err: err}
	}
	db, err := sql.Open("sqlite", dsn(cfg))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	ctx := context.Background()
	check := migrate
	if cfg.ReadOnly {
		check = checkSchema
	} else if err := checkWAL(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	if err := check(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	stmts, err := prepare(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	c := &core{path: cfg.Path, db: db, stmts: stmts, wsem: make(chan struct{}, 1), refs: 1, locks: newStripeLocks()}
	return c, nil
}

// dsn is the modernc.org/sqlite data source name for cfg: a file: URI (so
// any byte of the path is escaped) with the pragmas every connection runs:
// WAL (readers and the writer do not block each other), synchronous=FULL
// (a commit is fsynced before it returns), foreign keys (ranges go with
// their file), a bounded WAL, and temporary files in memory (the
// statement journal a savepoint or a many-row statement keeps, which
// crash recovery never reads: on disk it cost a write system call per
// page a flush touched).
// _txlock=immediate makes every read-write transaction take the write lock
// at BEGIN, so a transaction never fails half-way to upgrade its lock.
//
// A read-only ledger is opened with mode=ro and none of the pragmas that
// write (journal_mode, journal_size_limit). SQLite reads a WAL database
// through its -wal and -shm files and creates them when they are missing,
// even read-only; they are missing only when no process has the ledger
// open (the last Close checkpoints and removes them), and then the main
// file holds everything, so it is opened immutable: read as it is, no file
// created.
func dsn(cfg Config) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", cfg.busyMillis()))
	if cfg.ReadOnly {
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("mode", "ro")
		if _, err := os.Lstat(cfg.Path + "-wal"); errors.Is(err, os.ErrNotExist) {
			q.Set("immutable", "1")
		}
		return "file://" + (&url.URL{Path: cfg.Path}).EscapedPath() + "?" + q.Encode()
	}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Set("_txlock", "immediate")
	return "file://" + (&url.URL{Path: cfg.Path}).EscapedPath() + "?" + q.Encode()
}

// withPath fills in the path of an *Error that has none.
func withPath(err error, path string) error {
	var e *Error
	if errors.As(err, &e) && e.Path == "" {
		e.Path = path
	}
	return err
}

// Path returns the absolute path of the database file.
func (l *Ledger) Path() string { return l.c.path }

// Close releases this handle; the last Close of a path closes the database.
// Closing a handle twice is a no-op.
func (l *Ledger) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	l.c.refs--
	if l.c.refs > 0 {
		return nil
	}
	delete(registry.cores, l.c.key)
	closeStmts(l.c.stmts[:])
	l.c.locks.close()
	return wrap("close", l.c.path, l.c.db.Close())
}

// check fails with ErrClosed after Close.
func (l *Ledger) check(op, path string) error {
	if l.closed.Load() {
		return &Error{Op: op, Path: path, Kind: ErrClosed}
	}
	return nil
}

// fail classifies err, reporting ErrClosed if the handle was closed meanwhile.
func (l *Ledger) fail(op, path string, err error) error {
	if err == nil {
		return nil
	}
	if l.closed.Load() {
		return &Error{Op: op, Path: path, Kind: ErrClosed, Err: err}
	}
	return wrap(op, path, err)
}
