package cortex

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/journalfile"
)

// lastLineMax bounds how far back a session's last line is looked for; an
// ending line is a few hundred bytes.
const lastLineMax = 64 << 10

// Running is the status of a job whose latest session has not ended.
const Running = "running, its latest session has not ended"

// GroupEnd implements format.GroupEnder: a job (the directory dir) is
// terminal when its latest session file (by name, which sorts by start
// time) ends with a complete line that says the session ended for good
// (a valid SESSION_END whose reason is completed, failed or cancelled).
// A pause (approval_pause), a crash (no such line, or a partial last
// line) or no session file at all is not terminal. FinishedAt is that
// line's time.
func (f *Format) GroupEnd(dir string) (format.GroupState, error) {
	latest, err := latestSession(dir)
	if err != nil {
		return format.GroupState{}, err
	}
	if latest == "" {
		return format.GroupState{Status: "no session file"}, nil
	}
	line, err := lastLine(latest)
	if err != nil {
		return format.GroupState{}, err
	}
	var ev format.Event
	if line != nil {
		f.NewJudge().Judge(line, f.NewState(format.Path{}), integrity.NewArena(len(line)+64), &ev)
	}
	if line == nil || !ev.Ends || ev.Outcome == integrity.Corrupt {
		return format.GroupState{Status: Running}, nil
	}
	st := format.GroupState{Status: string(ev.EndReason)}
	if ev.Terminal {
		st.Terminal = true
		if ev.HasTime {
			st.FinishedAt = ev.Time
		}
	}
	return st, nil
}

// IsSessionFile tells whether a file name is a session journal's,
// session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl (names sort by start time).
func IsSessionFile(name string) bool {
	return strings.HasPrefix(name, "session_") && strings.HasSuffix(name, ".jsonl")
}

// latestSession returns the regular session file of dir whose name sorts
// last, or "".
func latestSession(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	latest := ""
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && IsSessionFile(n) && n > latest {
			latest = n
		}
	}
	if latest == "" {
		return "", nil
	}
	return filepath.Join(dir, latest), nil
}

// lastLine returns the last complete line of path (without its newline),
// or nil when the file does not end with a newline (a partial line: the
// writer is still appending or died) or the line is over lastLineMax.
func lastLine(path string) ([]byte, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	t, err := journalfile.ReadTail(path, lastLineMax)
	if err != nil || len(t.Partial) > 0 || t.From < 0 {
		return nil, err
	}
	return t.Last, nil
}
