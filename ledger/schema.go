package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// applicationID marks the SQLite file as a journalship ledger ("JSLG").
const applicationID = 0x4a534c47

// schemaVersion is the PRAGMA user_version this code writes and reads.
// Version 2 adds files.identity; a version 1 ledger is migrated in place
// (its rows keep an unknown identity, matching any file, as before).
// Version 3 adds the marks table; older ledgers get it, empty.
// Version 4 adds the bills table; older ledgers get it, empty.
// Version 5 keeps the bills in claim order, their keys in an index of
// their own (a version 4 ledger's bills are moved over).
const schemaVersion = 5

// schemaSQL creates version 1.
//
// files holds one row per journal path. ranges holds the merged shipped
// ranges of a file: disjoint and never adjacent, so both start_off and
// end_off are unique per file; the unique index on end_off serves Covering.
// Deleting a files row deletes its ranges (foreign_keys is on for every
// connection).
var schemaSQL = []string{
	`CREATE TABLE IF NOT EXISTS files (
		id         INTEGER PRIMARY KEY,
		path       TEXT    NOT NULL UNIQUE,
		identity   TEXT    NOT NULL DEFAULT '',
		size       INTEGER NOT NULL DEFAULT -1,
		finished   INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
		updated_at INTEGER NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS ranges (
		file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
		start_off INTEGER NOT NULL CHECK (start_off >= 0),
		end_off   INTEGER NOT NULL CHECK (end_off > start_off),
		first_seq INTEGER NOT NULL CHECK (first_seq >= -1),
		last_seq  INTEGER NOT NULL CHECK (last_seq >= -1),
		lines     INTEGER NOT NULL CHECK (lines >= 0),
		PRIMARY KEY (file_id, start_off)
	) WITHOUT ROWID`,
	`CREATE UNIQUE INDEX IF NOT EXISTS ranges_by_end ON ranges(file_id, end_off)`,
	// files_by_identity serves FilesOfIdentity: a journal renamed keeps
	// its identity under its new path.
	`CREATE INDEX IF NOT EXISTS files_by_identity ON files(identity)`,
	marksSQL,
	billsSQL,
	billsByTimeSQL,
	fmt.Sprintf(`PRAGMA application_id = %d`, applicationID),
	fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion),
}

// marksSQL creates the marks table: short facts a format keeps about a
// session between sweeps (format.Marks: which checkpoints were shipped,
// the cost counted so far), by session key and mark name.
const marksSQL = `CREATE TABLE IF NOT EXISTS marks (
		session    TEXT    NOT NULL,
		name       TEXT    NOT NULL,
		value      TEXT    NOT NULL,
		updated_at INTEGER NOT NULL,
		PRIMARY KEY (session, name)
	) WITHOUT ROWID`

// billsSQL creates the bills table: which journal counts each billed
// unit of the node (a Claude Code response), by the unit's key (Bill).
// Rows are appended in claim order and found by key through the key's
// unique index: keys are hashes, and a flush's thousand claims keyed by
// them would touch most pages of a table ordered by key (each a page
// written to the WAL), where they touch only the index's small entries.
const billsSQL = `CREATE TABLE IF NOT EXISTS bills (
		id         INTEGER PRIMARY KEY,
		key        INTEGER NOT NULL UNIQUE,
		owner      TEXT    NOT NULL,
		claimed_at INTEGER NOT NULL
	)`

// billsFrom4 moves a version 4 ledger's bills (keyed by key) to
// billsSQL's table.
var billsFrom4 = []string{
	`ALTER TABLE bills RENAME TO bills_v4`,
	`DROP INDEX IF EXISTS bills_by_time`,
	billsSQL,
	`INSERT INTO bills (key, owner, claimed_at) SELECT key, owner, claimed_at FROM bills_v4 ORDER BY claimed_at, key`,
	`DROP TABLE bills_v4`,
	billsByTimeSQL,
}

// billsByTimeSQL indexes the claims by time, for forgetting old ones
// without reading them all.
const billsByTimeSQL = `CREATE INDEX IF NOT EXISTS bills_by_time ON bills(claimed_at)`

// checkWAL fails unless the connection is in WAL mode (some file systems
// cannot provide the shared memory WAL needs).
func checkWAL(ctx context.Context, db *sql.DB) error {
	var mode string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return &Error{Op: "open", Kind: ErrUnusable, Err: fmt.Errorf("journal_mode is %q, not wal", mode)}
	}
	return nil
}

// checkSchema refuses, without writing anything, a database that is not a
// journalship ledger of this schema version (a read-only open).
func checkSchema(ctx context.Context, db *sql.DB) error {
	var appID, version int64
	if err := db.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return err
	}
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if appID != applicationID || version != schemaVersion {
		return &Error{Op: "open", Kind: ErrUnusable, Err: fmt.Errorf("application_id %#x, schema version %d: not a journalship ledger of version %d", appID, version, schemaVersion)}
	}
	return nil
}

// migrate creates the schema in an IMMEDIATE transaction, so two processes
// opening a new ledger at once do not race, and refuses foreign or newer
// databases.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	var appID, version int64
	if err := tx.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	switch {
	case appID != 0 && appID != applicationID:
		return &Error{Op: "open", Kind: ErrUnusable, Err: fmt.Errorf("application_id %#x: not a journalship ledger", appID)}
	case version > schemaVersion:
		return &Error{Op: "open", Kind: ErrUnusable, Err: fmt.Errorf("schema version %d is newer than %d", version, schemaVersion)}
	case version == schemaVersion && appID == applicationID:
		return nil
	case version == 1 && appID == applicationID:
		return migrateFrom(ctx, tx, `ALTER TABLE files ADD COLUMN identity TEXT NOT NULL DEFAULT ''`, marksSQL, billsSQL, billsByTimeSQL)
	case version == 2 && appID == applicationID:
		return migrateFrom(ctx, tx, marksSQL, billsSQL, billsByTimeSQL)
	case version == 3 && appID == applicationID:
		return migrateFrom(ctx, tx, billsSQL, billsByTimeSQL)
	case version == 4 && appID == applicationID:
		return migrateFrom(ctx, tx, billsFrom4...)
	}
	for _, stmt := range schemaSQL {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// migrateFrom brings an older ledger to this version with stmts (version
// 1: the identity column, the marks and bills tables; version 2: the
// marks and bills tables; version 3: the bills table; version 4: the
// bills moved to their new table).
func migrateFrom(ctx context.Context, tx *sql.Tx, stmts ...string) error {
	for _, stmt := range append(stmts, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return tx.Commit()
}
