package ledger

import (
	"context"
	"database/sql"
	"encoding/hex"
)

// stmtID names a prepared statement of a core.
type stmtID int

// The statements, prepared once per database at Open.
const (
	sUpsertFiles stmtID = iota
	sRetire
	sSetIdentity
	sDeleteRanges
	sTouching
	sDeleteTouching
	sInsertRange
	sInsertRanges
	sUnfinish
	sCoverage
	sFinish
	sIdentityOf
	sForget
	sFile
	sFilesIn
	sFiles
	sSameFile
	sCovering
	sMarks
	sSetMark
	sRaiseMark
	sBillOwner
	sBillOwners
	sClaimBills
	sAllBills
	sReleaseBill
	sForgetBills
	sForgetMarks
	sSavepoint
	sRelease
	sRollbackTo
	nStmts
)

// stateQuery reads files with their ranges in one statement, so the result
// is one consistent snapshot even while another connection writes.
const stateQuery = `SELECT f.path, f.identity, f.size, f.finished, f.updated_at,
		r.start_off, r.end_off, r.first_seq, r.last_seq, r.lines
	FROM files f LEFT JOIN ranges r ON r.file_id = f.id`

// pathOf is a path of a pathList, as each json_each row of it gives it.
const pathOf = `CAST(unhex(value) AS TEXT)`

// jsonArray is a JSON array of n elements, each appended by elem: how a
// statement takes a list in one argument (json_each).
func jsonArray(n int, elem func(b []byte, i int) []byte) string {
	b := []byte{'['}
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
	}
	return string(append(b, ']'))
}

// pathList is paths as one statement argument: a JSON array of their
// bytes in hex, which carries any path exactly (JSON text itself cannot
// carry bytes that are not UTF-8).
func pathList(paths []string) string {
	return jsonArray(len(paths), func(b []byte, i int) []byte { return appendHex(b, paths[i]) })
}

// appendHex appends s's bytes in hex, as a JSON string.
func appendHex(b []byte, s string) []byte {
	b = append(b, '"')
	b = hex.AppendEncode(b, []byte(s))
	return append(b, '"')
}

