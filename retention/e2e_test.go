package retention

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/pgproc"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/claudecode"
	"github.com/journalship/journalship/internal/sample/gosession"
	"github.com/journalship/journalship/internal/sample/kinds"
	"github.com/journalship/journalship/output"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// e2eRounds is the number of 12h rounds of TestEndToEndRandomized.
const e2eRounds = 16

// plannedFile is one corpus file and the rounds its bytes are written in.
type plannedFile struct {
	sample.File
	path    string
	cuts    []int  // end offsets of the parts, increasing, the last len(Data) unless held back
	rounds  []int  // the round each part is written in
	written int    // bytes on disk
	gone    []byte // content when it was found deleted (nil while on disk)
	deleted bool
	sides   []sample.SideFile // snapshots written beside it once it is complete
	side    []string          // their paths, once written
}

// e2eRig is the real-Loki world of TestEndToEndRandomized.
type e2eRig struct {
	t          *testing.T
	rng        *rand.Rand
	root       string
	good, dead *output.Instance
	now        time.Time
	files      []*plannedFile
	log        bytes.Buffer
	deadLetter string
	format     string // the corpus's format: the root directory's name
}

// TestEndToEndRandomized writes generated journals over many rounds (cut
// at random bytes, some writers stalling forever), ships them through an
// output.Instance to a real Loki as tail would — or not at all, or to a
// dead Loki — and sweeps with the real finalizer and retention under a
// fake clock advancing 12h a round, the sweep's own Loki sometimes dead.
// Then every deleted file must be in Loki: each complete line byte-exact
// at its file and offset, its partial tail marked by a truncated_tail
// entry; and in the end everything is deleted.
func TestEndToEndRandomized(t *testing.T) {
	if testing.Short() {
		t.Skip("real Loki end-to-end test")
	}
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	seed := time.Now().UnixNano()
	if s := os.Getenv("RETENTION_E2E_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (RETENTION_E2E_SEED reproduces it)", seed)
	for _, g := range e2eFormats {
		t.Run(g.name, func(t *testing.T) { endToEnd(t, loki.URL, seed, g) })
	}
}

// e2eFormat generates one format's corpus for the randomized test.
type e2eFormat struct {
	name string
	gen  func(t *testing.T, seed int64, rng *rand.Rand, start time.Time) *sample.Corpus
}

// e2eFormats are every generator's: each corpus holds every fault
// scenario and a few clean units more. A format's deletion unit is its
// own (a Cortex Plane job's sessions one by one, a Claude Code session's
// transcripts and directory, a Go pkg/session directory, as one).
var e2eFormats = func() []e2eFormat {
	var out []e2eFormat
	for _, k := range kinds.All() {
		out = append(out, e2eFormat{k.Format, func(t *testing.T, seed int64, rng *rand.Rand, start time.Time) *sample.Corpus {
			c, err := k.Generate(seed, k.MinFaults+rng.IntN(6), start, true)
			require.NoError(t, err)
			return c
		}})
	}
	return out
}()

// endToEnd is TestEndToEndRandomized for one format.
func endToEnd(t *testing.T, lokiURL string, seed int64, g e2eFormat) {
	rig := newRig(t, lokiURL, seed, g)
	const rounds = e2eRounds
	unaccounted := 0
	for round := range rounds {
		rig.write(round)
		shipping, sweeping := rig.modes(round, rounds, unaccounted > 0)
		rig.ship(shipping)
		r := rig.sweep(sweeping)
		// Every sweep finalizes every finished file, so a dead Loki shows
		// as files it could not finalize (kept, counted as errors) rather
		// than only as candidates kept unaccounted.
		unaccounted += r.Kept[KeepFinalizeError]
		if sweeping == "dead" {
			unaccounted += r.Errors
		}
		rig.collect(round)
		t.Logf("round %d (+%s) ship=%s sweep=%s: %s", round, time.Duration(round)*12*time.Hour, shipping, sweeping, r.Summary())
		rig.now = rig.now.Add(12 * time.Hour)
	}
	assert.Positive(t, unaccounted, "a sweep against a dead Loki kept files it could not account for")
	for _, f := range rig.files {
		assert.True(t, f.deleted, "%s is deleted by the end (written %d of %d bytes)", f.Rel, f.written, len(f.Data))
		for _, side := range f.side {
			assert.NoFileExists(t, side, "%s went with its log", side)
		}
	}
	rig.checkEmpty()
	rig.checkLoki(lokiURL)
}

