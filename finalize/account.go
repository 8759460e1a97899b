package finalize

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/loki"
	"github.com/journalship/journalship/pipeline"
	"github.com/journalship/journalship/verdict"
)

// account ships what is left of a finished file, the records beside it,
// and marks it finished.
func (f *Finalizer) account(ctx context.Context, path string, s snapshot, o *Outcome) error {
	r, err := backfill.New(f.cfg.Backfill, f.ship, f.ledger)
	if err != nil {
		return err
	}
	st, err := r.Run(ctx, path)
	if err != nil {
		return err
	}
	o.ShippedLines = st.Shipped + st.DeadLettered
	if len(s.tail) > 0 {
		if err := f.shipTail(ctx, path, s); err != nil {
			return err
		}
		o.TailBytes = len(s.tail)
	}
	ended, err := f.summarize(ctx, path, s, o)
	if err != nil {
		return err
	}
	if err := f.side(ctx, path, func() bool { return ended }); err != nil {
		return err
	}
	if err := f.fillBlankGaps(ctx, path, s.id, s.tailFrom); err != nil {
		return err
	}
	after, err := snapshotOf(path)
	if err != nil {
		return fmt.Errorf("finalize: %w", err)
	}
	if after.size != s.size || !after.mtime.Equal(s.mtime) || after.id != s.id {
		return ErrChanged
	}
	if err := f.ledger.MarkFinished(ctx, path, s.id, s.size, s.tailFrom); err != nil {
		return fmt.Errorf("finalize: %s: %w", path, err)
	}
	f.count(o)
	return nil
}

// summarize ships the file's audit report as one file_summary entry,
// stamped with the file's modification time (a second run ships the same
// entry, which Loki stores once), and tells whether the report says the
// session is over.
func (f *Finalizer) summarize(ctx context.Context, path string, s snapshot, o *Outcome) (ended bool, err error) {
	cfg := f.cfg.Audit
	cfg.Redact = func(line []byte) []byte { return f.ship.RedactLine(path, line) } // previews ship
	fm := f.ship.Format(path)
	rep, err := audit.FileAs(path, cfg, fm)
	if err != nil {
		return false, fmt.Errorf("finalize: audit %s: %w", path, err)
	}
	o.Level, o.severity, o.sizeAlert = rep.Level(), rep.Severity, rep.SizeAlert
	line, err := json.Marshal(struct {
		Journalship string `json:"journalship"`
		Level       string `json:"level"`
		audit.Report
	}{"file_summary", o.Level.String(), rep})
	if err != nil {
		return false, err
	}
	annots := []string{"file_summary"}
	if rep.Severity != "" {
		annots = append(annots, rep.Severity)
	}
	if rep.SeqGapCount > 0 {
		annots = append(annots, "seq_gap")
	}
	if rep.SizeAlert {
		annots = append(annots, "size_alert")
	}
	if len(rep.Unfinished) > 0 {
		annots = append(annots, "unfinished") // a request the run never saw answered
	}
	if dirSize(filepath.Dir(path)) > f.cfg.Audit.JobDirSizeAlert {
		annots = append(annots, "job_dir_size_alert")
		o.jobDirAlert = true
	}
	over := verdict.Session(rep, fm, s.mtime, f.cfg.StaleAfter).Over
	return over, f.ship.ShipSynthetic(ctx, []pipeline.Synthetic{{Path: path, Kind: "file_summary", Time: s.mtime.Add(time.Millisecond),
		Line: line, Annotations: annots, Metadata: []loki.Label{{Name: "level", Value: o.Level.String()}}}})
}

func (f *Finalizer) count(o *Outcome) {
	m := f.cfg.Metrics
	if m == nil {
		return
	}
	m.FilesFinished.WithLabelValues(o.Level.String(), o.severity).Inc()
	if o.TailBytes > 0 {
		m.TruncatedTails.Inc()
	}
	if o.sizeAlert {
		m.FileSizeAlerts.Inc()
	}
	if o.jobDirAlert {
		m.JobDirSizeAlerts.Inc()
	}
}

