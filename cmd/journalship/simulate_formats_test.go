package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/orbitmesh"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/internal/sample"
)

// TestSimulateWritesEveryFormat: one round of every format, each under its
// own root, every third session (run) of each format crashing. Every file
// is detected as its root's format by its path, both with the roots as
// Format_Roots and by the format's layout alone; is valid by its format's
// rules (journalship verify's audit: no corrupt, schema-invalid or
// out-of-sequence line, none of the format's own annotations such as a
// Codelia date_mismatch or an OrbitMesh status_disagrees, no problem);
// and either ends its session or run (with an end reason, in a format
// that writes end records: a Claude Code transcript has none and is over
// when idle) or, if its writer crashed, ends in a torn last line.
func TestSimulateWritesEveryFormat(t *testing.T) {
	roots := everyRoot(t)
	s := simulateRound(t, simulateOpts{roots: roots, seed: 7, crashEvery: 3, jobs: 6}, simStart)
	cfg := audit.DefaultConfig()
	for name, root := range roots {
		cfg.Formats.Roots[name] = []string{root}
	}
	var reps []audit.Report
	_, err := audit.Tree(rootList(roots), cfg, func(r audit.Report) { reps = append(reps, r) })
	require.NoError(t, err)
	anywhere, err := registry.New(registry.DefaultConfig())
	require.NoError(t, err)
	files, crashed, endRecords := map[string]int{}, map[string]int{}, writesEndRecords(t)
	// A format that writes its end beside the journals (Go pkg/session's
	// metadata.json, OrbitMesh's run attempts) ends no journal of a session
	// one of whose journals crashed: the runtime died before it wrote the
	// end. A session is its directory where the format keeps one
	// (format.SessionDir), else its file.
	sessionOf := func(r audit.Report) string {
		if _, dirs := registry.Lookup(r.Format).(format.SessionDir); dirs {
			return filepath.Dir(r.Path)
		}
		return r.Path
	}
	diedIn := map[string]bool{}
	for _, r := range reps {
		if r.TailTruncated {
			diedIn[sessionOf(r)] = true
		}
	}
	for _, r := range reps {
		want := formatUnder(t, roots, r.Path)
		files[want]++
		assert.Equal(t, want, r.Format, r.Path)
		assert.Equal(t, "path", r.DetectedBy, "%s: detected by its path, confirmed by its first line", r.Path)
		assert.Empty(t, r.PathProblem, r.Path)
		d := anywhere.Detect(r.Path, firstLineOf(t, r.Path))
		assert.Equal(t, want, d.Format.Name(), "%s: its format's layout, without Format_Roots", r.Path)
		assert.Equal(t, "path", d.How, r.Path)
		assert.Zero(t, r.CorruptLines+r.SchemaInvalidLines, r.Path)
		assert.Zero(t, r.SeqGapCount+r.DuplicateSeqs+r.Regressions, r.Path)
		assert.Empty(t, r.Notes, "%s: none of the format's own annotations", r.Path)
		assert.Empty(t, r.Problems, r.Path)
		if r.TailTruncated {
			crashed[want]++
			continue
		}
		_, beside := registry.Lookup(want).(format.EndsBeside)
		if beside && diedIn[sessionOf(r)] {
			assert.False(t, r.SessionEnded, "%s: its session's runtime died", r.Path)
			continue
		}
		assert.True(t, r.SessionEnded, "%s: a file whose writer did not crash ends its session or run", r.Path)
		if endRecords[want] && !beside {
			assert.NotEmpty(t, r.EndReason, r.Path)
		}
	}
	require.Len(t, s.formats, len(sampleFormats))
	for _, f := range s.formats {
		assert.Equal(t, f.started, files[f.Format], "%s: one file per session or run", f.Format)
		assert.Equal(t, f.started/3, crashed[f.Format], "%s: every third crashes", f.Format)
		assert.Equal(t, f.crashes, crashed[f.Format], f.Format)
		assert.Positive(t, crashed[f.Format], f.Format)
	}
	assert.Equal(t, len(reps), s.started)
}