// checkEmpty: every job directory is removed; a run tree keeps only its
// top sessions directory, its dated directories removed once empty.
func (rig *e2eRig) checkEmpty() {
	t := rig.t
	entries, err := os.ReadDir(rig.root)
	require.NoError(t, err)
	if rig.format == "cortex" || rig.format == gosession.FormatName {
		assert.Empty(t, entries, "every job directory, every session directory is removed")
		return
	}
	if rig.format == claudecode.FormatName {
		// Each project directory stays (Claude Code writes there), emptied
		// of its sessions: main transcripts and session directories.
		for _, e := range entries {
			left, err := os.ReadDir(filepath.Join(rig.root, e.Name()))
			require.NoError(t, err)
			assert.True(t, e.IsDir(), e.Name())
			assert.Empty(t, left, "every session of %s is removed", e.Name())
		}
		return
	}
	require.Len(t, entries, 1, "the run tree's top directory stays")
	left, err := os.ReadDir(filepath.Join(rig.root, entries[0].Name()))
	require.NoError(t, err)
	assert.Empty(t, left, "every run and every emptied dated directory is removed")
}

func newRig(t *testing.T, lokiURL string, seed int64, g e2eFormat) *e2eRig {
	dir := t.TempDir()
	// The fake clock ends at the real now, so mtimes are never in the
	// future; the journals start before it.
	start := time.Now().Add(-e2eRounds * 12 * time.Hour)
	rig := &e2eRig{t: t, rng: rand.New(rand.NewPCG(uint64(seed), 7)), root: filepath.Join(dir, g.name), now: start,
		deadLetter: filepath.Join(dir, "dl.jsonl"), format: g.name}
	require.NoError(t, os.MkdirAll(rig.root, 0o755))
	settings := func(url string) output.Getter {
		s := map[string]string{"loki_url": url, "ledger_path": filepath.Join(dir, "ledger.db"), "dead_letter_path": filepath.Join(dir, "dl.jsonl"),
			"metrics_address": "off", "log_level": "error", "timeout": "2s"}
		return func(k string) string { return s[strings.ToLower(k)] }
	}
	var err error
	rig.good, err = output.NewInstance(settings(lokiURL))
	require.NoError(t, err)
	t.Cleanup(func() { rig.good.Close() })
	rig.dead, err = output.NewInstance(settings("http://" + deadLoopback(t)))
	require.NoError(t, err)
	t.Cleanup(func() { rig.dead.Close() })

	rig.plan(g.gen(t, seed, rig.rng, start.Add(-2*time.Hour).UTC().Truncate(time.Second)))
	return rig
}

// plan schedules each job's files one after the other from a random
// round, each in 1 to 3 parts cut at random bytes; the last file of some
// jobs stalls after its first part for good (a writer that hung).
func (rig *e2eRig) plan(c *sample.Corpus) {
	next := map[string]int{}
	stalled := map[string]bool{}
	// A job's sessions are written one after the other, as are a Go
	// pkg/session session's journals; a file that is its own run (no job)
	// is a group of its own.
	group := func(f sample.File) string {
		if f.Format == gosession.FormatName {
			return f.SessionID
		}
		return cmp.Or(f.JobID, f.Rel)
	}
	for i, f := range c.Files {
		if _, ok := next[group(f)]; !ok {
			next[group(f)] = rig.rng.IntN(3)
			stalled[group(f)] = rig.rng.IntN(5) == 0
		}
		last := i == len(c.Files)-1 || group(c.Files[i+1]) != group(f)
		p := &plannedFile{File: f, path: filepath.Join(rig.root, filepath.FromSlash(f.Rel)), sides: sidesOf(c, f)}
		parts := 1 + rig.rng.IntN(3)
		for k := 1; k < parts; k++ {
			p.cuts = append(p.cuts, 1+rig.rng.IntN(len(f.Data)-1))
		}
		slices.Sort(p.cuts)
		p.cuts = append(slices.Compact(p.cuts), len(f.Data))
		if last && stalled[group(f)] && len(p.cuts) > 1 {
			p.cuts = p.cuts[:1]
		}
		for range p.cuts {
			p.rounds = append(p.rounds, next[group(f)])
			next[group(f)]++
		}
		rig.files = append(rig.files, p)
	}
}

