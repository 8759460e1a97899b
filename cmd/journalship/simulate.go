package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

const simulateAbout = `Acts as a fleet of agents: keeps appending realistic Cortex Plane journals
under DIR/<job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl, one line every
--interval, round-robin over --jobs concurrent jobs, following the write
protocol (whole lines with their newline; SESSION_START first, SESSION_END
last). Every --crash-every'th session dies mid-append: a partial last line
and no SESSION_END. Content comes from internal/sample; timestamps are the
time of writing. Runs until interrupted; --once writes one round of jobs,
as fast as it can unless --interval is given, then exits.`

// simulateOpts are `journalship simulate`'s flags.
type simulateOpts struct {
	dir        string
	interval   time.Duration
	seed       int64
	crashEvery int
	jobs       int
	once       bool
}

// parseSimulate parses and checks the flags; --help goes to w.
func parseSimulate(args []string, w io.Writer) (simulateOpts, error) {
	o := simulateOpts{}
	c := newCommand("simulate", "journalship simulate --dir DIR [--interval 1s] [--seed N] [--crash-every N] [--jobs N] [--once]", simulateAbout)
	c.out = w
	c.fs.StringVar(&o.dir, "dir", "", "sessions root to write into (created if missing)")
	c.fs.DurationVar(&o.interval, "interval", time.Second, "time between two appended lines (0: as fast as possible; with --once, 0 unless given)")
	c.fs.Int64Var(&o.seed, "seed", 1, "seeds the content and the crash points (round r uses seed+r)")
	c.fs.IntVar(&o.crashEvery, "crash-every", 0, "every N-th session crashes mid-line (0: never)")
	c.fs.IntVar(&o.jobs, "jobs", 4, "jobs written concurrently in a round")
	c.fs.BoolVar(&o.once, "once", false, "write one round of --jobs jobs, then exit")
	if err := c.parse(args); err != nil {
		return o, err
	}
	if o.once && !c.set("interval") {
		o.interval = 0 // a one-off sample: no reason to wait between lines
	}
	if err := o.validate(c.fs.Args()); err != nil {
		return o, c.usage("%v", err)
	}
	return o, nil
}

func (o simulateOpts) validate(rest []string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected arguments %q (use --dir)", rest)
	case o.dir == "":
		return errors.New("--dir is required")
	case o.interval < 0:
		return fmt.Errorf("--interval %s is negative", o.interval)
	case o.crashEvery < 0:
		return fmt.Errorf("--crash-every %d is negative", o.crashEvery)
	case o.jobs < 1 || o.jobs > sample.MaxJobs:
		return fmt.Errorf("--jobs %d is outside [1, %d]", o.jobs, sample.MaxJobs)
	}
	return nil
}

func runSimulate(args []string, stdout io.Writer) error {
	o, err := parseSimulate(args, stdout)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return newSimulator(o, time.Now, stdout).run(ctx)
}

// simulator writes rounds of generated jobs as live agents would.
type simulator struct {
	opts    simulateOpts
	now     func() time.Time
	log     io.Writer
	rng     *rand.Rand // crash points
	started int        // sessions started, for --crash-every
	crashes int
}

// newSimulator returns a simulator reading the time from now and logging
// each session's end to log.
func newSimulator(o simulateOpts, now func() time.Time, log io.Writer) *simulator {
	return &simulator{opts: o, now: now, log: log, rng: rand.New(rand.NewPCG(uint64(o.seed), 0x51a1))}
}

// run writes rounds until ctx ends (returning nil) or, with --once, one.
func (s *simulator) run(ctx context.Context) error {
	if err := os.MkdirAll(s.opts.dir, 0o755); err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	s.announce()
	for round := 0; ; round++ {
		err := s.round(ctx, round)
		if ctx.Err() != nil {
			return nil // interrupted: every line written so far is whole
		}
		if err != nil || s.opts.once {
			if err == nil {
				fmt.Fprintf(s.log, "simulate: done: %s, %s crashed mid-append, under %s\n",
					plural(s.started, "session", "sessions"), plural(s.crashes, "session", "sessions"), s.opts.dir)
			}
			return err
		}
	}
}

// announce says what the simulator is about to do, before the first line
// (at one line a second, the first session ends minutes later).
func (s *simulator) announce() {
	pace := "as fast as it can"
	if s.opts.interval > 0 {
		pace = "one line every " + s.opts.interval.String()
	}
	until := "until interrupted (Ctrl-C; every line written is whole)"
	if s.opts.once {
		until = "one round, then exits"
	}
	crashes := "no crashes"
	if s.opts.crashEvery > 0 {
		crashes = fmt.Sprintf("every %d-th session crashes mid-append", s.opts.crashEvery)
	}
	fmt.Fprintf(s.log, "simulate: writing %s at a time under %s, %s, %s; %s\n",
		plural(s.opts.jobs, "job", "jobs"), s.opts.dir, pace, crashes, until)
}

// roundConfig is what round r of a simulation seeded with seed generates:
// clean jobs (crashes are the simulator's), starting at start.
func roundConfig(seed int64, round, jobs int, start time.Time) sample.Config {
	return sample.Config{Seed: seed + int64(round), Jobs: jobs, Start: start.UTC(),
		Models: append([]string(nil), sample.DefaultModels...)}
}

