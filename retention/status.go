package retention

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/journalship/journalship/format"
)

// Pinger is implemented by status sources that can be checked once per
// sweep before any decision is made (the job database, jobdb.Status). A failing Ping means the
// sweep deletes nothing.
type Pinger interface {
	Ping(ctx context.Context) error
}

// groupState returns the state of the job directory name, whose entries
// are listed: the verdict's (package verdict), from the configured status
// source or the journals of its format. A directory without a journal a
// format groups by directory has not ended, unless a status source says
// otherwise.
func (s *sweep) groupState(ctx context.Context, name string, entries []os.DirEntry) (format.GroupState, error) {
	dir := s.abs(name)
	var fm format.Format
	for _, e := range entries {
		if !isJournal(e) {
			continue
		}
		if det := s.formats.Detect(filepath.Join(dir, e.Name()), nil); det.How == "path" && det.Path.Group == dir {
			fm = det.Format
			break
		}
	}
	if fm == nil && s.groups == nil {
		return format.GroupState{Status: "no session file"}, nil
	}
	st, err := s.verdict.Group(ctx, dir, fm)
	var se *format.GroupError
	if err != nil && !errors.As(err, &se) {
		err = &format.GroupError{Source: "journal", Group: dir, Err: err}
	}
	return st, err
}
