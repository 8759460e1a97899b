package verdict

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/journalfile"
)

// Config tunes the verdict.
type Config struct {
	// Quiet is how long a file judged from outside its own lines (a newer
	// session beside it, its group terminal, an idle session of a format
	// that writes no end, a partial last line) must stay unchanged before
	// it is finished: a runtime may still append to it. It is also how
	// long an idle session of a format that writes no end must stay quiet
	// to be over. Default 10m.
	Quiet time.Duration
	// Idle, when positive, takes a file unchanged this long for finished
	// whatever it says (a writer that stopped exactly at a line's end and
	// never came back). 0, the default, turns the rule off.
	Idle time.Duration
	// Audit judges whole files.
	Audit audit.Config
	// Now is the clock.
	Now func() time.Time
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Quiet: 10 * time.Minute, Audit: audit.DefaultConfig(), Now: time.Now}
}

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Quiet < 0 || c.Idle < 0 || c.Now == nil {
		return errors.New("verdict: quiet >= 0, idle >= 0 and a clock are required")
	}
	return c.Audit.Validate()
}

// Verdict is what is known of one journal's end.
type Verdict struct {
	// Finished: no more lines are expected; Why names the rule (the
	// sentences of the rules in the package's doc), or is "".
	Finished bool
	Why      string
	// Judged: the whole file was judged, and the fields below are known
	// (always by Session; by Of where a rule needed it).
	Judged bool
	// Over: the session or run has ended (for a format that writes no
	// end: it is idle and stayed quiet). Terminal: for good, not a pause.
	Over, Terminal bool
	// When is when the session ended as retention counts it, once Over:
	// its last write, or for a format that writes no end its last write
	// plus Quiet.
	When time.Time
	// EndReason is how it ended, State the state derived from its lines,
	// Open what it leaves unanswered (sentences).
	EndReason, State string
	Open             []string
}

// The rules, as Why names them.
const (
	WhyEnded       = "session ended"
	WhyNewer       = "a newer session file stands beside it"
	WhyGroupEnded  = "job is terminal"
	whyIdlePrefix  = "session idle and unchanged for "
	whyTornPrefix  = "partial last line unchanged for "
	whyStillPrefix = "unchanged for "
)

// Judge gives verdicts. It is safe for concurrent use.
type Judge struct {
	cfg      Config
	groups   format.GroupStatus
	formatOf func(path string) format.Format
}

// New returns a Judge. groups, when not nil, answers for every group
// directory instead of its format's journals (format.GroupEnder).
// formatOf finds the format of a journal beside the one judged (the
// shipper's, with the configured Format and Format_Roots); nil detects
// it by its path among the registered formats.
func New(cfg Config, groups format.GroupStatus, formatOf func(path string) format.Format) (*Judge, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if formatOf == nil {
		reg, err := registry.New(registry.DefaultConfig())
		if err != nil {
			return nil, err
		}
		formatOf = func(path string) format.Format { return reg.Detect(path, nil).Format }
	}
	return &Judge{cfg: cfg, groups: groups, formatOf: formatOf}, nil
}

// Session returns the verdict on the session of the journal at path, of
// format fm, from its whole file alone: Over, Terminal, When, EndReason,
// State and Open; the finishing rules are not applied. When counts from
// lastWrite, the session's last write (a member journal of it may be
// newer than the journal); zero: the journal's own modification time.
func (j *Judge) Session(path string, fm format.Format, lastWrite time.Time) (Verdict, error) {
	var v Verdict
	if lastWrite.IsZero() {
		info, err := os.Stat(path)
		if err != nil {
			return v, err
		}
		lastWrite = info.ModTime()
	}
	return v, j.judge(&v, path, fm, lastWrite)
}

// Of returns whether the journal at path, of format fm, whose tail t was
// just read (journalfile.ReadTail), is finished, and why; the session's
// facts too where a rule judged the whole file.
func (j *Judge) Of(ctx context.Context, path string, fm format.Format, t journalfile.Tail) (Verdict, error) {
	var v Verdict
	why, err := j.finished(ctx, &v, path, fm, t)
	v.Finished, v.Why = why != "", why
	return v, err
}

// finished returns the rule that makes the file finished, or "".
//
// Only a file that says so itself (its last line ends the session) is
// finished while it may still change. The rules that judge a file from
// outside (a newer session beside it, its group terminal) also need it
// quiet, unchanged for Quiet: a runtime may keep appending to an older
// session after a newer one started, or after another session of the job
// ended, and a file finished (and then deleted) under a writer loses
// every line appended after.
func (j *Judge) finished(ctx context.Context, v *Verdict, path string, fm format.Format, t journalfile.Tail) (string, error) {
	if len(t.Partial) == 0 && j.ends(v, path, fm, t) {
		return WhyEnded, nil
	}
	if j.cfg.Now().Sub(t.ModTime) < j.cfg.Quiet {
		return "", nil // still being written, whatever stands beside it
	}
	if newerSessionBeside(path, fm) {
		return WhyNewer, nil
	}
	if registry.EndOf(fm.Name()) == format.EndQuiet && j.over(v, path, fm, t.ModTime) {
		return whyIdlePrefix + j.cfg.Quiet.String(), nil
	}
	if dir, gfm, ok := j.groupOf(path, fm); ok {
		st, err := j.group(ctx, dir, gfm)
		if err != nil {
			return "", err
		}
		if st.Terminal {
			return WhyGroupEnded, nil
		}
	}
	if len(t.Partial) > 0 {
		return whyTornPrefix + j.cfg.Quiet.String(), nil
	}
	if j.cfg.Idle > 0 && j.cfg.Now().Sub(t.ModTime) >= j.cfg.Idle {
		return whyStillPrefix + j.cfg.Idle.String(), nil
	}
	return "", nil
}

