package retention

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/journalfile"
)

// JobState is what a Status knows of one job.
type JobState struct {
	// Terminal is true when the job is over (completed, failed, cancelled,
	// or deleted from the database).
	Terminal bool
	// Status is the status as the source spells it ("completed",
	// "RUNNING", "approval_pause", "missing", ...), for logs.
	Status string
	// FinishedAt is when the job ended; zero when unknown (the agent then
	// uses the newest mtime of the job's files).
	FinishedAt time.Time
}

// Status tells whether a job is terminal. jobDir is <Root>/<job_id>.
type Status interface {
	Job(ctx context.Context, jobDir string) (JobState, error)
}

// Pinger is implemented by status sources that can be checked once per
// sweep before any decision is made (PGStatus). A failing Ping means the
// sweep deletes nothing.
type Pinger interface {
	Ping(ctx context.Context) error
}

// FinalizeStatus adapts a Status to finalize.JobStatus, so the finalizer's
// "job is terminal" rule uses the same source as retention.
type FinalizeStatus struct{ Status Status }

// Terminal implements finalize.JobStatus.
func (f FinalizeStatus) Terminal(ctx context.Context, jobDir string) (bool, error) {
	st, err := f.Status.Job(ctx, jobDir)
	return err == nil && st.Terminal, err
}

// JournalStatus reads a job's status from its journals: the job is
// terminal when its latest session file (by name, which sorts by start
// time) ends with a complete line that its format's judge says ends the
// session for good (Cortex Plane: a valid SESSION_END whose reason is
// completed, failed or cancelled); a pause (approval_pause), a crash (no
// such line, or a partial last line) or no session file at all is not
// terminal. FinishedAt is that line's time.
type JournalStatus struct {
	// Formats finds the file's format (the plugin's Format and
	// Format_Roots); nil uses the default registry.
	Formats *registry.Registry
}

// lastLineMax bounds how far back the last line is looked for; an ending
// line is a few hundred bytes.
const lastLineMax = 64 << 10

// defaultFormats is the registry of a JournalStatus without one, built
// once.
var defaultFormats = sync.OnceValue(func() *registry.Registry {
	r, err := registry.New(registry.DefaultConfig())
	if err != nil {
		panic("retention: the default format registry: " + err.Error()) // the defaults are valid: a bug
	}
	return r
})

// Job implements Status.
func (s JournalStatus) Job(_ context.Context, jobDir string) (JobState, error) {
	latest, err := latestSession(jobDir)
	if err != nil {
		return JobState{}, &StatusError{Source: "journal", Job: jobDir, Err: err}
	}
	if latest == "" {
		return JobState{Status: "no session file"}, nil
	}
	line, err := lastLine(latest)
	if err != nil {
		return JobState{}, &StatusError{Source: "journal", Job: jobDir, Err: err}
	}
	reg := s.Formats
	if reg == nil {
		reg = defaultFormats()
	}
	ev := judgeLast(reg, latest, line)
	if line == nil || !ev.Ends || ev.Outcome == integrity.Corrupt {
		return JobState{Status: "running, its latest session has not ended"}, nil
	}
	st := JobState{Status: string(ev.EndReason)}
	if ev.Terminal {
		st.Terminal = true
		if ev.HasTime {
			st.FinishedAt = ev.Time
		}
	}
	return st, nil
}

// judgeLast judges a file's last line by the file's format, alone: what it
// says of the session's end does not depend on the lines before it.
func judgeLast(reg *registry.Registry, path string, line []byte) *format.Event {
	d := reg.Detect(path, nil)
	ev := &format.Event{}
	d.Format.NewJudge().Judge(line, d.Format.NewState(d.Path), integrity.NewArena(len(line)+64), ev)
	return ev
}

// latestSession returns the regular session_*.jsonl file of dir whose name
// sorts last, or "".
func latestSession(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	latest := ""
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && journalfile.IsSessionFile(n) && n > latest {
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
