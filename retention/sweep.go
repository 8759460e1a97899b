package retention

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
)

// sweep is the state of one sweep.
type sweep struct {
	*Agent
	r   *Report
	rt  *os.Root
	now time.Time
}

// job is one job directory as the sweep sees it.
type job struct {
	name       string
	st         format.GroupState
	known      bool      // st was read
	finishedAt time.Time // st.FinishedAt, or the newest mtime when unknown
	// busy names a file that keeps a terminal job from being over: one
	// not finished by the finalizer's rules (dry run: modified within the
	// quiet period). "" when every file is finished.
	busy string
	// finals holds the finalizer's outcome for each journal file (by name),
	// run on every file in every real sweep, deletable or not.
	finals map[string]final
}

// final is what the finalizer said of one file in this sweep.
type final struct {
	out finalize.Outcome
	err error
}

func sortEntries(es []os.DirEntry) {
	slices.SortFunc(es, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

func (s *sweep) abs(rel string) string { return filepath.Join(s.cfg.Root, rel) }

// inside tells whether path is strictly inside the root.
func (s *sweep) inside(path string) bool { return within(path, s.cfg.Root) }

func (s *sweep) keep(d Decision) { s.r.add(d) }

func (s *sweep) fail(op string, format string, args ...any) {
	s.r.Errors++
	s.m.Errors.WithLabelValues(op).Inc()
	s.log.Errorf(format, args...)
}

func (s *sweep) statusFailed(err error) {
	s.r.Errors++
	var se *format.GroupError
	source := "unknown"
	if errors.As(err, &se) {
		source = se.Source
		if se.Unreachable && !s.r.StatusUnavailable {
			s.r.StatusUnavailable = true
			s.log.Errorf("%v: job status unavailable, nothing more is deleted in this sweep", err)
			s.m.StatusErrors.WithLabelValues(source).Inc()
			return
		}
	}
	s.m.StatusErrors.WithLabelValues(source).Inc()
	s.log.Errorf("%v: the job's files are kept", err)
}

// job handles one job directory.
func (s *sweep) job(ctx context.Context, name string) {
	jobDir := s.abs(name)
	entries, err := readDir(s.rt, name)
	if err != nil {
		s.fail("list", "cannot list %s: %v; its files are kept", jobDir, err)
		s.keep(Decision{Path: jobDir, Job: name, Reason: KeepUnreadableDir, Detail: err.Error()})
		return
	}
	j := job{name: name}
	if !s.r.StatusUnavailable {
		st, err := s.groupState(ctx, name)
		if err != nil {
			s.statusFailed(err)
		} else {
			j.st, j.known = st, true
		}
	}
	j.finals = s.finalizeAll(ctx, name, entries)
	if j.known && j.st.Terminal {
		j.busy = s.unfinished(j, entries)
		j.finishedAt = j.st.FinishedAt
		if j.finishedAt.IsZero() {
			j.finishedAt = s.newest(name, entries)
		}
	}
	deleted, journals := 0, 0
	for _, e := range entries {
		path := filepath.Join(jobDir, e.Name())
		switch {
		case !e.Type().IsRegular():
			s.keep(Decision{Path: path, Job: name, Reason: KeepNotRegular, Detail: "a " + journalfile.Kind(e.Type()) + ", never followed nor deleted"})
		case !strings.HasSuffix(e.Name(), ".jsonl"):
			s.keep(Decision{Path: path, Job: name, Reason: KeepNotJournal, Detail: "not a *.jsonl journal"})
		case !j.known:
			journals++
			s.keep(Decision{Path: path, Job: name, Reason: KeepStatusUnavailable, Detail: "the job's status could not be read"})
		default:
			journals++
			if s.file(ctx, j, e.Name()) {
				deleted++
			}
		}
	}
	s.removeDir(j, deleted, journals)
}

// isJournal tells whether a directory entry is a journal the sweep judges.
func isJournal(e os.DirEntry) bool {
	return e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl")
}

// finalizeAll offers every journal file of the job to the finalizer, so a
// finished file (a crashed session beside a newer one, a torn line gone
// stale) gets its remaining lines and truncated-tail marker into Loki in
// this sweep, whether or not it may be deleted yet. A dry run finalizes
// nothing.
func (s *sweep) finalizeAll(ctx context.Context, name string, entries []os.DirEntry) map[string]final {
	if s.cfg.DryRun {
		return nil
	}
	finals := map[string]final{}
	for _, e := range entries {
		if !isJournal(e) || ctx.Err() != nil {
			continue
		}
		path := s.abs(filepath.Join(name, e.Name()))
		finals[e.Name()] = s.finalize(ctx, path)
	}
	return finals
}

// unfinished returns the name of a journal of a terminal job that keeps
// the job from being over, or "": a file the finalizer did not call
// finished by its rules (in a dry run: one modified within the quiet
// period).
func (s *sweep) unfinished(j job, entries []os.DirEntry) string {
	for _, e := range entries {
		if !isJournal(e) {
			continue
		}
		if s.cfg.DryRun {
			info, err := s.rt.Lstat(filepath.Join(j.name, e.Name()))
			if err != nil || s.now.Sub(info.ModTime()) < s.cfg.QuietPeriod {
				return e.Name()
			}
			continue
		}
		// A file the finalizer could not work on (Loki down) does not make
		// the job busy: it stays unaccounted, and judge keeps it for that.
		if f, ok := j.finals[e.Name()]; ok && f.err == nil && !f.out.Finished {
			return e.Name()
		}
	}
	return ""
}

// newest returns the newest mtime of the job's regular files, or the
// directory's own mtime when it has none.
func (s *sweep) newest(name string, entries []os.DirEntry) time.Time {
	var t time.Time
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if info, err := s.rt.Lstat(filepath.Join(name, e.Name())); err == nil && info.ModTime().After(t) {
			t = info.ModTime()
		}
	}
	if t.IsZero() {
		if info, err := s.rt.Lstat(name); err == nil {
			t = info.ModTime()
		}
	}
	return t
}

// rule returns the rule that makes a file of job j with mtime a candidate,
// or "" and the reason it is kept.
func (s *sweep) rule(j job, mtime time.Time) (rule, reason, detail string) {
	age := s.now.Sub(mtime)
	if age < s.cfg.QuietPeriod {
		return "", KeepRecentlyModified, fmt.Sprintf("modified %s ago, within the quiet period of %s", age.Round(time.Second), s.cfg.QuietPeriod)
	}
	if j.st.Terminal && j.busy != "" && age <= s.cfg.MaxAge {
		return "", KeepJobActive, fmt.Sprintf("job %s, but its file %s is still being written", j.st.Status, j.busy)
	}
	if j.st.Terminal && j.busy == "" {
		due := j.finishedAt.Add(s.cfg.PostTerminal)
		if !s.now.Before(due) {
			return RuleJobTerminal, "", fmt.Sprintf("job %s, finished %s, %s ago, past the post-terminal retention of %s",
				j.st.Status, j.finishedAt.UTC().Format(time.RFC3339), s.now.Sub(j.finishedAt).Round(time.Second), s.cfg.PostTerminal)
		}
	}
	if age > s.cfg.MaxAge {
		return RuleMaxAge, "", fmt.Sprintf("modified %s ago, over the max age of %s, job %s", age.Round(time.Second), s.cfg.MaxAge, j.st.Status)
	}
	if j.st.Terminal && j.busy == "" {
		return "", KeepPostTerminal, fmt.Sprintf("job %s, finished %s; deletable from %s",
			j.st.Status, j.finishedAt.UTC().Format(time.RFC3339), j.finishedAt.Add(s.cfg.PostTerminal).UTC().Format(time.RFC3339))
	}
	return "", KeepJobActive, fmt.Sprintf("job %s; modified %s ago", j.st.Status, age.Round(time.Second))
}

// file judges one regular *.jsonl file and deletes it when due and
// accounted for. It returns whether the file was deleted.
func (s *sweep) file(ctx context.Context, j job, name string) bool {
	rel := filepath.Join(j.name, name)
	d := Decision{Path: s.abs(rel), Job: j.name}
	if !s.inside(d.Path) {
		d.Reason, d.Detail = KeepOutsideRoot, "the path leaves the root"
		s.keep(d)
		return false
	}
	info, err := s.rt.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false // gone since the listing: nothing to decide
	case err != nil:
		s.fail("stat", "cannot stat %s: %v; kept", d.Path, err)
		d.Reason, d.Detail = KeepStatError, err.Error()
		s.keep(d)
		return false
	case !info.Mode().IsRegular():
		d.Reason, d.Detail = KeepNotRegular, "no longer a regular file"
		s.keep(d)
		return false
	}
	d.Bytes = info.Size()
	rule, reason, detail := s.rule(j, info.ModTime())
	d.Rule, d.Detail = rule, detail
	if rule == "" {
		d.Reason = reason
		s.keep(d)
		return false
	}
	if s.cfg.DryRun {
		return s.judgeDry(ctx, d)
	}
	return s.judge(ctx, d, rel, j.finals[name])
}

