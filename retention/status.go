package retention

import (
	"context"
	"errors"

	"github.com/journalship/journalship/format"
)

// Pinger is implemented by status sources that can be checked once per
// sweep before any decision is made (the job database, jobdb.Status). A failing Ping means the
// sweep deletes nothing.
type Pinger interface {
	Ping(ctx context.Context) error
}

// groupState returns the state of the job directory name: the verdict's
// (package verdict), from the configured status source or the journals
// that claim the directory as their group.
func (s *sweep) groupState(ctx context.Context, name string) (format.GroupState, error) {
	dir := s.abs(name)
	st, err := s.verdict.Group(ctx, dir)
	var ge *format.GroupError
	if err != nil && s.groups == nil && !errors.As(err, &ge) {
		err = &format.GroupError{Source: "journal", Group: dir, Err: err}
	}
	return st, err
}