// dirSize sums the sizes of the regular files directly in dir.
func dirSize(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

// tailEntry is the text of the truncated_tail entry. It holds the partial
// line whole (redacted): retention deletes the journal once this entry is
// in Loki, and the line's bytes must outlive it. Text holds it when it is
// UTF-8, TextBase64 otherwise (a write cut inside a character).
type tailEntry struct {
	Journalship string `json:"journalship"`
	File        string `json:"file"`
	Offset      int64  `json:"offset"`
	Bytes       int    `json:"bytes"`
	Preview     string `json:"preview"`
	LastSeq     *int64 `json:"last_seq"`
	Text        string `json:"text,omitempty"`
	TextBase64  string `json:"text_base64,omitempty"`
}

// shipTail ships the entry that marks where the session was cut off, with
// the partial line (one longer than the pipeline's Max_Line_Bytes goes to
// the dead-letter file instead, as such a line does). It is stamped just
// after the file's modification time (when the writer stopped), so it ends
// the session's trail, and a second run ships an identical entry, which
// Loki stores once.
func (f *Finalizer) shipTail(ctx context.Context, path string, s snapshot) error {
	// The tail is redacted before it is cut: a cut inside a secret would
	// leave its start, too short for its rule to find in the preview.
	red := f.ship.RedactLine(path, s.tail)
	preview := audit.PreviewN(red, f.cfg.PreviewChars)
	te := tailEntry{Journalship: "truncated_tail", File: path, Offset: s.tailFrom, Bytes: len(s.tail), Preview: preview}
	if utf8.Valid(red) {
		te.Text = string(red)
	} else {
		te.TextBase64 = base64.StdEncoding.EncodeToString(red)
	}
	if b, err := f.reader.Lookbehind(path, s.tailFrom, s.tail, -1, f.ship.Format(path).NewJudge()); err == nil && b.SeqKnown && !b.AtStart {
		te.LastSeq = &b.PrevSeq
	}
	line, err := json.Marshal(te)
	if err != nil {
		return err
	}
	return f.ship.ShipSynthetic(ctx, []pipeline.Synthetic{{Path: path, Kind: "truncated_tail", Time: s.mtime.Add(time.Millisecond),
		Line: line, Offset: s.tailFrom, HasOffset: true, Annotations: []string{"truncated_tail"}}})
}

// fillBlankGaps records as accounted for the bytes between shipped ranges,
// below bound, that hold no line: empty lines and the \r\n ends that tail
// skips or strips. Anything else left between ranges stays a gap, and
// MarkFinished then refuses, so no unshipped line is ever claimed. id is
// the identity of the file as it was read.
func (f *Finalizer) fillBlankGaps(ctx context.Context, path string, id journalfile.Identity, bound int64) error {
	st, err := f.ledger.File(ctx, path)
	if err != nil {
		return err
	}
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	if !journalfile.Same(st.Identity, id) {
		return nil // the ranges are another file's: backfill just shipped this one
	}
	var segs []ledger.Segment
	prev := int64(0)
	for _, rg := range append(st.Ranges, ledger.Range{Start: bound, End: bound}) {
		if rg.Start > prev && rg.Start <= bound && rg.Start-prev <= 4096 {
			buf := make([]byte, rg.Start-prev)
			if _, err := fh.ReadAt(buf, prev); err == nil && blank(buf) {
				segs = append(segs, ledger.Segment{Path: path, Identity: id, Start: prev, End: rg.Start, FirstSeq: -1, LastSeq: -1})
			}
		}
		prev = max(prev, rg.End)
	}
	if len(segs) == 0 {
		return nil
	}
	return f.ledger.Record(ctx, segs)
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != '\n' && c != '\r' && c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}