// TestSimulateWritesTheGeneratorsRecords: a Codelia, OrbitMesh or Claude
// Code file holds its generator's records, line for line, stamped with the
// time of writing (never decreasing, every other time in the record moved
// as much; a Claude Code line without a timestamp as generated), a Codelia
// run under the date its header says it started; a crash leaves a strict
// prefix of the next record; the snapshots (sidecars) of a session whose
// writer did not crash its last file are the generator's, moved as its
// last line, and there are none of a crashed one.
func TestSimulateWritesTheGeneratorsRecords(t *testing.T) {
	const seed, jobs = 11, 6
	roots := everyRoot(t)
	s := simulateRound(t, simulateOpts{roots: roots, seed: seed, crashEvery: 2, jobs: jobs}, simStart)
	for _, f := range sampleFormats[1:] {
		c, err := roundCorpus(f, seed, 0, jobs, simStart)
		require.NoError(t, err)
		// Files by name, or, where several share a name (Go pkg/session's
		// messages.jsonl), by their directory's name and theirs.
		names := map[string]int{}
		for _, file := range c.Files {
			names[path.Base(file.Rel)]++
		}
		key := func(rel string) string {
			if names[path.Base(rel)] > 1 {
				return path.Join(path.Base(path.Dir(rel)), path.Base(rel))
			}
			return path.Base(rel)
		}
		gen := map[string]sample.File{}
		for _, file := range c.Files {
			gen[key(file.Rel)] = file
		}
		type result struct {
			shift   time.Duration
			crashed bool
		}
		results := map[string]result{} // by file name
		walkJournals(t, roots[f.Format], func(rel string, data []byte) {
			if !strings.HasSuffix(rel, ".jsonl") {
				return
			}
			lines := strings.Split(string(data), "\n")
			src, ok := gen[key(rel)]
			if !ok { // named after the time its writer opened it (a Codex rollout)
				src, ok = placedAt(f, c.Files, rel, lines[0])
			}
			require.True(t, ok, "%s: a generated file", rel)
			tail, lines := lines[len(lines)-1], lines[:len(lines)-1]
			require.NotEmpty(t, lines, rel)
			d := checkRecords(t, f, rel, lines, src)
			if f.Format == "codelia" {
				assert.Equal(t, "sessions/"+ownTime(t, f, lines[0]).Format("2006/01/02")+"/"+path.Base(src.Rel), rel,
					"the date directory is the header's started_at")
			}
			results[key(rel)] = result{shift: d, crashed: tail != ""}
			if tail == "" {
				assert.Len(t, lines, len(src.Lines), "%s: a file whose writer did not crash is complete", rel)
				return
			}
			next := maskDigits(src.Lines[len(lines)].Text)
			cut := maskDigits(tail)
			assert.True(t, len(cut) < len(next) && strings.HasPrefix(next, cut), "%s: the partial line is a prefix of the next record", rel)
		})
		assert.Equal(t, s.formats[lookupIndex(f)].started, len(results), f.Format)
		// By session: the shift of its last file with times of its own
		// (a transcript.jsonl has none), unless its runtime died: its last
		// file crashed, or any of them in a format that dies whole.
		shifts, last, died := map[string]time.Duration{}, map[string]time.Duration{}, map[string]bool{}
		for _, file := range c.Files { // a session's files in the order they were written
			r := results[key(file.Rel)]
			if r.shift != 0 {
				last[file.SessionID] = r.shift
			}
			died[file.SessionID] = r.crashed || died[file.SessionID] && f.DiesWhole
			if died[file.SessionID] {
				delete(shifts, file.SessionID)
				continue
			}
			shifts[file.SessionID] = last[file.SessionID]
		}
		checkSide(t, f, roots[f.Format], c.Side, shifts)
	}
}