// ends tells whether the file's last line ends its session or run, by the
// file's format (its judge sets Event.Ends), or, for a format that writes
// the end beside the journal, whether its side files say a run ended. A
// format that derives the end from every line (ScopeAllLines), or from
// side files, must also say so over the whole file.
func (j *Judge) ends(v *Verdict, path string, fm format.Format, t journalfile.Tail) bool {
	p, _ := fm.Claim(path)
	var ev format.Event
	fm.NewJudge().Judge(t.Last, fm.NewState(p), integrity.NewArena(len(t.Last)+64), &ev)
	if !ev.Ends {
		eb, ok := fm.(format.EndsBeside)
		if !ok || registry.EndOf(fm.Name()) != format.EndBeside || !eb.EndWritten(path) {
			return false
		}
	} else if fm.Scope() == format.ScopeFirstLine {
		return true
	}
	return j.over(v, path, fm, t.ModTime)
}

// over judges the whole file (once) and tells whether its session is
// over.
func (j *Judge) over(v *Verdict, path string, fm format.Format, mtime time.Time) bool {
	if !v.Judged && j.judge(v, path, fm, mtime) != nil {
		return false
	}
	return v.Over
}

// judge fills v's session facts from the whole file.
func (j *Judge) judge(v *Verdict, path string, fm format.Format, mtime time.Time) error {
	rep, err := audit.FileAs(path, j.cfg.Audit, fm)
	if err != nil {
		return err
	}
	s := Session(rep, fm, mtime, j.cfg.Quiet)
	s.Finished, s.Why = v.Finished, v.Why
	*v = s
	return nil
}

// Session is the verdict on a session from the audit of its whole file,
// rep, of format fm, last written at mtime; quiet is how long an idle
// session of a format that writes no end must stay quiet to be over.
// Finished and Why are left for the rules.
func Session(rep audit.Report, fm format.Format, mtime time.Time, quiet time.Duration) Verdict {
	v := Verdict{Judged: true, Over: rep.SessionEnded, Terminal: rep.SessionEnded && rep.Terminal,
		EndReason: rep.EndReason, State: rep.State, Open: rep.Unfinished}
	if v.Over {
		v.When = mtime
		if registry.EndOf(fm.Name()) == format.EndQuiet {
			v.When = mtime.Add(quiet) // no end record: over once quiet
		}
	}
	return v
}

// NoGroupJournal is the status of a directory no journal claims as its
// group, with no job status source configured.
const NoGroupJournal = "no journal of the group"

// Group returns the state of the group whose directory is dir: the
// configured GroupStatus's, else the one its journals say (GroupEnder of
// the format whose journals claim dir as their group). A directory no
// journal claims has not ended.
func (j *Judge) Group(ctx context.Context, dir string) (format.GroupState, error) {
	gfm, _ := j.scan(dir)
	return j.group(ctx, dir, gfm)
}

// group returns the state of the group dir of format gfm (nil: unknown).
func (j *Judge) group(ctx context.Context, dir string, gfm format.Format) (format.GroupState, error) {
	if j.groups != nil {
		return j.groups.Group(ctx, dir)
	}
	if ge, ok := gfm.(format.GroupEnder); ok {
		return ge.GroupEnd(dir)
	}
	return format.GroupState{Status: NoGroupJournal}, nil
}

// groupOf tells whether the journal at path, of format fm, belongs to a
// group directory, which, and the group's format (nil when unknown). A
// journal its format claims as a group of its own (a run) belongs to
// none. One no format claims (a stray file in a job directory) belongs
// to its directory when a journal there claims it as its group, or, with
// a job status source configured (it knows the directory's job), when no
// journal there is a group of its own (a run tree's directory is no job).
func (j *Judge) groupOf(path string, fm format.Format) (dir string, gfm format.Format, ok bool) {
	dir = filepath.Dir(path)
	if p, claimed := fm.Claim(path); claimed {
		return dir, fm, p.Group == dir
	}
	gfm, runs := j.scan(dir)
	return dir, gfm, gfm != nil || (j.groups != nil && !runs)
}

// scan returns the format of the first journal of dir (by name) that its
// format claims with dir as its group, or nil, and whether a journal
// before it is claimed as a group of its own.
func (j *Judge) scan(dir string) (gfm format.Format, runs bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fm := j.formatOf(path)
		if fm == nil {
			continue
		}
		if p, ok := fm.Claim(path); ok {
			if p.Group == dir {
				return fm, runs
			}
			runs = true
		}
	}
	return nil, runs
}

// newerSessionBeside tells whether the file's group directory (a Cortex
// Plane job directory) holds another journal of the same format whose path
// says it started later. A format whose group is the file itself, or whose
// path says no start, has no "newer session beside it".
func newerSessionBeside(path string, fm format.Format) bool {
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
