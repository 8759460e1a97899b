package retention

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/verdict"
)

// A file-per-run layout (Codelia's sessions/YYYY/MM/DD/<run_id>.jsonl,
// OrbitMesh's sessions/<session_id>.messages.jsonl) has no job directory:
// each journal is its own group (format.Path.Group is the file), over when
// its own lines say so. Such a tree is swept file by file.

// maxRunDepth bounds how deep a run tree is walked below the root's entry.
const maxRunDepth = 6

// runTree tells whether the root's directory name holds a file-per-run
// layout: the first journal found in it (depth first, by name, at most
// maxRunDepth deep) is of a format whose Unit is not a directory of
// sessions (format.UnitDirectory: a job directory). A directory with
// subdirectories and no journal yet (a runtime's tree whose runs were all
// deleted, or not written yet) is one too: a job directory holds its
// session files only, so it is never taken for an empty job directory
// and removed.
func (s *sweep) runTree(name string) bool {
	var found format.Format
	subdirs := false
	_ = fs.WalkDir(s.rt.FS(), name, func(rel string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return fs.SkipDir
		case d.IsDir() && rel != name:
			subdirs = true
			if strings.Count(rel, "/") > maxRunDepth {
				return fs.SkipDir
			}
		case d.Type().IsRegular() && strings.HasSuffix(rel, ".jsonl"):
			// Only a format's own claim (or the Format setting) counts:
			// a stray file no format claims (the fallback makes every
			// such file its own group) says nothing of the layout; the
			// walk goes on past it.
			if det := s.formats.Detect(s.abs(rel), nil); det.How == "path" || det.How == "setting" {
				found = det.Format
				return fs.SkipAll
			}
		}
		return nil
	})
	if found == nil {
		return subdirs
	}
	d, _ := registry.Describe(found.Name())
	return d.Unit != format.UnitDirectory
}

// runs sweeps a file-per-run tree: every journal is judged alone, its
// companions go with it, and the directories it leaves empty below the
// tree's top (Codelia's dated directories) are removed. The top itself
// stays: the runtime writes there.
func (s *sweep) runs(ctx context.Context, top string) {
	var dirs []string
	err := fs.WalkDir(s.rt.FS(), top, func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			s.fail("list", "cannot list %s: %v; its files are kept", s.abs(rel), err)
			s.keep(Decision{Path: s.abs(rel), Reason: KeepUnreadableDir, Detail: err.Error()})
			return fs.SkipDir
		}
		if ctx.Err() != nil {
			return fs.SkipAll
		}
		switch {
		case d.IsDir():
			if strings.Count(rel, "/") > maxRunDepth {
				return fs.SkipDir
			}
			if rel != top {
				dirs = append(dirs, rel)
			}
		case d.Type()&fs.ModeSymlink != 0 || !d.Type().IsRegular():
			s.keep(Decision{Path: s.abs(rel), Reason: KeepNotRegular, Detail: "a " + kindOf(d) + ", never followed nor deleted"})
		case strings.HasSuffix(rel, ".jsonl"):
			s.run(ctx, rel)
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		s.fail("list", "walking %s: %v", s.abs(top), err)
	}
	for i := len(dirs) - 1; i >= 0; i-- { // deepest first
		s.removeEmpty(dirs[i])
	}
}

func kindOf(d fs.DirEntry) string {
	if d.Type()&fs.ModeSymlink != 0 {
		return "symlink"
	}
	return "special file"
}

// run judges one journal of a file-per-run tree and deletes it (with its
// companions) when due and accounted for.
func (s *sweep) run(ctx context.Context, rel string) {
	if _, err := s.rt.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
		return // deleted in this walk, with its session's main journal
	}
	path := s.abs(rel)
	det := s.formats.Detect(path, nil)
	d := Decision{Path: path, Job: det.Path.RunID}
	if det.How == "fallback" {
		// No format claims it: another runtime's file in the tree (a Go
		// pkg/session store inside a Claude Code project directory), never
		// judged by a layout it is not in.
		d.Reason, d.Detail = KeepNotJournal, "no journal format claims it: left alone"
		s.keep(d)
		return
	}
	if d.Job == "" {
		d.Job = det.Path.SessionID
	}
	member, mainLive := s.memberOf(det.Path, path)
	if mainLive {
		return // a session's member journal: decided with its main journal (sessions.go)
	}
	if det.Path.Group != path && !member {
		d.Reason, d.Detail = KeepNotJournal, "a "+det.Format.Name()+" journal outside a file-per-run layout: left alone"
		s.keep(d)
		return
	}
	relDir, ms, side := s.members(det.Format, path)
	var fin final
	if !s.cfg.DryRun {
		fin = s.finalize(ctx, path)
	}
	info, err := s.rt.Lstat(rel)
	if err != nil || !info.Mode().IsRegular() {
		return // gone or replaced since the listing: nothing to decide
	}
	d.Bytes = info.Size()
	mtime := info.ModTime()
	if side.After(mtime) {
		mtime = side
	}
	rule, reason, detail := s.runRule(path, det.Format, newestOf(mtime, ms))
	d.Rule, d.Detail = rule, detail
	if rule == "" {
		d.Reason = reason
		s.keep(d)
		s.keepMembers(d, ms)
		return
	}
	if len(ms) > 0 && !s.membersReady(ctx, d, ms) {
		return
	}
	var deleted bool
	if s.cfg.DryRun {
		deleted = s.judgeDry(ctx, d)
	} else {
		deleted = s.judge(ctx, d, rel, fin)
	}
	if !deleted {
		s.keepMembers(Decision{Path: path, Job: d.Job, Reason: KeepUnshipped, Detail: "its session's main journal is kept"}, ms)
		return
	}
	if !s.cfg.DryRun {
		s.removeCompanions(det.Path)
		s.removeBeside(det.Format, path)
	}
	s.removeMembers(ctx, d, relDir, ms)
}