// writesEndRecords tells, by format, whether its generator's files end
// their sessions or runs with a record saying how (sample.File.EndReason).
func writesEndRecords(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, f := range sampleFormats {
		c, err := f.Generate(1, f.MinFaults, simStart, false)
		require.NoError(t, err, f.Format)
		out[f.Format] = len(c.Files) > 0
		for _, file := range c.Files {
			// Claude Code's transcripts end with none; only its captured
			// headless runs, with their result line, do.
			out[f.Format] = out[f.Format] && file.EndReason != ""
		}
	}
	return out
}

// checkRecords checks a file's complete lines against its generator's and
// returns how far the last one's times moved. A line without a time of its
// own (a Claude Code custom-title) is written as generated.
func checkRecords(t *testing.T, f *sampleFormat, rel string, lines []string, src sample.File) time.Duration {
	t.Helper()
	prev, d := time.Time{}, time.Duration(0)
	for i, l := range lines {
		if !hasOwnTime(f, src.Lines[i].Text) {
			assert.Equal(t, src.Lines[i].Text, l, "%s line %d: a line without a time of its own, as generated", rel, i)
			continue
		}
		ts := ownTime(t, f, l)
		was := ownTime(t, f, src.Lines[i].Text)
		back, _ := f.Stamp(l, was)
		assert.Equal(t, src.Lines[i].Text, back, "%s line %d: the generator's record, its times moved", rel, i)
		assertMovedBy(t, src.Lines[i].Text, l, ts.Sub(was), fmt.Sprintf("%s line %d", rel, i))
		assert.False(t, ts.Before(prev), "%s line %d: times never decrease", rel, i)
		assert.False(t, ts.Before(simStart), "%s line %d: stamped by the clock", rel, i)
		prev, d = ts, ts.Sub(was)
	}
	return d
}

// assertMovedBy checks that every time in got is the one in want moved by d.
func assertMovedBy(t *testing.T, want, got string, d time.Duration, where string) {
	t.Helper()
	w, g := sample.QuotedTime.FindAllString(want, -1), sample.QuotedTime.FindAllString(got, -1)
	require.Len(t, g, len(w), where)
	for i := range w {
		wt, err := time.Parse(time.RFC3339Nano, w[i][1:len(w[i])-1])
		require.NoError(t, err, where)
		gt, err := time.Parse(time.RFC3339Nano, g[i][1:len(g[i])-1])
		require.NoError(t, err, where)
		assert.Equal(t, d, gt.Sub(wt), "%s: time %d moved with the record's own", where, i)
	}
}

// checkSide checks the side files: present, whole and the generator's
// moved by the session's last shift exactly for the sessions in shifts.
func checkSide(t *testing.T, f *sampleFormat, root string, side []sample.SideFile, shifts map[string]time.Duration) {
	t.Helper()
	written := 0
	for _, sf := range side {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(sf.Rel)))
		d, whole := time.Duration(0), false
		for id, shift := range shifts {
			if sideOf(sf.Rel, id) {
				d, whole = shift, true
			}
		}
		if !whole {
			assert.ErrorIs(t, err, os.ErrNotExist, "%s: no snapshot of a session whose writer crashed", sf.Rel)
			continue
		}
		written++
		require.NoError(t, err, sf.Rel)
		assert.Equal(t, sample.ShiftTimes(string(sf.Data), d), string(data), sf.Rel)
		assertMovedBy(t, string(sf.Data), string(data), d, sf.Rel)
		if strings.HasSuffix(sf.Rel, ".json") { // not a lock file or a checkpoint's copy of a file
			assert.True(t, json.Valid(data), sf.Rel)
		}
	}
	if len(side) > 0 {
		assert.Positive(t, written, "%s: some snapshots", f.Format)
	}
	walkJournals(t, root, func(rel string, _ []byte) {
		assert.False(t, strings.HasSuffix(rel, ".tmp"), "%s: no temporary file left", rel)
		if strings.HasSuffix(rel, ".messages.jsonl") {
			if _, ok := shifts[strings.TrimSuffix(path.Base(rel), ".messages.jsonl")]; ok {
				// The runtime's session document and attempts, or the plan's
				// snapshot.
				journal := filepath.Join(root, rel)
				side, snap := orbitmesh.ReadSide(journal), orbitmesh.ReadSnapshot(journal)
				assert.True(t, side.Doc && len(side.Attempts) > 0 || snap.Read && snap.HasModel && snap.HasLastSeq, "%s: its side files are read", rel)
			}
		}
	})
}