// round generates jobs and appends their sessions, one line per tick,
// round-robin over the jobs; a job's sessions follow one another.
func (s *simulator) round(ctx context.Context, r int) error {
	c, err := sample.Generate(roundConfig(s.opts.seed, r, s.opts.jobs, s.now()))
	if err != nil {
		return err
	}
	jobs := groupJobs(c.Files)
	defer func() {
		for _, j := range jobs {
			j.close()
		}
	}()
	for pending := len(jobs); pending > 0; {
		pending = 0
		for _, j := range jobs {
			if j.done() {
				continue
			}
			if err := s.wait(ctx); err != nil {
				return err
			}
			if err := s.step(j); err != nil {
				return err
			}
			pending++
		}
	}
	return nil
}

// wait sleeps one --interval, or returns ctx's error.
func (s *simulator) wait(ctx context.Context) error {
	if s.opts.interval <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(s.opts.interval)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// step appends the job's next line, opening its next session first if
// none is open.
func (s *simulator) step(j *liveJob) error {
	now := s.now().UTC().Truncate(time.Millisecond)
	if j.cur == nil {
		sess, err := s.open(j.pop(), now)
		if err != nil {
			return err
		}
		j.cur = sess
	}
	ended, err := j.cur.append(now)
	if err != nil || !ended {
		return err
	}
	s.report(j.cur)
	j.close()
	return nil
}

// open creates the session's file, named after the time it starts, and
// decides whether its writer will crash.
func (s *simulator) open(f sample.File, at time.Time) (*liveSession, error) {
	s.started++
	crashAt := -1
	if s.opts.crashEvery > 0 && s.started%s.opts.crashEvery == 0 && len(f.Lines) >= 4 {
		crashAt = 2 + s.rng.IntN(len(f.Lines)-3) // after SESSION_START and CHECKPOINT_LOADED, before SESSION_END
	}
	dir := filepath.Join(s.opts.dir, f.JobID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	for range 1000 { // two sessions of a job on one pod within a second: the next second
		name := filepath.Join(dir, "session_"+at.Format(fileNameLayout)+"_"+f.Pod+".jsonl")
		fh, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		if errors.Is(err, os.ErrExist) {
			at = at.Truncate(time.Second).Add(time.Second)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("simulate: %w", err)
		}
		return &liveSession{fh: fh, src: f, crashAt: crashAt, last: at, cut: s.rng.Float64()}, nil
	}
	return nil, fmt.Errorf("simulate: no free session file name in %s", dir)
}

// report logs a session's end.
func (s *simulator) report(l *liveSession) {
	name := filepath.Join(l.src.JobID, filepath.Base(l.fh.Name()))
	if l.crashed {
		s.crashes++
		fmt.Fprintf(s.log, "simulate: %s crashed after %d lines, leaving a partial line\n", name, l.next)
		return
	}
	fmt.Fprintf(s.log, "simulate: %s ended (%s), %d lines\n", name, l.src.EndReason, l.next)
}

// fileNameLayout is the session file name's time (YYYYMMDDTHHMMSSZ).
const fileNameLayout = "20060102T150405Z"

// timestampLayout is the journals' RFC 3339 UTC time with milliseconds.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// restamp returns line with its timestamp replaced by t (same length).
func restamp(line string, t time.Time) string {
	const key = `"timestamp":"`
	i := strings.Index(line, key)
	if i < 0 || len(line) < i+len(key)+len(timestampLayout) {
		return line
	}
	i += len(key)
	return line[:i] + t.UTC().Format(timestampLayout) + line[i+len(timestampLayout):]
}

// liveJob is a job whose sessions are being written one after the other.
type liveJob struct {
	files []sample.File // sessions not yet started
	cur   *liveSession  // the session being written, nil between sessions
}

// groupJobs splits a corpus (job by job, sessions in order) into jobs.
func groupJobs(files []sample.File) []*liveJob {
	var jobs []*liveJob
	for _, f := range files {
		if n := len(jobs); n > 0 && jobs[n-1].files[0].JobID == f.JobID {
			jobs[n-1].files = append(jobs[n-1].files, f)
			continue
		}
		jobs = append(jobs, &liveJob{files: []sample.File{f}})
	}
	return jobs
}

func (j *liveJob) done() bool { return j.cur == nil && len(j.files) == 0 }

func (j *liveJob) pop() sample.File {
	f := j.files[0]
	j.files = j.files[1:]
	return f
}

// close closes the open session, if any.
func (j *liveJob) close() {
	if j.cur != nil {
		j.cur.fh.Close()
		j.cur = nil
	}
}

// liveSession is one journal being appended.
type liveSession struct {
	fh      *os.File
	src     sample.File
	next    int       // index in src.Lines of the next line
	crashAt int       // index of the line the writer dies in, -1: never
	cut     float64   // where in that line, as a fraction
	last    time.Time // timestamp of the previous line (never decreases)
	crashed bool
}

// append writes the next line, stamped now (or the previous line's time if
// later), whole with its newline in one write, or, at the crash point,
// part of it and nothing after. It reports whether the session is over.
func (l *liveSession) append(now time.Time) (bool, error) {
	if now.After(l.last) {
		l.last = now
	}
	line := restamp(l.src.Lines[l.next].Text, l.last)
	if l.next == l.crashAt {
		keep := 12 + int(l.cut*float64(len(line)-12)) // a torn write: at least the type, never the whole line
		_, err := l.fh.WriteString(line[:min(keep, len(line)-1)])
		l.crashed = true
		if err != nil {
			return true, fmt.Errorf("simulate: %w", err)
		}
		return true, nil
	}
	if _, err := l.fh.WriteString(line + "\n"); err != nil {
		return true, fmt.Errorf("simulate: %w", err)
	}
	l.next++
	return l.next == len(l.src.Lines), nil
}