// runRule returns the rule that makes a run's journal a candidate, or ""
// and the reason it is kept. The run is over for good when the verdict on
// its whole file says so (read now: the file may have changed since the
// finalizer looked), since mtime, its session's last write.
func (s *sweep) runRule(path string, fm format.Format, mtime time.Time) (rule, reason, detail string) {
	age := s.now.Sub(mtime)
	if age < s.cfg.QuietPeriod {
		return "", KeepRecentlyModified, fmt.Sprintf("modified %s ago, within the quiet period of %s", age.Round(time.Second), s.cfg.QuietPeriod)
	}
	v, err := s.verdict.Session(path, fm, mtime)
	over := err == nil && v.Over && v.Terminal
	if over && !s.now.Before(v.When.Add(s.cfg.PostTerminal)) {
		return RuleRunOver, "", fmt.Sprintf("%s run over (%s), last written %s ago, past the post-terminal retention of %s",
			fm.Name(), orState(v), age.Round(time.Second), s.cfg.PostTerminal)
	}
	if age > s.cfg.MaxAge {
		return RuleMaxAge, "", fmt.Sprintf("modified %s ago, over the max age of %s", age.Round(time.Second), s.cfg.MaxAge)
	}
	if over {
		return "", KeepPostTerminal, fmt.Sprintf("%s run over (%s); deletable from %s", fm.Name(), orState(v),
			v.When.Add(s.cfg.PostTerminal).UTC().Format(time.RFC3339))
	}
	return "", KeepRunActive, fmt.Sprintf("%s run not over for good; modified %s ago", fm.Name(), age.Round(time.Second))
}

// orState names how a run ended: its derived state, its end reason, or
// "ended".
func orState(v verdict.Verdict) string {
	switch {
	case v.State != "":
		return v.State
	case v.EndReason != "":
		return v.EndReason
	}
	return "ended"
}

// removeCompanions deletes the files that belong to a deleted journal
// alone (a snapshot beside it), when they are regular files in the root
// reached through directories, not symlinks, and no format's journals:
// whatever a format names, a journal is only ever deleted as one, judged
// on its own.
func (s *sweep) removeCompanions(p format.Path) {
	for _, c := range p.Companions {
		if !s.inside(c) {
			continue
		}
		rel, _ := filepath.Rel(s.cfg.Root, c)
		info, err := s.rt.Lstat(rel)
		if err != nil || !info.Mode().IsRegular() || !s.realParents(rel) {
			continue
		}
		if det := s.formats.Detect(c, nil); det.How == "path" || det.How == "setting" {
			s.log.Warnf("not deleting %s with a deleted journal: it is a %s journal, judged on its own", c, det.Format.Name())
			continue
		}
		if err := s.rt.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.fail("delete", "cannot delete %s beside a deleted journal: %v", c, err)
			continue
		}
		s.log.Infof("deleted %s with its journal", c)
	}
}

// removeBeside deletes the files a format reads beside a deleted journal
// that belong to it alone (format.OwnsBeside), when they are regular files
// in the root below the journal's directory, then the directories it
// names once empty.
func (s *sweep) removeBeside(fm format.Format, path string) {
	ob, ok := fm.(format.OwnsBeside)
	if !ok {
		return
	}
	files, dirs := ob.Beside(path, s.now)
	files = slices.DeleteFunc(files, func(f string) bool { return !within(filepath.Dir(f), filepath.Dir(path)) })
	s.removeCompanions(format.Path{Companions: files})
	for _, d := range dirs {
		// Only directories below the journal's own: never the one it is
		// in, nor one above.
		if rel, err := filepath.Rel(s.cfg.Root, d); err == nil && within(d, filepath.Dir(path)) && s.realDir(rel) && s.realParents(rel) {
			s.removeEmpty(rel)
		}
	}
}

// realParents tells whether every directory between the root and rel is
// a directory itself, not a symlink to one (which os.Root follows while
// it stays inside the root).
func (s *sweep) realParents(rel string) bool {
	for d := filepath.Dir(rel); d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if !s.realDir(d) {
			return false
		}
	}
	return true
}

// removeEmpty removes a directory when it is empty: below a run tree's top
// (a dated directory whose runs were all deleted), or a deleted session's.
func (s *sweep) removeEmpty(rel string) {
	if s.cfg.DryRun {
		return
	}
	entries, err := readDir(s.rt, rel)
	if err != nil || len(entries) > 0 {
		return
	}
	if err := s.rt.Remove(rel); err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !isNotEmpty(err) {
			s.fail("rmdir", "cannot remove empty directory %s: %v", s.abs(rel), err)
		}
		return
	}
	s.log.Infof("deleted empty directory %s", s.abs(rel))
	s.m.DirsDeleted.Inc()
	s.r.DirsDeleted = append(s.r.DirsDeleted, s.abs(rel))
}