// ledgerOf reads the candidate's ledger row; on failure the candidate is
// kept (KeepLedgerError) and ok is false.
func (s *sweep) ledgerOf(ctx context.Context, d Decision) (ls ledger.FileState, ok bool) {
	ls, err := s.ledger.File(ctx, d.Path)
	if err != nil {
		s.fail("ledger", "ledger for %s: %v; kept", d.Path, err)
		d.Reason, d.Detail = KeepLedgerError, err.Error()
		s.keep(d)
		return ls, false
	}
	return ls, true
}

// judgeDry decides a candidate from the ledger as it is: no finalizing.
func (s *sweep) judgeDry(ctx context.Context, d Decision) bool {
	ls, ok := s.ledgerOf(ctx, d)
	if !ok {
		return false
	}
	id, err := journalfile.IdentityOf(d.Path)
	if err == nil && !journalfile.Same(ls.Identity, id) {
		d.Reason, d.Detail = KeepReplaced, d.Detail+fmt.Sprintf("; the ledger's ranges are of file %s, the path names %s", ls.Identity, id)
		s.keep(d)
		return false
	}
	if ls.Finished && ls.Size == d.Bytes && err == nil {
		d.Delete = true
		s.r.add(d)
		return true
	}
	if d.Rule == RuleMaxAge {
		s.r.UnshippedPastMaxAge++
		if s.cfg.ForceMaxAge {
			d.Rule, d.Delete = RuleMaxAgeForced, true
			d.Detail += "; NOT accounted for in the ledger, forced"
			s.r.add(d)
			return true
		}
	}
	d.Reason, d.Detail = KeepNotFinalized, d.Detail+"; "+ledgerSays(ls, d.Bytes)+"; a real sweep finalizes it first"
	s.keep(d)
	return false
}

