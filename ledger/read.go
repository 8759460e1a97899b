package ledger

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/journalship/journalship/journalfile"
)

// File returns what the ledger knows of path. An unknown file gives a zero
// state with Size -1 and no error.
func (l *Ledger) File(ctx context.Context, path string) (FileState, error) {
	if path == "" {
		return FileState{}, invalid("file", path, errors.New("empty path"))
	}
	if err := l.check("file", path); err != nil {
		return FileState{}, err
	}
	states, err := l.states(ctx, sFile, path)
	if err != nil {
		return FileState{}, l.fail("file", path, err)
	}
	if len(states) == 0 {
		return FileState{Path: path, Size: -1}, nil
	}
	return states[0], nil
}

// FilesOf returns what the ledger knows of each of paths, by path, read
// in one statement (one snapshot): a flush asks once for all its files.
// A path the ledger does not know is not in the map.
func (l *Ledger) FilesOf(ctx context.Context, paths []string) (map[string]FileState, error) {
	if err := l.check("files", l.c.path); err != nil {
		return nil, err
	}
	out := make(map[string]FileState, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	states, err := l.states(ctx, sFilesIn, pathList(paths))
	if err != nil {
		return nil, l.fail("files", paths[0], err)
	}
	for _, st := range states {
		out[st.Path] = st
	}
	return out, nil
}

// Files returns every file the ledger knows, sorted by path.
func (l *Ledger) Files(ctx context.Context) ([]FileState, error) {
	if err := l.check("files", l.c.path); err != nil {
		return nil, err
	}
	states, err := l.states(ctx, sFiles)
	if err != nil {
		return nil, l.fail("files", l.c.path, err)
	}
	return states, nil
}

// FilesOfIdentity returns every file the ledger knows by id, sorted by
// path: a journal renamed (or linked) under another path is the same file
// there. An empty id gives none.
func (l *Ledger) FilesOfIdentity(ctx context.Context, id journalfile.Identity) ([]FileState, error) {
	if id == "" {
		return nil, nil
	}
	if err := l.check("files", l.c.path); err != nil {
		return nil, err
	}
	states, err := l.states(ctx, sSameFile, string(id))
	if err != nil {
		return nil, l.fail("files", l.c.path, err)
	}
	return states, nil
}

// Covering returns the range of path whose End is end: its LastSeq is the
// seq of the line just before offset end, for checking seq continuity when
// shipping resumes at end. ok is false when no range ends exactly there
// (ranges that were merged no longer have their inner edges).
func (l *Ledger) Covering(ctx context.Context, path string, end int64) (r Range, ok bool, err error) {
	if path == "" || end < 0 {
		return Range{}, false, invalid("covering", path, errors.New("empty path or negative end"))
	}
	if err := l.check("covering", path); err != nil {
		return Range{}, false, err
	}
	err = l.c.stmts[sCovering].QueryRowContext(ctx, path, end).Scan(&r.Start, &r.End, &r.FirstSeq, &r.LastSeq, &r.Lines)
	if errors.Is(err, sql.ErrNoRows) {
		return Range{}, false, nil
	}
	if err != nil {
		return Range{}, false, l.fail("covering", path, err)
	}
	return r, true, nil
}

// states runs sFile, sFilesIn, sFiles or sSameFile and groups the rows
// per file.
func (l *Ledger) states(ctx context.Context, id stmtID, args ...any) ([]FileState, error) {
	rows, err := l.c.stmts[id].QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FileState
	for rows.Next() {
		var fs FileState
		var updated int64
		var start, end, first, last, lines sql.NullInt64
		var ident string
		if err := rows.Scan(&fs.Path, &ident, &fs.Size, &fs.Finished, &updated, &start, &end, &first, &last, &lines); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].Path != fs.Path {
			fs.UpdatedAt, fs.Identity = time.Unix(0, updated), journalfile.Identity(ident)
			out = append(out, fs)
		}
		if start.Valid {
			cur := &out[len(out)-1]
			cur.Ranges = append(cur.Ranges, Range{Start: start.Int64, End: end.Int64,
				FirstSeq: first.Int64, LastSeq: last.Int64, Lines: int(lines.Int64)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Watermark = watermark(out[i].Ranges)
	}
	return out, nil
}
