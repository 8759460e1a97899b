package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
)

// TableWriter renders reports as `journalship verify` prints them: one row
// per file as it comes, then the details of every file that is not clean,
// the job directories over their size alert and a summary line.
type TableWriter struct {
	w      io.Writer
	cfg    Config
	header bool
	bad    []Report
	sum    Summary
	torn   int // files with a torn last line, counted in their LINES
	err    error
	quiet  map[string]struct{} // formats that write no end record, by name
}

// NewTableWriter writes to w; cfg gives the thresholds quoted in details.
func NewTableWriter(w io.Writer, cfg Config) *TableWriter {
	return &TableWriter{w: w, cfg: cfg, quiet: quietFormats()}
}

// quietFormats names the registered formats that write no end record
// (format.EndQuiet): for them "not over" means "not idle".
func quietFormats() map[string]struct{} {
	out := map[string]struct{}{}
	for _, d := range registry.Descriptors() {
		if d.End == format.EndQuiet {
			out[d.Name] = struct{}{}
		}
	}
	return out
}

const rowFormat = "%-7s %-9s %7v %7v %5v  %-10s %-16s %s\n"

// Write prints r's row (after the header, the first time).
func (t *TableWriter) Write(r Report) error {
	if !t.header {
		t.header = true
		t.printf(rowFormat, "STATUS", "FORMAT", "LINES", "CORRUPT", "GAPS", "TAIL", "SEVERITY", "PATH")
	}
	t.sum.Add(r)
	if r.Level() != Clean {
		t.bad = append(t.bad, r)
	}
	tail := "-"
	if r.TailTruncated {
		tail = "cut " + strconv.Itoa(r.TailBytes) + "B"
		t.torn++
	}
	t.printf(rowFormat, statusOf(r.Level()), orDash(r.Format), r.TotalLines, r.CorruptLines, r.SeqGapCount, tail, orDash(r.Severity), safePath(r.Path))
	return t.err
}

// Close prints the details, the job directories over their alert and the
// summary; it returns the summary.
func (t *TableWriter) Close(jobs []JobReport) (Summary, error) {
	t.sum.AddJobs(jobs)
	if !t.header {
		t.printf("no journal files found\n")
	}
	for _, r := range t.bad {
		t.details(r)
	}
	if len(t.sum.JobDirsOverAlert) > 0 {
		t.printf("\njob directories over the %s alert:\n", mib(t.cfg.JobDirSizeAlert))
		for _, j := range t.sum.JobDirsOverAlert {
			t.printf("  %s in %d files: %s\n", mib(j.Size), j.Files, safePath(j.Dir))
		}
	}
	s := t.sum
	torn := ""
	if t.torn > 0 {
		torn = " (" + count(t.torn, "torn last line", "torn last lines") + " among them)"
	}
	t.printf("\n%s, %s%s: %d clean, %d with warnings, %d corrupt\n",
		count(s.Files, "file", "files"), count(s.Lines, "line", "lines"), torn, s.Clean, s.Warnings, s.Corrupt)
	if t.torn > 0 {
		t.printf("LINES counts a torn last line (TAIL cut) as a line; recovery discards it.\n")
	}
	return s, t.err
}

// count is "1 file", "2 files".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func (t *TableWriter) details(r Report) {
	t.printf("\n%s: %s\n", safePath(r.Path), r.Level())
	if r.Empty {
		t.printf("  empty: no line yet (a session that has not written, or a file truncated to nothing)\n")
		return
	}
	t.format(r)
	if r.TailTruncated {
		t.printf("  truncated tail: %d bytes at offset %d, discarded by recovery: %s\n", r.TailBytes, r.TailOffset, r.TailPreview)
	}
	for _, c := range r.CorruptDetails {
		t.printf("  corrupt line %d at offset %d (%s): %s\n", c.Line, c.Offset, c.Reason, c.Preview)
	}
	more(t, r.CorruptLines-len(r.CorruptDetails), "corrupt lines")
	if r.CorruptLines > 0 {
		verdict := "under"
		use := "usable"
		if !r.UsableForRecovery {
			verdict, use = "over", "not usable"
		}
		t.printf("  corruption: %d of %d lines (%.1f%%), %s the %g%% threshold: %s for recovery\n",
			r.CorruptLines, r.TotalLines, 100*r.CorruptionRatio, verdict, 100*t.cfg.CorruptionThreshold, use)
	}
	for _, s := range r.SchemaInvalidDetails {
		t.printf("  schema-invalid line %d at offset %d: %s\n", s.Line, s.Offset, s.Reason)
	}
	more(t, r.SchemaInvalidLines-len(r.SchemaInvalidDetails), "schema-invalid lines")
	for _, g := range r.SeqGaps {
		t.printf("  seq gap %s (%d missing) before the line at offset %d\n", seqRange(g), g.To-g.From+1, g.Offset)
	}
	more(t, r.SeqGapCount-len(r.SeqGaps), "seq gaps")
	if r.DuplicateSeqs+r.Regressions > 0 {
		t.printf("  seq: %d duplicated, %d regressed (below the highest seq before them)\n", r.DuplicateSeqs, r.Regressions)
	}
	if r.BestEffort {
		t.printf("  schema version %d is unknown: lines judged best-effort\n", r.SchemaVersion)
	}
	if r.Severity != SeverityUnreadable {
		t.session(r)
	}
	if r.SizeAlert {
		t.printf("  size %s is over the %s alert\n", mib(r.Size), mib(t.cfg.FileSizeAlert))
	}
	for _, p := range r.Problems {
		t.printf("  problem: %s\n", p)
	}
}

