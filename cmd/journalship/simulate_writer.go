package main

// The writing side of `journalship simulate`: a writer appends one
// session's (or run's) lines at a time with their times restamped to now,
// and replaces its snapshots whole when it is done.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// writeSide writes a writer's side files (snapshots), their times moved
// by shift as its last line's were, each replaced whole: written beside
// and renamed over the old one, so that a reader never sees half of one.
func writeSide(root string, side []sample.SideFile, shift time.Duration) error {
	for _, f := range side {
		name := filepath.Join(root, filepath.FromSlash(f.Rel))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
		if err := replaceFile(name, []byte(sample.ShiftTimes(string(f.Data), shift))); err != nil {
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

// liveWriter is an agent writing files one after the other: a Cortex
// Plane job's sessions, a Codelia session's runs, an OrbitMesh session, a
// Claude Code session's main transcript and then its subagents'.
type liveWriter struct {
	format *liveFormat
	files  []sample.File     // files not yet started
	side   []sample.SideFile // written once the last file is complete
	cur    *liveSession      // the file being written, nil between files
	shift  time.Duration     // how far the times of its last timed line moved
	// crashed: its last file was left torn, or, for a format whose one
	// process writes all of a session's files (diesWhole), any of them: its
	// runtime died, and the session gets no side files.
	crashed bool
}

// groupWriters splits a corpus into its writers, in the order their first
// file comes in; a side file goes to the writer whose session it belongs
// to (sideOf).
func groupWriters(f *liveFormat, c *sample.Corpus) []*liveWriter {
	var out []*liveWriter
	byKey := map[string]*liveWriter{}
	for _, file := range c.Files {
		key := f.Writer(file)
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
			if sideOf(side.Rel, w.files[0].SessionID) {
				w.side = append(w.side, side)
				break
			}
		}
	}
	return out
}

// sideOf tells whether the side file rel belongs to session id: it is
// named after it (<session_id>.json, <session_id>.tokens.json) or lies in
// a directory named after it (a Claude Code subagent's
// <session>/subagents/agent-<id>.meta.json).
func sideOf(rel, id string) bool {
	if id == "" {
		return false
	}
	dir, name := path.Split(rel)
	return strings.HasPrefix(name, id+".") || slices.Contains(strings.Split(dir, "/"), id)
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
	line, shift := l.format.Stamp(l.src.Lines[l.next].Text, l.last)
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
	if shift != 0 { // a line without a time of its own moves nothing
		l.shift = shift
	}
	return l.next == len(l.src.Lines), nil
}
