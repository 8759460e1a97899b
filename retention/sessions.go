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
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
)

// A session of a format.SessionDir format (Claude Code) is a main journal,
// <project>/<session>.jsonl, and a directory beside it, <project>/<session>/,
// holding its subagents' journals (members, whose Path.Group is the main
// journal) and files that are no journals (sidecars, large tool outputs).
// The session is judged by its main journal, at the time of its newest
// file, and deleted as one: the main journal when every member is in Loki
// too, then the members, then the rest of the directory.

// member is a journal of a session besides its main one.
type member struct {
	rel    string
	info   os.FileInfo
	fin    final
	ls     ledger.FileState
	forced string // why a member not accounted for is deleted anyway (ForceMaxAge), else ""
}

// memberOf tells whether path is a session's member journal (its group is
// another journal in the root) and whether that main journal exists: a
// member is decided with its main journal, or alone when the main is gone
// (the runtime's own cleanup may delete it first).
func (s *sweep) memberOf(p format.Path, path string) (member, mainLive bool) {
	if p.Group == path || !strings.HasSuffix(p.Group, ".jsonl") || !s.inside(p.Group) {
		return false, false
	}
	rel, err := filepath.Rel(s.cfg.Root, p.Group)
	if err != nil {
		return true, false
	}
	info, err := s.rt.Lstat(rel)
	return true, err == nil && info.Mode().IsRegular()
}

// members lists the member journals of the main journal at path, and the
// session directory's path relative to the root ("" for a format without
// session directories). side is the latest modification time of the
// directory's files that are no journals (a tool output stored, a
// sidecar): a session writing them is not idle.
func (s *sweep) members(fm format.Format, path string) (relDir string, out []member, side time.Time) {
	sd, ok := fm.(format.SessionDir)
	if !ok {
		return "", nil, side
	}
	dir, ok := sd.SessionDir(path)
	if !ok || !s.inside(dir) {
		return "", nil, side
	}
	relDir, err := filepath.Rel(s.cfg.Root, dir)
	if err != nil || !s.realDir(relDir) {
		return "", nil, side
	}
	_ = fs.WalkDir(s.rt.FS(), relDir, func(rel string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasSuffix(rel, ".jsonl") {
			if info, err := d.Info(); err == nil && info.ModTime().After(side) {
				side = info.ModTime()
			}
		}
		if err != nil || d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(rel, ".jsonl") || s.abs(rel) == path {
			return nil // (a main journal inside its own directory, Go pkg/session's, is no member of itself)
		}
		if det := s.formats.Detect(s.abs(rel), nil); det.Path.Group == path {
			if info, err := s.rt.Lstat(rel); err == nil {
				out = append(out, member{rel: rel, info: info})
			}
		}
		return nil
	})
	return relDir, out, side
}

// holdsJournal tells whether the directory rel holds a journal file
// (isJournal) itself, or cannot be listed (then it is left alone too).
func (s *sweep) holdsJournal(rel string) bool {
	entries, err := readDir(s.rt, rel)
	return err != nil || slices.ContainsFunc(entries, isJournal)
}

// realDir tells whether rel is a directory itself, not a symlink to one:
// a walk from a symlink would list (and delete) another session's files.
func (s *sweep) realDir(rel string) bool {
	info, err := s.rt.Lstat(rel)
	return err == nil && info.IsDir()
}

// newestOf returns the latest modification time of the main journal and
// its members.
func newestOf(t time.Time, ms []member) time.Time {
	for _, m := range ms {
		if m.info.ModTime().After(t) {
			t = m.info.ModTime()
		}
	}
	return t
}

// keepMembers records that the members stay, for the reason their main
// journal stays.
func (s *sweep) keepMembers(d Decision, ms []member) {
	for _, m := range ms {
		md := d
		md.Path, md.Bytes = s.abs(m.rel), m.info.Size()
		md.Detail = "with its session " + d.Path + ": " + d.Detail
		s.keep(md)
	}
}