// format prints how the file's format was found when that is worth a
// look, what is wrong with its path, and its derived state.
func (t *TableWriter) format(r Report) {
	switch r.DetectedBy {
	case "content", "path-unconfirmed", "fallback":
		t.printf("  format %s (%s)\n", r.Format, detectedBy[r.DetectedBy])
	}
	if r.PathProblem != "" {
		t.printf("  path: %s\n", r.PathProblem)
	}
	if r.State != "" {
		t.printf("  state: %s\n", r.State)
	}
	if len(r.Notes) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(r.Notes)) {
			parts = append(parts, fmt.Sprintf("%s ×%d", k, r.Notes[k]))
		}
		t.printf("  annotations: %s\n", strings.Join(parts, ", "))
	}
}

var detectedBy = map[string]string{
	"content":          "found by the first line: the path is in no format's layout",
	"path-unconfirmed": "by the path: the first line is no format's",
	"fallback":         "no format claims the path or the first line: lines checked as JSON only",
}

// session prints the end of the session and, for a session that did not
// end, what recovery would find.
func (t *TableWriter) session(r Report) {
	for _, u := range r.Unfinished {
		t.printf("  unfinished: %s\n", u)
	}
	if r.SessionEnded && len(r.StartedNotFinished) == 0 {
		return
	}
	switch _, quiet := t.quiet[r.Format]; {
	case !r.SessionEnded && quiet && r.State != "":
		// A format that writes no end record (Claude Code): over when
		// idle, and this one is not.
		t.printf("  not over: the session is %s, not idle (it crashed or is still working)\n", r.State)
	case !r.SessionEnded:
		t.printf("  not over: no end of the session or run in the file (it crashed or is still being written)\n")
	}
	if c := r.LastCheckpoint; c != nil {
		t.printf("  recovery: last checkpoint %s (step %d, seq %d, offset %d)\n", c.ID, c.Step, c.Seq, c.Offset)
		t.printf("    completed after it (skipped on resume): %s\n", listOrNone(r.CompletedAfterCheckpoint))
	} else {
		t.printf("  recovery: no checkpoint saved in the file, a resume has nothing to go on\n")
	}
	for _, c := range r.StartedNotFinished {
		effect := ""
		if c.SideEffect {
			effect = ", side effect: may have happened"
		}
		t.printf("    started, not finished: %s %s at offset %d%s\n", c.ToolName, c.InvocationID, c.Offset, effect)
	}
}

func more(t *TableWriter, n int, what string) {
	if n > 0 {
		t.printf("  ... and %s\n", count(n, "more "+strings.TrimSuffix(what, "s"), "more "+what))
	}
}

func (t *TableWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// JSONWriter renders reports as JSON lines: one object per file (the
// report with its "level"), then {"summary": {...}}.
type JSONWriter struct {
	enc *json.Encoder
	sum Summary
}

// NewJSONWriter writes to w.
func NewJSONWriter(w io.Writer) *JSONWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSONWriter{enc: enc}
}

type jsonReport struct {
	Level Level `json:"level"`
	Report
}

// Write prints r as one line.
func (j *JSONWriter) Write(r Report) error {
	j.sum.Add(r)
	return j.enc.Encode(jsonReport{Level: r.Level(), Report: r})
}

// Close prints the summary line and returns the summary.
func (j *JSONWriter) Close(jobs []JobReport) (Summary, error) {
	j.sum.AddJobs(jobs)
	return j.sum, j.enc.Encode(struct {
		Summary Summary `json:"summary"`
	}{j.sum})
}

func statusOf(l Level) string {
	switch l {
	case Clean:
		return "ok"
	case Warning:
		return "WARN"
	}
	return "CORRUPT"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func seqRange(g Gap) string {
	if g.From == g.To {
		return strconv.FormatInt(g.From, 10)
	}
	return strconv.FormatInt(g.From, 10) + "-" + strconv.FormatInt(g.To, 10)
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// mib renders a size in B, KiB or MiB.
func mib(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// safePath quotes a path holding characters a terminal would not show.
func safePath(p string) string {
	for _, r := range p {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			return strconv.Quote(p)
		}
	}
	return p
}
