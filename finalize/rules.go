package finalize

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/journalship/journalship/journalfile"
	"github.com/valyala/fastjson"
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
	if len(s.tail) == 0 && isSessionEnd(s.lastLine) {
		return "session ended", nil
	}
	if f.cfg.Now().Sub(s.mtime) < f.cfg.StaleAfter {
		return "", nil // still being written, whatever stands beside it
	}
	if newerSessionBeside(path) {
		return "a newer session file stands beside it", nil
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

func isSessionEnd(line []byte) bool {
	v, err := fastjson.ParseBytes(line)
	return err == nil && string(v.GetStringBytes("type")) == "SESSION_END"
}

// newerSessionBeside tells whether the job directory holds a session file
// named later than path (session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl sorts by
// start time).
func newerSessionBeside(path string) bool {
	base := filepath.Base(path)
	if !journalfile.IsSessionFile(base) {
		return false
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return false
	}
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && journalfile.IsSessionFile(n) && sessionKey(n) > sessionKey(base) {
			return true
		}
	}
	return false
}

// sessionKey is the part of a session file name that sorts by start time.
func sessionKey(name string) string {
	const n = len("session_YYYYMMDDTHHMMSSZ")
	if len(name) < n {
		return name
	}
	return name[:n]
}