// judge takes the finalizer's word on a candidate (finalizeAll ran it),
// asks the ledger and deletes it if every byte is accounted for.
func (s *sweep) judge(ctx context.Context, d Decision, rel string, f final) bool {
	out, ferr := f.out, f.err
	ls, ok := s.ledgerOf(ctx, d)
	if !ok {
		return false
	}
	info, err := s.rt.Lstat(rel)
	if err != nil || !info.Mode().IsRegular() {
		d.Reason, d.Detail = KeepChanged, "gone or replaced while being finalized"
		s.keep(d)
		return false
	}
	if ls.Finished && ls.Size == info.Size() {
		d.Bytes = info.Size()
		return s.remove(ctx, d, rel, info, ls.Identity)
	}
	why := ledgerSays(ls, info.Size())
	if out.Why != "" {
		why += "; finalizer: " + out.Why
	}
	if d.Rule == RuleMaxAge {
		s.r.UnshippedPastMaxAge++
		if s.cfg.ForceMaxAge {
			s.log.Errorf("%s is past the max age and NOT fully in Loki (%s); deleting it anyway (--force-max-age)", d.Path, why)
			d.Rule, d.Detail, d.Bytes = RuleMaxAgeForced, d.Detail+"; NOT accounted for, forced: "+why, info.Size()
			return s.remove(ctx, d, rel, info, ls.Identity)
		}
		s.log.Warnf("%s is past the max age but NOT fully in Loki (%s): kept; is shipping failing?", d.Path, why)
	}
	switch {
	case ferr != nil:
		d.Reason = KeepFinalizeError
		why = ferr.Error() + "; " + why
	case ls.Finished:
		d.Reason = KeepAppended
	default:
		d.Reason = KeepUnshipped
	}
	d.Detail += "; " + why
	s.keep(d)
	return false
}

