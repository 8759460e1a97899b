package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/internal/sample"
)

const simulateAbout = `Acts as a fleet of agents of every journal format: keeps appending
realistic journals, one line every --interval, round-robin over the jobs,
runs and sessions of a round, each format under its own root:

  cortex     Cortex Plane buffers, ROOT/<job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl
             (--jobs jobs a round, their sessions one after the other)
  codelia    Codelia run records, ROOT/sessions/YYYY/MM/DD/<run_id>.jsonl
             (--jobs runs a round, a session's runs one after the other;
             the session's state snapshot, ROOT/sessions/state/<session_id>.json,
             written when its last run is complete)
  orbitmesh  OrbitMesh message logs, ROOT/sessions/<session_id>.messages.jsonl
             (--jobs sessions a round; the snapshot and token index beside
             the log, <session_id>.json and .tokens.json, written when the
             log is complete)

Give the roots with --format-roots, in the syntax of the plugin's
Format_Roots (one directory each): formats not named are not written.
--dir DIR alone is --format-roots cortex=DIR. Writers follow each format's
write protocol (whole lines with their newline, in the generator's order).
Every --crash-every'th session (run) of a format dies mid-append: a partial
last line, no end record, no snapshot. Content comes from internal/sample;
times are the time of writing (a record's other times move with it, a
Codelia run's date directory is its start's). Runs until interrupted;
--once writes one round, as fast as it can unless --interval is given,
then exits.`

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
	c := newCommand("simulate", "journalship simulate --dir DIR | --format-roots cortex=DIR,codelia=DIR,orbitmesh=DIR [--interval 1s] [--seed N] [--crash-every N] [--jobs N] [--once]", simulateAbout)
	c.out = w
	c.fs.StringVar(&o.dir, "dir", "", "Cortex Plane's root (created if missing): --format-roots cortex=DIR")
	roots := c.fs.String("format-roots", "", "the root of each format to write, format=DIR,... ("+strings.Join(sampleFormatNames(), ", ")+"; the plugin's Format_Roots syntax, one DIR each); formats not named are not written")
	c.fs.DurationVar(&o.interval, "interval", time.Second, "time between two appended lines (0: as fast as possible; with --once, 0 unless given)")
	c.fs.Int64Var(&o.seed, "seed", 1, "seeds the content and the crash points (round r uses seed+r; Codelia and OrbitMesh also the round's start time, so a restart never reuses a file name)")
	c.fs.IntVar(&o.crashEvery, "crash-every", 0, "every N-th session (run) of each format crashes mid-line (0: never)")
	c.fs.IntVar(&o.jobs, "jobs", 4, "jobs (Cortex Plane), runs (Codelia) and sessions (OrbitMesh) a round, of each format written")
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
	cortex, ok := o.roots[sample.FormatName]
	switch {
	case o.dir == "" && ok:
		o.dir = cortex
	case o.dir != "" && ok && cortex != filepath.Clean(o.dir):
		return fmt.Errorf("--dir %s and --format-roots %s=%s name two roots for Cortex Plane", o.dir, sample.FormatName, cortex)
	case o.dir != "":
		o.roots[sample.FormatName] = filepath.Clean(o.dir)
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
		if root, ok := o.roots[f.name]; ok {
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
		crashes = fmt.Sprintf("every %d-th session (run) of a format crashes mid-append", s.opts.crashEvery)
	}
	var what []string
	for _, f := range s.formats {
		what = append(what, fmt.Sprintf("%s (%s a round) under %s", f.name, f.count(s.opts.jobs), f.root))
	}
	fmt.Fprintf(s.log, "simulate: writing %s; %s, %s; %s\n", strings.Join(what, ", "), pace, crashes, until)
}

// done logs what one round (--once) wrote.
func (s *simulator) done() {
	var per []string
	for _, f := range s.formats {
		per = append(per, fmt.Sprintf("%s %d (%d crashed) under %s", f.name, f.started, f.crashes, f.root))
	}
	fmt.Fprintf(s.log, "simulate: done: %s, %s crashed mid-append: %s\n",
		plural(s.started, "session", "sessions"), plural(s.crashes, "session", "sessions"), strings.Join(per, ", "))
}

