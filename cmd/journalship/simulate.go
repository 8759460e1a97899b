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

	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/internal/sample"
	cortexsample "github.com/journalship/journalship/internal/sample/cortex"
)

// simulateAbout is simulate's help, each format's part from its Kind.
var simulateAbout = `Acts as a fleet of agents of every journal format: keeps appending
realistic journals, one line every --interval, round-robin over the jobs,
runs and sessions of a round, each format under its own root:

` + simulatedHelp() + `
Give the roots with --format-roots, in the syntax of the plugin's
Format_Roots (one directory each): formats not named are not written.
--dir DIR alone is --format-roots cortex=DIR. Writers follow each format's
write protocol (whole lines with their newline, in the generator's order).
Every --crash-every'th file of a format (session, run, transcript) dies
mid-append: a partial last line, no end record, no snapshot. Content
comes from internal/sample; times are the time of writing (a record's
other times move with it, a name holding a date or time takes its
start's; a line without a time of its own stays as written). Runs
until interrupted; --once writes one round, as fast as it can unless
--interval is given, then exits.`

// simulateOpts are `journalship simulate`'s flags.
type simulateOpts struct {
	dir        string            // Cortex Plane's root ("" when not written)
	roots      map[string]string // every format written, by name: its root
	interval   time.Duration
	seed       int64
	crashEvery int
	jobs       int
	once       bool
}

// parseSimulate parses and checks the flags; --help goes to w.
func parseSimulate(args []string, w io.Writer) (simulateOpts, error) {
	o := simulateOpts{}
	c := newCommand("simulate", "journalship simulate --dir DIR | --format-roots "+rootsHelp("%s=DIR", ",")+" [--interval 1s] [--seed N] [--crash-every N] [--jobs N] [--once]", simulateAbout)
	c.out = w
	c.fs.StringVar(&o.dir, "dir", "", "Cortex Plane's root (created if missing): --format-roots cortex=DIR")
	roots := c.fs.String("format-roots", "", "the root of each format to write, format=DIR,... ("+strings.Join(sampleFormatNames(), ", ")+"; the plugin's Format_Roots syntax, one DIR each); formats not named are not written")
	c.fs.DurationVar(&o.interval, "interval", time.Second, "time between two appended lines (0: as fast as possible; with --once, 0 unless given)")
	c.fs.Int64Var(&o.seed, "seed", 1, "seeds the content and the crash points (round r uses seed+r; "+seededByStart()+" also the round's start time, so a restart never reuses a file name)")
	c.fs.IntVar(&o.crashEvery, "crash-every", 0, "every N-th file (session, run, transcript) of each format crashes mid-line (0: never)")
	c.fs.IntVar(&o.jobs, "jobs", 4, unitsHelp()+" a round, of each format written")
	c.fs.BoolVar(&o.once, "once", false, "write one round, then exit")
	if err := c.parse(args); err != nil {
		return o, err
	}
	if o.once && !c.set("interval") {
		o.interval = 0 // a one-off sample: no reason to wait between lines
	}
	if err := o.resolveRoots(*roots); err != nil {
		return o, c.usage("%v", err)
	}
	if err := o.validate(c.fs.Args()); err != nil {
		return o, c.usage("%v", err)
	}
	return o, nil
}

// resolveRoots sets o.roots from --format-roots (parsed as the plugin's
// Format_Roots) and --dir, which is Cortex Plane's root.
func (o *simulateOpts) resolveRoots(flagValue string) error {
	parsed, err := registry.ParseRoots(flagValue)
	if err != nil {
		return fmt.Errorf("--format-roots: %w", err)
	}
	o.roots = map[string]string{}
	for name, dirs := range parsed {
		switch {
		case lookupSampleFormat(name) == nil:
			return fmt.Errorf("--format-roots: simulate writes %s, not %q", strings.Join(sampleFormatNames(), ", "), name)
		case len(dirs) != 1:
			return fmt.Errorf("--format-roots: %s needs one directory, not %d", name, len(dirs))
		}
		o.roots[name] = dirs[0]
	}
	cortex, ok := o.roots[cortexsample.FormatName]
	switch {
	case o.dir == "" && ok:
		o.dir = cortex
	case o.dir != "" && ok && cortex != filepath.Clean(o.dir):
		return fmt.Errorf("--dir %s and --format-roots %s=%s name two roots for Cortex Plane", o.dir, cortexsample.FormatName, cortex)
	case o.dir != "":
		o.roots[cortexsample.FormatName] = filepath.Clean(o.dir)
	}
	return nil
}