// ledgerSays describes what the ledger accounts for against the file size.
func ledgerSays(ls ledger.FileState, size int64) string {
	var b strings.Builder
	b.WriteString("ledger: ")
	if ls.Finished {
		fmt.Fprintf(&b, "finished at %d bytes", ls.Size)
	} else {
		b.WriteString("not finished")
	}
	b.WriteString(", shipped")
	if len(ls.Ranges) == 0 {
		b.WriteString(" nothing")
	}
	for i, r := range ls.Ranges {
		if i == 4 {
			fmt.Fprintf(&b, " ... (%d ranges)", len(ls.Ranges))
			break
		}
		fmt.Fprintf(&b, " [%d,%d)", r.Start, r.End)
	}
	fmt.Fprintf(&b, "; file %d bytes", size)
	return b.String()
}

// isNotEmpty tells whether rmdir failed because the directory has entries.
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

// remove deletes a judged file after checking it did not change, then
// forgets its ledger row.
//
// The last check is made on the open file right before the unlink: its
// size and mtime must be the judged ones and the path must still name it,
// so a writer that appended (or a file replaced) since the judgement
// keeps the file. After the unlink the open file is looked at once more:
// a writer that appended in between (microseconds, and only to a file
// quiet for QuietPeriod) is logged and counted as lost.
func (s *sweep) remove(ctx context.Context, d Decision, rel string, judged os.FileInfo, shipped journalfile.Identity) bool {
	f, err := s.rt.Open(rel)
	if err != nil {
		d.Reason, d.Detail = KeepChanged, "gone or unreadable just before deletion; judged again next sweep"
		s.keep(d)
		return false
	}
	defer f.Close()
	if !s.unchanged(f, rel, judged) || !s.inside(d.Path) {
		d.Reason, d.Detail = KeepChanged, "changed just before deletion; judged again next sweep"
		s.keep(d)
		return false
	}
	if id, err := journalfile.IdentityOfFile(f); err != nil || !journalfile.Same(shipped, id) {
		d.Reason, d.Detail = KeepReplaced, fmt.Sprintf("the ledger's ranges are of file %s, the path names %s; shipped from its start next sweep", shipped, id)
		s.keep(d)
		return false
	}
	if err := s.rt.Remove(rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		s.fail("delete", "cannot delete %s: %v; kept", d.Path, err)
		d.Reason, d.Detail = KeepDeleteFailed, err.Error()
		s.keep(d)
		return false
	}
	if after, err := f.Stat(); err == nil && (after.Size() != judged.Size() || !after.ModTime().Equal(judged.ModTime())) {
		s.fail("appended_during_delete", "%s grew from %d to %d bytes while being deleted: the bytes after %d are lost", d.Path, judged.Size(), after.Size(), judged.Size())
	}
	s.log.Infof("deleted %s — %s: %s; %d bytes", d.Path, d.Rule, d.Detail, d.Bytes)
	s.m.FilesDeleted.WithLabelValues(d.Rule).Inc()
	s.m.BytesDeleted.WithLabelValues(d.Rule).Add(float64(d.Bytes))
	if err := s.ledger.Forget(ctx, d.Path); err != nil {
		s.fail("forget", "deleted %s but could not forget its ledger row (the next sweep will): %v", d.Path, err)
	}
	d.Delete = true
	s.r.add(d)
	return true
}

