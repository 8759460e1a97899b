package finalize

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/journalfile"
)

// snapshot is what a file looked like at one moment.
type snapshot struct {
	id       journalfile.Identity
	size     int64
	mtime    time.Time
	tailFrom int64 // offset after the last newline
	lastLine []byte
	tail     []byte
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
	return snapshot{id: t.Identity, size: t.Size, mtime: t.ModTime, tailFrom: t.From, lastLine: t.Last, tail: t.Partial}, nil
}

// whySessionEnded is the rule of a file whose own lines (or, for a format
// that writes its end beside them, its side files) end the session.
const whySessionEnded = "session ended"

// finished returns the rule that makes the file finished, or "".
//
// Only a file that says so itself (its last line ends the session) is
// finished while it may still change. The rules that judge a file from
// outside (a newer session beside it, its job terminal) also need it
// quiet, unchanged for StaleAfter: a runtime may keep appending to an
// older session after a newer one started, or after another session of
// the job ended, and a file finished (and then deleted) under a writer
// loses every line appended after.
func (f *Finalizer) finished(ctx context.Context, path string, s snapshot) (string, error) {
	if len(s.tail) == 0 && f.ends(path, s) {
		return whySessionEnded, nil
	}
	if f.cfg.Now().Sub(s.mtime) < f.cfg.StaleAfter {
		return "", nil // still being written, whatever stands beside it
	}
	if f.newerSessionBeside(path) {
		return "a newer session file stands beside it", nil
	}
	if f.overQuietly(path) {
		return "session idle and unchanged for " + f.cfg.StaleAfter.String(), nil
	}
	if f.status != nil {
		terminal, err := f.status.Terminal(ctx, filepath.Dir(path))
		if err != nil {
			return "", err
		}
		if terminal {
			return "job is terminal", nil
		}
	}
	if len(s.tail) > 0 {
		return "partial last line unchanged for " + f.cfg.StaleAfter.String(), nil
	}
	if f.cfg.IdleAfter > 0 && f.cfg.Now().Sub(s.mtime) >= f.cfg.IdleAfter {
		return "unchanged for " + f.cfg.IdleAfter.String(), nil
	}
	return "", nil
}

// ends tells whether the file's last line ends its session or run, by the
// file's format (its judge sets Event.Ends), or, for a format that writes
// the end beside the journal (format.EndsBeside), whether its side files
// say a run ended. A format that derives the end from every line
// (ScopeAllLines), or from side files, must also say so over the whole
// file.
func (f *Finalizer) ends(path string, s snapshot) bool {
	fm := f.ship.Format(path)
	p, _ := fm.Claim(path)
	var ev format.Event
	fm.NewJudge().Judge(s.lastLine, fm.NewState(p), integrity.NewArena(len(s.lastLine)+64), &ev)
	if !ev.Ends {
		if eb, ok := fm.(format.EndsBeside); !ok || !eb.EndWritten(path) {
			return false
		}
	} else if fm.Scope() == format.ScopeFirstLine {
		return true
	}
	return f.sessionEnded(path, fm)
}

// sessionEnded tells whether the file's format, judging every line with
// its side files loaded (the audit), says its session or run is over.
func (f *Finalizer) sessionEnded(path string, fm format.Format) bool {
	rep, err := audit.FileAs(path, f.cfg.Audit, fm)
	return err == nil && rep.SessionEnded
}

// newerSessionBeside tells whether the file's group directory (a Cortex
// Plane job directory) holds another journal of the same format whose path
// says it started later. A format whose group is the file itself, or whose
// path says no start, has no "newer session beside it".
func (f *Finalizer) newerSessionBeside(path string) bool {
	fm := f.ship.Format(path)
	p, ok := fm.Claim(path)
	dir := filepath.Dir(path)
	if !ok || p.Started.IsZero() || p.Group != dir {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == filepath.Base(path) {
			continue
		}
		if q, ok := fm.Claim(filepath.Join(dir, e.Name())); ok && q.Started.After(p.Started) {
			return true
		}
	}
	return false
}

// overQuietly tells whether the file is of a format that writes no end
// record (format.QuietEnd) and its lines leave the session over (idle):
// unchanged for StaleAfter, such a session has ended.
func (f *Finalizer) overQuietly(path string) bool {
	fm := f.ship.Format(path)
	if _, ok := fm.(format.QuietEnd); !ok {
		return false
	}
	return f.sessionEnded(path, fm)
}