// roundCorpus is what round r generates of format f: --jobs clean units
// (crashes are the simulator's) starting at start.
func roundCorpus(f *sampleFormat, seed int64, round, n int, start time.Time) (*sample.Corpus, error) {
	s := seed + int64(round)
	if f.seedWithStart {
		s = mixSeed(seed, round, start)
	}
	return f.generate(s, n, start, false)
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
	crashed, shift := w.cur.crashed, w.cur.shift
	w.close()
	if len(w.files) > 0 || crashed {
		return nil // no snapshot of a session whose runtime died
	}
	return writeSide(w.format.root, w.side, shift)
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
		rel := f.place(src, at)
		name := filepath.Join(f.root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return nil, fmt.Errorf("simulate: %w", err)
		}
		fh, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		next := at.Truncate(time.Second).Add(time.Second)
		if errors.Is(err, os.ErrExist) && f.place(src, next) != rel { // a name with the start time: try the next second
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
		fmt.Fprintf(s.log, "simulate: %s %s crashed after %d lines, leaving a partial line\n", l.format.name, l.rel, l.next)
		return
	}
	reason := l.src.EndReason
	if reason == "" {
		reason = "left open"
	}
	fmt.Fprintf(s.log, "simulate: %s %s ended (%s), %d lines\n", l.format.name, l.rel, reason, l.next)
}

// writeSide writes a writer's side files (snapshots), their times moved
// by shift as its last line's were, each replaced whole: written beside
// and renamed over the old one, so that a reader never sees half of one.
func writeSide(root string, side []sample.SideFile, shift time.Duration) error {
	for _, f := range side {
		name := filepath.Join(root, filepath.FromSlash(f.Rel))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
		if err := replaceFile(name, []byte(shiftTimes(string(f.Data), shift))); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
	}
	return nil
}

// replaceFile writes data to a temporary file beside name (not named
// *.jsonl: nothing tails it) and renames it to name.
func replaceFile(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), name)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
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

// liveWriter is an agent writing files one after the other: a Cortex
// Plane job's sessions, a Codelia session's runs, an OrbitMesh session.
type liveWriter struct {
	format *liveFormat
	files  []sample.File     // files not yet started
	side   []sample.SideFile // written once the last file is complete
	cur    *liveSession      // the file being written, nil between files
}

// groupWriters splits a corpus into its writers, in the order their first
// file comes in; a side file goes to the writer whose session it names
// (<session_id>.json, <session_id>.tokens.json).
func groupWriters(f *liveFormat, c *sample.Corpus) []*liveWriter {
	var out []*liveWriter
	byKey := map[string]*liveWriter{}
	for _, file := range c.Files {
		key := f.writer(file)
		if w := byKey[key]; w != nil && key != "" {
			w.files = append(w.files, file)
			continue
		}
		w := &liveWriter{format: f, files: []sample.File{file}}
		byKey[key] = w
		out = append(out, w)
	}
	for _, side := range c.Side {
		for _, w := range out {
			if id := w.files[0].SessionID; id != "" && strings.HasPrefix(path.Base(side.Rel), id+".") {
				w.side = append(w.side, side)
				break
			}
		}
	}
	return out
}

func (w *liveWriter) done() bool { return w.cur == nil && len(w.files) == 0 }

func (w *liveWriter) pop() sample.File {
	f := w.files[0]
	w.files = w.files[1:]
	return f
}

// close closes the open file, if any.
func (w *liveWriter) close() {
	if w.cur != nil {
		w.cur.fh.Close()
		w.cur = nil
	}
}

// liveSession is one journal being appended.
type liveSession struct {
	fh      *os.File
	rel     string // its path under the format's root
	format  *liveFormat
	src     sample.File
	next    int           // index in src.Lines of the next line
	crashAt int           // index of the line the writer dies in, -1: never
	cut     float64       // where in that line, as a fraction
	last    time.Time     // time of the previous line (never decreases)
	shift   time.Duration // how far the last line's times moved from the generator's
	crashed bool
}

// append writes the next line, stamped now (or the previous line's time if
// later), whole with its newline in one write, or, at the crash point,
// part of it and nothing after. It reports whether the session is over.
func (l *liveSession) append(now time.Time) (bool, error) {
	if now.After(l.last) {
		l.last = now
	}
	line, shift := l.format.stamp(l.src.Lines[l.next].Text, l.last)
	if l.next == l.crashAt {
		keep := 12 + int(l.cut*float64(len(line)-12)) // a torn write: at least the first key, never the whole line
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
	l.shift = shift
	return l.next == len(l.src.Lines), nil
}