// membersReady finalizes the members (unless dry) and tells whether every
// one is accounted for in the ledger; when one is not, the whole session
// is kept and the report says which file holds it back.
func (s *sweep) membersReady(ctx context.Context, d Decision, ms []member) bool {
	for i := range ms {
		m := &ms[i]
		path := s.abs(m.rel)
		if !s.cfg.DryRun {
			m.fin = s.finalize(ctx, path)
		}
		ls, err := s.ledger.File(ctx, path)
		if err != nil {
			s.fail("ledger", "ledger for %s: %v; its session is kept", path, err)
			d.Reason, d.Detail = KeepLedgerError, path+": "+err.Error()
			s.keep(d)
			s.keepMembers(d, ms)
			return false
		}
		m.ls = ls
		info, err := s.rt.Lstat(m.rel)
		if err != nil || !info.Mode().IsRegular() {
			continue // gone since the listing: nothing of it to keep
		}
		m.info = info
		id, idErr := journalfile.IdentityOf(path)
		if ls.Finished && ls.Size == info.Size() && idErr == nil && journalfile.Same(ls.Identity, id) {
			continue
		}
		why := ledgerSays(ls, info.Size())
		if m.fin.out.Why != "" {
			why += "; finalizer: " + m.fin.out.Why
		}
		if d.Rule == RuleMaxAge {
			s.r.UnshippedPastMaxAge++
			if s.cfg.ForceMaxAge {
				s.log.Errorf("%s is past the max age and NOT fully in Loki (%s); deleting it with its session anyway (--force-max-age)", path, why)
				m.forced = why
				continue
			}
			s.log.Warnf("%s is past the max age but NOT fully in Loki (%s): its session is kept; is shipping failing?", path, why)
		}
		d.Reason = KeepUnshipped
		if m.fin.err != nil {
			d.Reason = KeepFinalizeError
		}
		d.Detail += fmt.Sprintf("; its session's file %s is not fully in Loki (%s)", path, why)
		s.keep(d)
		s.keepMembers(d, ms)
		return false
	}
	return true
}

// removeMembers deletes the members of a deleted main journal, each
// checked unchanged since it was judged, then the session directory's
// files that are no journals (its directories go when the tree's empty
// directories are removed).
func (s *sweep) removeMembers(ctx context.Context, d Decision, relDir string, ms []member) {
	all := true
	for _, m := range ms {
		md := Decision{Path: s.abs(m.rel), Job: d.Job, Rule: d.Rule, Bytes: m.info.Size(),
			Detail: "a file of the session " + d.Path + ", deleted with it"}
		if m.forced != "" {
			md.Rule, md.Detail = RuleMaxAgeForced, md.Detail+"; NOT accounted for, forced: "+m.forced
		}
		if s.cfg.DryRun {
			md.Delete = true
			s.r.add(md)
			continue
		}
		if !s.remove(ctx, md, m.rel, m.info, m.ls.Identity) {
			all = false
		}
	}
	if all && relDir != "" && !s.cfg.DryRun {
		s.removeSessionRest(relDir)
		if err := s.ledger.ForgetMarks(ctx, d.Path); err != nil {
			s.fail("ledger", "forgetting the marks of deleted session %s: %v", d.Path, err)
		}
	}
}

// removeSessionRest deletes the regular files left in a deleted session's
// directory that are no journals (subagent sidecars, stored tool outputs,
// Go pkg/session's metadata.json, checkpoints and lock files), then the
// directories left empty, the session directory itself last: the session
// is deleted as one, even when its directory is a run tree's top (a Go
// pkg/session store's <base>/<session id>/). A directory that is not empty
// (a journal kept, a file written since) stays.
func (s *sweep) removeSessionRest(relDir string) {
	if !s.realDir(relDir) {
		return
	}
	dirs := []string{}
	_ = fs.WalkDir(s.rt.FS(), relDir, func(r string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			if s.holdsJournal(r) {
				// Another session's directory (a Go pkg/session session
				// nested in this one), or a journal written since: its
				// files are its own.
				return fs.SkipDir
			}
			dirs = append(dirs, r)
		}
		if err != nil || !e.Type().IsRegular() || strings.HasSuffix(r, ".jsonl") {
			return nil
		}
		if err := s.rt.Remove(r); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				s.fail("delete", "cannot delete %s of a deleted session: %v", s.abs(r), err)
			}
			return nil
		}
		s.log.Infof("deleted %s with its session", s.abs(r))
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- { // deepest first
		s.removeEmpty(dirs[i])
	}
}