func (o simulateOpts) validate(rest []string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected arguments %q (use --dir or --format-roots)", rest)
	case len(o.roots) == 0:
		return errors.New("--dir or --format-roots is required")
	case o.interval < 0:
		return fmt.Errorf("--interval %s is negative", o.interval)
	case o.crashEvery < 0:
		return fmt.Errorf("--crash-every %d is negative", o.crashEvery)
	case o.jobs < 1 || o.jobs > cortexsample.MaxJobs:
		return fmt.Errorf("--jobs %d is outside [1, %d]", o.jobs, cortexsample.MaxJobs)
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

// simulator writes rounds of generated journals as live agents would.
type simulator struct {
	opts    simulateOpts
	now     func() time.Time
	log     io.Writer
	formats []*liveFormat // the formats written
	started int           // sessions (runs) started, every format
	crashes int
}

// liveFormat is one format being written, with its own crash count.
type liveFormat struct {
	*sampleFormat
	root    string
	rng     *rand.Rand // crash points
	started int        // sessions started, for --crash-every
	crashes int
}

// newSimulator returns a simulator reading the time from now and logging
// each session's end to log.
func newSimulator(o simulateOpts, now func() time.Time, log io.Writer) *simulator {
	s := &simulator{opts: o, now: now, log: log}
	for i, f := range sampleFormats {
		if root, ok := o.roots[f.Format]; ok {
			s.formats = append(s.formats, &liveFormat{sampleFormat: f, root: root,
				rng: rand.New(rand.NewPCG(uint64(o.seed), 0x51a1+uint64(i)))})
		}
	}
	return s
}

// run writes rounds until ctx ends (returning nil) or, with --once, one.
func (s *simulator) run(ctx context.Context) error {
	for _, f := range s.formats {
		if err := os.MkdirAll(f.root, 0o755); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
	}
	s.announce()
	for round := 0; ; round++ {
		err := s.round(ctx, round)
		if ctx.Err() != nil {
			return nil // interrupted: every line written so far is whole
		}
		if err != nil || s.opts.once {
			if err == nil {
				s.done()
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
		crashes = fmt.Sprintf("every %d-th file of a format crashes mid-append", s.opts.crashEvery)
	}
	var what []string
	for _, f := range s.formats {
		what = append(what, fmt.Sprintf("%s (%s a round) under %s", f.Format, countOf(f.sampleFormat, s.opts.jobs), f.root))
	}
	fmt.Fprintf(s.log, "simulate: writing %s; %s, %s; %s\n", strings.Join(what, ", "), pace, crashes, until)
}

// done logs what one round (--once) wrote.
func (s *simulator) done() {
	var per []string
	for _, f := range s.formats {
		per = append(per, fmt.Sprintf("%s %d (%d crashed) under %s", f.Format, f.started, f.crashes, f.root))
	}
	fmt.Fprintf(s.log, "simulate: done: %s, %s crashed mid-append: %s\n",
		plural(s.started, "session", "sessions"), plural(s.crashes, "session", "sessions"), strings.Join(per, ", "))
}

// roundCorpus is what round r generates of format f: --jobs clean units
// (crashes are the simulator's) starting at start.
func roundCorpus(f *sampleFormat, seed int64, round, n int, start time.Time) (*sample.Corpus, error) {
	s := seed + int64(round)
	if f.SeedWithStart {
		s = mixSeed(seed, round, start)
	}
	return f.Generate(s, n, start, false)
}

// round generates every format's journals and appends them, one line per
// tick, round-robin over the writers; a writer's files follow one another.
func (s *simulator) round(ctx context.Context, r int) error {
	start := s.now()
	var writers []*liveWriter
	for _, f := range s.formats {
		c, err := roundCorpus(f.sampleFormat, s.opts.seed, r, s.opts.jobs, start)
		if err != nil {
			return err
		}
		writers = append(writers, groupWriters(f, c)...)
	}
	defer func() {
		for _, w := range writers {
			w.close()
		}
	}()
	for pending := len(writers); pending > 0; {
		pending = 0
		for _, w := range writers {
			if w.done() {
				continue
			}
			if err := s.wait(ctx); err != nil {
				return err
			}
			if err := s.step(w); err != nil {
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

// step appends the writer's next line, opening its next file first if
// none is open; after its last file it writes its side files.
func (s *simulator) step(w *liveWriter) error {
	now := s.now().UTC().Truncate(time.Millisecond)
	if w.cur == nil {
		sess, err := s.open(w.format, w.pop(), now)
		if err != nil {
			return err
		}
		w.cur = sess
	}
	ended, err := w.cur.append(now)
	if err != nil || !ended {
		return err
	}
	s.report(w.cur)
	w.crashed = w.cur.crashed || w.crashed && w.format.DiesWhole
	if w.cur.shift != 0 { // a file without times of its own (a transcript.jsonl) moves nothing
		w.shift = w.cur.shift
	}
	w.close()
	if len(w.files) > 0 || w.crashed {
		return nil // no snapshot of a session whose runtime died
	}
	return writeSide(w.format.root, w.side, w.shift)
}

// open creates the file, named after the time it starts where its format
// says so, and decides whether its writer will crash.
func (s *simulator) open(f *liveFormat, src sample.File, at time.Time) (*liveSession, error) {
	s.started++
	f.started++
	crashAt := -1
	if s.opts.crashEvery > 0 && f.started%s.opts.crashEvery == 0 && len(src.Lines) >= 4 {
		crashAt = 2 + f.rng.IntN(len(src.Lines)-3) // after the first two lines, before the last
	}
	for range 1000 { // two sessions of a job on one pod within a second: the next second
		rel := f.Place(src, at)
		name := filepath.Join(f.root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return nil, fmt.Errorf("simulate: %w", err)
		}
		fh, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		next := at.Truncate(time.Second).Add(time.Second)
		if errors.Is(err, os.ErrExist) && f.Place(src, next) != rel { // a name with the start time: try the next second
			at = next
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("simulate: %w", err)
		}
		return &liveSession{fh: fh, rel: rel, format: f, src: src, crashAt: crashAt, last: at, cut: f.rng.Float64()}, nil
	}
	return nil, fmt.Errorf("simulate: no free file name for %s under %s", src.Rel, f.root)
}

// report logs a session's end.
func (s *simulator) report(l *liveSession) {
	if l.crashed {
		s.crashes++
		l.format.crashes++
		fmt.Fprintf(s.log, "simulate: %s %s crashed after %d lines, leaving a partial line\n", l.format.Format, l.rel, l.next)
		return
	}
	reason := l.src.EndReason
	switch {
	case reason != "":
	case l.src.Lines[len(l.src.Lines)-1].State == "idle":
		reason = "idle, no end record" // a Claude Code transcript: over once quiet
	default:
		reason = "left open"
	}
	fmt.Fprintf(s.log, "simulate: %s %s ended (%s), %d lines\n", l.format.Format, l.rel, reason, l.next)
}
