package finalize

import (
	"context"
	"errors"
	"time"

	"github.com/journalship/journalship/journalfile"
)

// snapshot is what a file looked like at one moment.
type snapshot struct {
	id       journalfile.Identity
	size     int64
	mtime    time.Time
	tailFrom int64 // offset after the last newline
	tail     []byte
	read     journalfile.Tail
}

// snapshotOf reads the file's size, mtime, last complete line and partial
// tail (reading backwards, at most 1 MiB).
func snapshotOf(path string) (snapshot, error) {
	t, err := journalfile.ReadTail(path, 1<<20)
	if err != nil {
		return snapshot{}, err
	}
	if t.From < 0 {
		return snapshot{}, errors.New(path + ": no newline in the last MiB")
	}
	return snapshot{id: t.Identity, size: t.Size, mtime: t.ModTime, tailFrom: t.From, tail: t.Partial, read: t}, nil
}

// finished returns the rule that makes the file finished, or "": the
// verdict's (package verdict).
func (f *Finalizer) finished(ctx context.Context, path string, s snapshot) (string, error) {
	v, err := f.verdict.Of(ctx, path, f.ship.Format(path), s.read)
	return v.Why, err
}

// sessionOver tells whether the file's session is over, by the verdict
// on its whole file.
func (f *Finalizer) sessionOver(path string) bool {
	v, err := f.verdict.Session(path, f.ship.Format(path), time.Time{})
	return err == nil && v.Over
}