// unchanged tells whether the open file f is a regular file with the
// judged size and mtime, and still the one the path rel names.
func (s *sweep) unchanged(f *os.File, rel string, judged os.FileInfo) bool {
	open, err := f.Stat()
	if err != nil || !open.Mode().IsRegular() || open.Size() != judged.Size() || !open.ModTime().Equal(judged.ModTime()) {
		return false
	}
	named, err := s.rt.Lstat(rel)
	return err == nil && os.SameFile(open, named) && os.SameFile(open, judged)
}

// removeDir removes a job directory found empty by a fresh listing, when
// files of it were deleted now or, holding no journal, it is itself due.
func (s *sweep) removeDir(j job, deleted, journals int) {
	if s.cfg.DryRun || !j.known {
		return
	}
	if deleted == 0 {
		if journals > 0 || !s.dirDue(j) {
			return
		}
	}
	jobDir := s.abs(j.name)
	if s.cfg.BeforeRelist != nil {
		s.cfg.BeforeRelist(jobDir)
	}
	entries, err := readDir(s.rt, j.name)
	if err != nil || len(entries) > 0 {
		return // a file appeared (a new session): the directory stays
	}
	if err := s.rt.Remove(j.name); err != nil {
		// EBUSY: a mount point (a runtime's sessions volume that is still
		// empty, in a DaemonSet or compose) is not a job directory to remove.
		if !errors.Is(err, fs.ErrNotExist) && !isNotEmpty(err) && !errors.Is(err, syscall.EBUSY) {
			s.fail("rmdir", "cannot remove empty job directory %s: %v", jobDir, err)
		}
		return
	}
	s.log.Infof("deleted empty job directory %s", jobDir)
	s.m.DirsDeleted.Inc()
	s.r.DirsDeleted = append(s.r.DirsDeleted, jobDir)
}

// dirDue tells whether a job directory without journals is itself past a
// rule: the job is terminal past PostTerminal, or the directory is older
// than MaxAge.
func (s *sweep) dirDue(j job) bool {
	if j.st.Terminal && !s.now.Before(j.finishedAt.Add(s.cfg.PostTerminal)) {
		return true
	}
	info, err := s.rt.Lstat(j.name)
	return err == nil && s.now.Sub(info.ModTime()) > s.cfg.MaxAge
}

// forgetOrphans forgets the ledger rows of files under the root that no
// longer exist (a crash between a deletion and its Forget, or a file
// removed by someone else, whose row would make a new file of the same
// name look shipped).
func (s *sweep) forgetOrphans(ctx context.Context) {
	if ctx.Err() != nil {
		return // a sweep stopped part way: the next one forgets them
	}
	states, err := s.ledger.Files(ctx)
	if err != nil {
		s.fail("ledger", "listing the ledger: %v; stale rows are kept", err)
		return
	}
	for _, st := range states {
		if !s.inside(st.Path) {
			continue
		}
		rel, _ := filepath.Rel(s.cfg.Root, st.Path)
		if _, err := s.rt.Lstat(rel); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if !s.cfg.DryRun {
			if err := s.ledger.Forget(ctx, st.Path); err != nil {
				s.fail("forget", "forgetting the ledger row of missing %s: %v", st.Path, err)
				continue
			}
			s.m.LedgerRowsForgotten.Inc()
		}
		s.r.RowsForgotten++
	}
}