// write appends this round's parts, stamping the fake time as mtime.
func (rig *e2eRig) write(round int) {
	t := rig.t
	for _, f := range rig.files {
		for k, r := range f.rounds {
			if r != round || f.deleted {
				continue
			}
			require.NoError(t, os.MkdirAll(filepath.Dir(f.path), 0o755))
			fh, err := os.OpenFile(f.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			require.NoError(t, err)
			_, err = fh.Write(f.Data[f.written:f.cuts[k]])
			require.NoError(t, err)
			require.NoError(t, fh.Close())
			f.written = f.cuts[k]
			require.NoError(t, os.Chtimes(f.path, rig.now, rig.now))
			if f.written == len(f.Data) {
				rig.writeSides(f)
			}
		}
	}
}

// writeSides writes a finished log's snapshots beside it, as the
// runtime rewrites them after its last record.
func (rig *e2eRig) writeSides(f *plannedFile) {
	for _, s := range f.sides {
		path := filepath.Join(rig.root, filepath.FromSlash(s.Rel))
		require.NoError(rig.t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(rig.t, os.WriteFile(path, s.Data, 0o644))
		require.NoError(rig.t, os.Chtimes(path, rig.now, rig.now))
		f.side = append(f.side, path)
	}
}

// sidesOf returns the corpus's side files that belong to f: those named
// after its session (OrbitMesh's <id>.json and <id>.tokens.json beside
// <id>.messages.jsonl), or, for a Go pkg/session messages.jsonl, every
// file of its session directory (metadata.json, checkpoints, locks),
// written when the run ends.
func sidesOf(c *sample.Corpus, f sample.File) []sample.SideFile {
	stem, ok := strings.CutSuffix(f.Rel, ".messages.jsonl")
	if f.Format == gosession.FormatName && path.Base(f.Rel) == "messages.jsonl" {
		stem, ok = path.Dir(f.Rel)+"/", true
	}
	if !ok {
		return nil
	}
	var out []sample.SideFile
	for _, s := range c.Side {
		if strings.HasPrefix(s.Rel, stem+".") || strings.HasSuffix(stem, "/") && strings.HasPrefix(s.Rel, stem) {
			out = append(out, s)
		}
	}
	return out
}

// modes picks how this round ships (good, dead, none: Fluent Bit lost the
// chunks) and which Loki the sweep's finalizer reaches. From the first
// sweep that can see candidates, sweeps have a dead Loki until one of
// them had to keep a file it could not account for; the last rounds are
// healthy so that everything converges.
func (rig *e2eRig) modes(round, rounds int, deadSeen bool) (shipping, sweeping string) {
	switch {
	case round >= rounds-4:
		return "good", "good"
	case round >= 2 && !deadSeen:
		return "good", "dead"
	}
	shipping = []string{"good", "good", "good", "dead", "none"}[rig.rng.IntN(5)]
	sweeping = []string{"good", "good", "dead"}[rig.rng.IntN(3)]
	return shipping, sweeping
}

func (rig *e2eRig) inst(mode string) *output.Instance {
	if mode == "dead" {
		return rig.dead
	}
	return rig.good
}

// ship backfills the root as tail would (complete lines only).
func (rig *e2eRig) ship(mode string) {
	if mode == "none" {
		return
	}
	cfg := backfill.DefaultConfig()
	cfg.MaxElapsed = 300 * time.Millisecond
	inst := rig.inst(mode)
	r, err := backfill.New(cfg, inst, inst.Ledger())
	require.NoError(rig.t, err)
	_, err = r.Run(context.Background(), rig.root)
	if mode == "good" {
		require.NoError(rig.t, err)
	}
}

// sweep runs one retention sweep with the real finalizer.
func (rig *e2eRig) sweep(mode string) *Report {
	t := rig.t
	inst := rig.inst(mode)
	clock := func() time.Time { return rig.now }
	fcfg := finalize.DefaultConfig()
	fcfg.Now, fcfg.Backfill.MaxElapsed = clock, 300*time.Millisecond
	fcfg.IdleAfter = 72 * time.Hour // as journalship retention sets it: its max age
	fin, err := finalize.New(fcfg, inst, inst.Ledger(), nil)
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.Root, cfg.Now, cfg.Log, cfg.MaxAge = rig.root, clock, &rig.log, 72*time.Hour
	a, err := New(cfg, nil, fin, inst.Ledger(), nil)
	require.NoError(t, err)
	r, err := a.Sweep(context.Background())
	require.NoError(t, err)
	return r
}

// collect notes the files the sweep deleted. A file deleted before its
// writer finished would be a retention bug unless the writer had stalled
// (then the max-age rule applies).
func (rig *e2eRig) collect(round int) {
	for _, f := range rig.files {
		if f.deleted || f.written == 0 {
			continue
		}
		if _, err := os.Lstat(f.path); err == nil {
			continue
		}
		f.deleted, f.gone = true, f.Data[:f.written]
		lastPart := f.rounds[len(f.rounds)-1]
		assert.True(rig.t, lastPart <= round, "%s deleted in round %d while its writer had parts left", f.Rel, round)
	}
}

// checkLoki checks every deleted file against what Loki holds.
func (rig *e2eRig) checkLoki(url string) {
	t := rig.t
	want := 0
	for _, f := range rig.files {
		want += bytes.Count(f.gone, []byte("\n"))
	}
	q := &lokiquery.Client{URL: url}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions"}`, time.Now().Add(-(e2eRounds*12+6)*time.Hour), time.Now().Add(time.Minute), want, 60*time.Second)
	require.NoError(t, err)
	lines := map[string]string{}
	tails := map[string][]int64{} // file -> [offset, bytes] of its truncated_tail entries
	for _, e := range got {
		file := e.Metadata["file"]
		switch e.Stream["event_type"] {
		case "file_summary":
		case "truncated_tail":
			var te struct {
				Offset int64 `json:"offset"`
				Bytes  int64 `json:"bytes"`
			}
			require.NoError(t, json.Unmarshal([]byte(e.Line), &te), e.Line)
			tails[file] = append(tails[file], te.Offset, te.Bytes)
		default:
			if e.Metadata["byte_offset"] == "" {
				continue // a record from beside the journals (a Go pkg/session checkpoint or run summary)
			}
			key := file + "@" + e.Metadata["byte_offset"]
			if prev, dup := lines[key]; dup {
				require.Equal(t, prev, e.Line, "two different lines at %s", key)
			}
			lines[key] = e.Line
		}
	}
	dlTails, dlReasons := rig.deadLetteredTails()
	checked, inLoki, inDeadLetters := 0, 0, 0
	for _, f := range rig.files {
		if !f.deleted {
			continue
		}
		off := 0
		for {
			nl := bytes.IndexByte(f.gone[off:], '\n')
			if nl < 0 {
				break
			}
			text := strings.TrimSuffix(string(f.gone[off:off+nl]), "\r")
			key := f.path + "@" + strconv.Itoa(off)
			got, ok := lines[key]
			if assert.True(t, ok, "deleted %s: line at %d is in Loki", f.Rel, off) {
				assert.Equal(t, text, got, "deleted %s: line at %d byte-exact", f.Rel, off)
			}
			off += nl + 1
			checked++
		}
		if tail := len(f.gone) - off; tail > 0 {
			ts := tails[f.path]
			found := false
			for i := 0; i+1 < len(ts); i += 2 {
				found = found || (ts[i] == int64(off) && ts[i+1] == int64(tail))
			}
			key := f.path + "@" + strconv.Itoa(off) + "+" + strconv.Itoa(tail)
			switch {
			case found:
				inLoki++
			case dlTails[key]:
				// Refused by Loki: with Old_Entries rewrite (the default)
				// a marker outside Loki's window is re-stamped, so this
				// must not happen.
				inDeadLetters++
				t.Errorf("deleted %s: its partial tail's marker was dead-lettered, not re-stamped", f.Rel)
			default:
				t.Errorf("deleted %s: its %d-byte partial tail at %d is marked by no truncated_tail entry in Loki (%v) nor in the dead-letter file", f.Rel, tail, off, ts)
			}
		}
	}
	assert.Equal(t, want, checked)
	t.Logf("%d deleted files, %d lines checked in Loki (%d entries there); partial tails marked in Loki: %d, dead-lettered: %d %v",
		len(rig.files), checked, len(got), inLoki, inDeadLetters, dlReasons)
}

// deadLetteredTails reads the truncated_tail entries of the dead-letter
// file, as file@offset+bytes, and the reasons they were refused.
func (rig *e2eRig) deadLetteredTails() (map[string]bool, []string) {
	data, err := os.ReadFile(rig.deadLetter)
	if os.IsNotExist(err) {
		return nil, nil
	}
	require.NoError(rig.t, err)
	out := map[string]bool{}
	var reasons []string
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var rec struct {
			Line   string `json:"line"`
			Reason string `json:"reason"`
		}
		require.NoError(rig.t, json.Unmarshal(l, &rec), "%s", l)
		var te struct {
			Journalship string `json:"journalship"`
			File        string `json:"file"`
			Offset      int64  `json:"offset"`
			Bytes       int64  `json:"bytes"`
		}
		if json.Unmarshal([]byte(rec.Line), &te) == nil && te.Journalship == "truncated_tail" {
			out[te.File+"@"+strconv.FormatInt(te.Offset, 10)+"+"+strconv.FormatInt(te.Bytes, 10)] = true
			reasons = append(reasons, rec.Reason)
		}
	}
	return out, reasons
}

// deadLoopback returns a loopback address nothing listens on.
func deadLoopback(t *testing.T) string {
	return "127.0.0.1:" + strconv.Itoa(pgproc.FreePort(t))
}
