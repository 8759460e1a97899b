package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/journalship/journalship/journalfile"
)

// MarkFinished records that the whole file [0,size) is accounted for, so
// retention may delete it once it also compares Size with the file on disk.
//
// tailFrom is where the file's final partial line starts: a last line
// without its newline, which is never shipped as a line (the shipper
// annotates it instead). Pass tailFrom == size when the file ends with a
// newline. The call is refused with ErrNotCovered unless the stored ranges
// are exactly one range [0, W) with tailFrom <= W <= size: no gap before
// tailFrom, no shipped range inside the partial tail, nothing shipped past
// size (which would mean the file shrank or size is wrong). ErrInvalid is
// returned unless 0 <= tailFrom <= size.
//
// identity is the file's identity as the caller read it: the call is
// refused with ErrNotCovered when the stored ranges are of another file
// (the path was replaced since they were recorded).
func (l *Ledger) MarkFinished(ctx context.Context, path string, identity journalfile.Identity, size, tailFrom int64) error {
	if path == "" || size < 0 || tailFrom < 0 || tailFrom > size {
		return invalid("finish", path, fmt.Errorf("need a path and 0 <= tailFrom (%d) <= size (%d)", tailFrom, size))
	}
	now := time.Now().UnixNano()
	return l.write(ctx, "finish", path, func(w *wtx) error {
		if err := checkIdentity(w, path, identity); err != nil {
			return err
		}
		if err := checkCovered(w, path, size, tailFrom); err != nil {
			return err
		}
		return w.exec(sFinish, path, size, now, string(identity))
	})
}

// checkIdentity refuses to finish a path whose stored ranges are of
// another file than identity.
func checkIdentity(w *wtx, path string, identity journalfile.Identity) error {
	var stored string
	err := w.stmt(sIdentityOf).QueryRowContext(w.ctx, path).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if !journalfile.Same(journalfile.Identity(stored), identity) {
		return &Error{Op: "finish", Path: path, Kind: ErrNotCovered,
			Err: fmt.Errorf("the shipped ranges are of file %s, the path now names %s (replaced)", journalfile.Identity(stored), identity)}
	}
	return nil
}

// checkCovered applies MarkFinished's coverage rule to the stored ranges.
func checkCovered(w *wtx, path string, size, tailFrom int64) error {
	var n int
	var first, last sql.NullInt64
	if err := w.stmt(sCoverage).QueryRowContext(w.ctx, path).Scan(&n, &first, &last); err != nil {
		return err
	}
	var cause error
	switch {
	case n == 0 && tailFrom > 0:
		cause = fmt.Errorf("nothing shipped, need [0,%d)", tailFrom)
	case n == 0:
		return nil
	case first.Int64 > 0:
		cause = fmt.Errorf("gap [0,%d)", first.Int64)
	case n > 1:
		cause = fmt.Errorf("%d separate ranges: a gap after the first", n)
	case last.Int64 < tailFrom:
		cause = fmt.Errorf("shipped up to %d, need %d", last.Int64, tailFrom)
	case last.Int64 > size:
		cause = fmt.Errorf("shipped up to %d, past size %d", last.Int64, size)
	default:
		return nil
	}
	return &Error{Op: "finish", Path: path, Kind: ErrNotCovered, Err: cause}
}

// Forget removes every row of path (its ranges and finished state, and
// the marks kept under FileMarks(path)); the retention agent calls it
// after deleting the file. Forgetting an unknown path is not an error.
func (l *Ledger) Forget(ctx context.Context, path string) error {
	if path == "" {
		return invalid("forget", path, errors.New("empty path"))
	}
	return l.write(ctx, "forget", path, func(w *wtx) error {
		if err := w.exec(sForget, path); err != nil {
			return err
		}
		return w.exec(sForgetMarks, FileMarks(path))
	})
}

// FileMarks is the marks key of one journal file's own facts (the marks
// of a session are kept under its main journal's path): forgotten with
// the file.
func FileMarks(path string) string { return "file:" + path }