// TestSimulateRestartWritesNewFiles: a simulator started again with the
// same seed into the same roots, later, writes new files beside the
// first one's (Codelia and OrbitMesh draw their ids from the seed).
func TestSimulateRestartWritesNewFiles(t *testing.T) {
	roots := everyRoot(t)
	o := simulateOpts{roots: roots, seed: 4, jobs: 3}
	first := simulateRound(t, o, simStart)
	second := simulateRound(t, o, simStart.Add(time.Minute))
	reps := auditTree(t, rootList(roots)...)
	assert.Len(t, reps, first.started+second.started)
}

// TestSideOf: a side file belongs to the session it is named after or
// whose directory holds it.
func TestSideOf(t *testing.T) {
	assert.True(t, sideOf("sessions/state/ses_1.json", "ses_1"))
	assert.True(t, sideOf("sessions/ses_1.tokens.json", "ses_1"))
	assert.False(t, sideOf("sessions/ses_10.json", "ses_1"))
	assert.True(t, sideOf("-home-dev-app/5f0a/subagents/agent-a1.meta.json", "5f0a"))
	assert.False(t, sideOf("-home-dev-app/5f0a/subagents/agent-a1.meta.json", "5f0"))
	assert.False(t, sideOf("sessions/.json", ""))
}

// formatUnder is the format whose root holds p.
func formatUnder(t *testing.T, roots map[string]string, p string) string {
	t.Helper()
	for name, root := range roots {
		if strings.HasPrefix(p, root+string(filepath.Separator)) {
			return name
		}
	}
	t.Fatalf("%s is under no root", p)
	return ""
}

// firstLineOf returns the file's first line.
func firstLineOf(t *testing.T, p string) []byte {
	t.Helper()
	fh, err := os.Open(p)
	require.NoError(t, err)
	defer fh.Close()
	line, err := bufio.NewReader(fh).ReadBytes('\n')
	require.NoError(t, err, p)
	return line
}

// hasOwnTime tells whether the format's stamp finds a time of the line's
// own: stamped at two times, the line differs.
func hasOwnTime(f *sampleFormat, line string) bool {
	a, _ := f.Stamp(line, simStart)
	b, _ := f.Stamp(line, simStart.Add(time.Hour))
	return a != b
}

// ownTime is the time the format's stamp reads as the record's own.
func ownTime(t *testing.T, f *sampleFormat, line string) time.Time {
	t.Helper()
	_, d := f.Stamp(line, simStart)
	return simStart.Add(-d)
}

// placedAt returns the file of files the writer named rel when it opened
// it, at its first line's time or within the seconds after it.
func placedAt(f *sampleFormat, files []sample.File, rel, first string) (sample.File, bool) {
	_, d := f.Stamp(first, simStart)
	at := simStart.Add(-d).Truncate(time.Second)
	for _, src := range files {
		for k := range 3 {
			if f.Place(src, at.Add(time.Duration(k-1)*time.Second)) == rel {
				return src, true
			}
		}
	}
	return sample.File{}, false
}

// maskDigits replaces every run of digits by one X: a torn line's times
// are cut anywhere, and a time moved by the writer may be written with
// more or fewer digits than the generator's (Go's RFC 3339 drops a
// fraction's trailing zeros).
func maskDigits(s string) string {
	return digitRun.ReplaceAllString(s, "X")
}

var digitRun = regexp.MustCompile(`[0-9]+`)

// lookupIndex is f's index in sampleFormats.
func lookupIndex(f *sampleFormat) int {
	for i, g := range sampleFormats {
		if g == f {
			return i
		}
	}
	return -1
}