// stmtSQL is the text of each statement.
var stmtSQL = [nStmts]string{
	// sUpsertFiles touches the rows of a JSON array of [path, identity]
	// in hex (fileList), creating the missing ones with their identity,
	// and tells for each whether it has ranges: a file without any (most
	// of a flush's, new to the ledger) takes its new ranges as they are,
	// without reading what they touch.
	sUpsertFiles: `INSERT INTO files (path, identity, updated_at)
		SELECT CAST(unhex(value->>0) AS TEXT), CAST(unhex(value->>1) AS TEXT), ?2 FROM json_each(?1) WHERE true
		ON CONFLICT (path) DO UPDATE SET updated_at = excluded.updated_at
		RETURNING path, id, identity, size, finished, EXISTS (SELECT 1 FROM ranges WHERE file_id = files.id)`,
	sRetire:       `UPDATE files SET identity = ?2, size = -1, finished = 0 WHERE id = ?1`,
	sSetIdentity:  `UPDATE files SET identity = ?2 WHERE id = ?1`,
	sDeleteRanges: `DELETE FROM ranges WHERE file_id = ?1`,
	sTouching: `SELECT start_off, end_off, first_seq, last_seq, lines FROM ranges
		WHERE file_id = ?1 AND end_off >= ?2 AND start_off <= ?3 ORDER BY start_off`,
	sDeleteTouching: `DELETE FROM ranges WHERE file_id = ?1 AND end_off >= ?2 AND start_off <= ?3`,
	sInsertRange: `INSERT INTO ranges (file_id, start_off, end_off, first_seq, last_seq, lines)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
	// sInsertRanges inserts a JSON array of [file_id, start, end,
	// first_seq, last_seq, lines] rows.
	sInsertRanges: `INSERT INTO ranges (file_id, start_off, end_off, first_seq, last_seq, lines)
		SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 FROM json_each(?1)`,
	sUnfinish: `UPDATE files SET finished = 0 WHERE id = ?1`,
	sCoverage: `SELECT count(*), min(r.start_off), max(r.end_off)
		FROM ranges r JOIN files f ON f.id = r.file_id WHERE f.path = ?1`,
	sFinish: `INSERT INTO files (path, size, finished, updated_at, identity) VALUES (?1, ?2, 1, ?3, ?4)
		ON CONFLICT (path) DO UPDATE SET size = excluded.size, finished = 1, updated_at = excluded.updated_at,
			identity = CASE WHEN excluded.identity = '' THEN files.identity ELSE excluded.identity END`,
	sIdentityOf: `SELECT identity FROM files WHERE path = ?1`,
	sForget:     `DELETE FROM files WHERE path = ?1`,
	sFile:       stateQuery + ` WHERE f.path = ?1 ORDER BY r.start_off`,
	// sFilesIn reads the files of a list of paths (pathList).
	sFilesIn: stateQuery + ` WHERE f.path IN (SELECT ` + pathOf + ` FROM json_each(?1)) ORDER BY f.path, r.start_off`,
	sFiles:   stateQuery + ` ORDER BY f.path, r.start_off`,
	// sSameFile reads the files of one identity (files_by_identity).
	sSameFile: stateQuery + ` WHERE f.identity = ?1 ORDER BY f.path, r.start_off`,
	sCovering: `SELECT r.start_off, r.end_off, r.first_seq, r.last_seq, r.lines
		FROM ranges r JOIN files f ON f.id = r.file_id WHERE f.path = ?1 AND r.end_off = ?2`,
	sMarks: `SELECT name, value FROM marks WHERE session = ?1`,
	sSetMark: `INSERT INTO marks (session, name, value, updated_at) VALUES (?1, ?2, ?3, ?4)
		ON CONFLICT (session, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
	// sRaiseMark keeps the larger of two integer values.
	sRaiseMark: `INSERT INTO marks (session, name, value, updated_at) VALUES (?1, ?2, ?3, ?4)
		ON CONFLICT (session, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
		WHERE CAST(excluded.value AS INTEGER) > CAST(value AS INTEGER)`,
	sForgetMarks: `DELETE FROM marks WHERE session = ?1`,
	sBillOwner:   `SELECT owner FROM bills WHERE key = ?1`,
	// sBillOwners reads the owners of a JSON array of keys.
	sBillOwners: `SELECT key, owner FROM bills WHERE key IN (SELECT value FROM json_each(?1))`,
	// sClaimBills claims the unclaimed bills of a JSON array of [key,
	// owner in hex], and returns the keys it claimed; a claimed one keeps
	// its owner.
	sClaimBills: `INSERT INTO bills (key, owner, claimed_at)
		SELECT value->>0, CAST(unhex(value->>1) AS TEXT), ?2 FROM json_each(?1) WHERE true
		ON CONFLICT (key) DO NOTHING RETURNING key`,
	sAllBills:    `SELECT key, owner FROM bills LIMIT ?1`,
	sReleaseBill: `DELETE FROM bills WHERE key = ?1 AND owner = ?2`,
	sForgetBills: `DELETE FROM bills WHERE claimed_at < ?1`,
	sSavepoint:   `SAVEPOINT call`,
	sRelease:     `RELEASE call`,
	sRollbackTo:  `ROLLBACK TO call`,
}

// prepare prepares every statement on db.
func prepare(ctx context.Context, db *sql.DB) ([nStmts]*sql.Stmt, error) {
	var stmts [nStmts]*sql.Stmt
	for id, text := range stmtSQL {
		s, err := db.PrepareContext(ctx, text)
		if err != nil {
			closeStmts(stmts[:])
			return stmts, err
		}
		stmts[id] = s
	}
	return stmts, nil
}

// closeStmts closes the non-nil statements.
func closeStmts(stmts []*sql.Stmt) {
	for _, s := range stmts {
		if s != nil {
			_ = s.Close()
		}
	}
}

// wtx is a write transaction with its transaction-bound statements.
type wtx struct {
	ctx   context.Context
	tx    *sql.Tx
	c     *core
	bound [nStmts]*sql.Stmt
}

// stmt returns statement id bound to the transaction.
func (w *wtx) stmt(id stmtID) *sql.Stmt {
	if w.bound[id] == nil {
		w.bound[id] = w.tx.StmtContext(w.ctx, w.c.stmts[id])
	}
	return w.bound[id]
}

// exec runs statement id in the transaction.
func (w *wtx) exec(id stmtID, args ...any) error {
	_, err := w.stmt(id).ExecContext(w.ctx, args...)
	return err
}
