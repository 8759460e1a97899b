package audit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/journalfile"
)

// File audits the journal at path, streaming it in bounded memory. A file
// that cannot be read still gets a Report (severity "unreadable", the cause
// in Problems) together with an *Error saying why; an invalid cfg gives an
// *Error of kind ErrInvalid and an empty Report.
func File(path string, cfg Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{Path: path}, err
	}
	reg, err := registry.New(cfg.Formats)
	if err != nil {
		return Report{Path: path}, &Error{Op: "config", Kind: ErrInvalid, Err: err}
	}
	return file(path, cfg, reg.Detect)
}

// FileAs audits the journal at path as a journal of format fm, which the
// caller already knows (the shipper's format of the file): nothing is
// detected, and a caller auditing file after file with the same formats
// reuses their judges.
func FileAs(path string, cfg Config, fm format.Format) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{Path: path}, err
	}
	return file(path, cfg, func(path string, _ []byte) registry.Detection {
		p, _ := fm.Claim(path)
		p.Format = fm.Name()
		return registry.Detection{Format: fm, Path: p, How: "setting"}
	})
}

// detector picks a file's format from its path and first line
// (Registry.Detect).
type detector func(path string, first []byte) registry.Detection

// file audits the journal at path with a validated cfg, its format picked
// by detect.
func file(path string, cfg Config, detect detector) (Report, error) {
	st, err := os.Stat(path)
	if err != nil {
		return unreadable(path, nil, cfg, &Error{Op: "stat", Path: path, Kind: classify(err), Err: err}, cause(err))
	}
	if !st.Mode().IsRegular() {
		e := &Error{Op: "stat", Path: path, Kind: ErrNotRegular, Err: fmt.Errorf("%s", journalfile.Kind(st.Mode()))}
		return unreadable(path, st, cfg, e, "not a regular file ("+journalfile.Kind(st.Mode())+")")
	}
	f, err := os.Open(path)
	if err != nil {
		return unreadable(path, st, cfg, &Error{Op: "open", Path: path, Kind: classify(err), Err: err}, cause(err))
	}
	defer f.Close()
	r, err := read(f, path, cfg, detect, true)
	r.ModTime = st.ModTime().UTC()
	return r, err
}

// Reader audits a journal read from r; name is its Path in the report.
// A read error yields the report so far, with severity "unreadable", and
// an *Error.
func Reader(r io.Reader, name string, cfg Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{Path: name}, err
	}
	reg, err := registry.New(cfg.Formats)
	if err != nil {
		return Report{Path: name}, &Error{Op: "config", Kind: ErrInvalid, Err: err}
	}
	return read(r, name, cfg, reg.Detect, false)
}

// read audits r, named name, its format picked by detect from its name
// and first line; sides: name is a path on this machine, and a format's
// side files beside it are read.
func read(r io.Reader, name string, cfg Config, detect detector, sides bool) (Report, error) {
	s := getScratch()
	s.br.Reset(r)
	side := ""
	if sides {
		side = name
	}
	a := newAuditor(cfg, s, name, detect(name, firstLine(s.br)), side)
	defer a.release()
	rerr := a.run()
	if rerr != nil {
		a.problem("read failed at offset " + fmt.Sprint(a.r.Size) + ": " + cause(rerr))
	}
	rep := a.finish(rerr != nil)
	if rerr != nil {
		return rep, &Error{Op: "read", Path: name, Kind: classify(rerr), Err: rerr}
	}
	return rep, nil
}

// finish settles the tail and applies the seed's assessment.
func (a *auditor) finish(failed bool) Report {
	r := &a.r
	if a.pending {
		r.TailTruncated = true
		r.TailOffset, r.TailBytes, r.TailPreview = a.pendIssue.Offset, int(a.pendLength), a.pendIssue.Preview
	}
	if a.dropped > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%d more problems not listed", a.dropped))
	}
	a.state(r)
	a.recovery.report(r)
	assess(r, a.cfg)
	if failed {
		r.Severity, r.UsableForRecovery = SeverityUnreadable, false
	} else if r.TotalLines == 0 {
		r.Empty = true
	}
	r.SizeAlert = r.Size > a.cfg.FileSizeAlert
	normalize(r)
	return *r
}

// state reports what the format's state says of the file as a whole.
func (a *auditor) state(r *Report) {
	if a.st == nil {
		return
	}
	r.SessionEnded, r.Terminal = a.st.Over()
	if er, ok := a.st.(format.EndReasoner); ok && r.SessionEnded && r.EndReason == "" {
		r.EndReason = er.EndReason() // written beside the journal (Go pkg/session's exit_reason)
	}
	if !r.SessionEnded {
		r.EndReason = "" // an earlier run ended; the latest goes on
	}
	r.Unfinished = a.st.Open()
	r.State = a.st.Derived()
}

// firstLine peeks at the stream's first line (without its newline, at
// most the read buffer), trimmed, for format detection; nil when there is
// none.
func firstLine(br *bufio.Reader) []byte {
	head, _ := br.Peek(readBufSize)
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	if head = jsTrim(head); len(head) == 0 {
		return nil
	}
	return head
}

// assess is the seed's assessBufferIntegrity (severity, ratio) and
// shouldUseBufferForRecovery.
func assess(r *Report, cfg Config) {
	if r.TotalLines == 0 {
		r.CorruptionRatio, r.Severity, r.UsableForRecovery = 0, SeverityUnreadable, false
		return
	}
	r.CorruptionRatio = float64(r.CorruptLines) / float64(r.TotalLines)
	switch {
	case r.CorruptLines == 0 && r.TailTruncated:
		r.Severity = SeverityTruncatedTail
	case r.CorruptionRatio > DefaultCorruptionThreshold: // the seed's literal 0.1
		r.Severity = SeverityCorruptInterior
	case r.CorruptLines > 0:
		r.Severity = SeverityCorruptInterior
	default:
		r.Severity = SeverityNone
	}
	r.UsableForRecovery = r.Severity != SeverityUnreadable && !(r.CorruptionRatio > cfg.CorruptionThreshold)
}

// unreadable is the report on a file that could not be read.
func unreadable(path string, st fs.FileInfo, cfg Config, err error, problem string) (Report, error) {
	r := Report{Path: path, Severity: SeverityUnreadable, Problems: []string{problem}}
	if st != nil {
		r.Size, r.ModTime = st.Size(), st.ModTime().UTC()
		r.SizeAlert = r.Size > cfg.FileSizeAlert
	}
	normalize(&r)
	return r, err
}

// normalize gives every list a non-nil value, so JSON shows [] not null.
func normalize(r *Report) {
	if r.SeqGaps == nil {
		r.SeqGaps = []Gap{}
	}
	if r.CompletedAfterCheckpoint == nil {
		r.CompletedAfterCheckpoint = []string{}
	}
	if r.StartedNotFinished == nil {
		r.StartedNotFinished = []ToolCall{}
	}
	if r.CorruptDetails == nil {
		r.CorruptDetails = []LineIssue{}
	}
	if r.SchemaInvalidDetails == nil {
		r.SchemaInvalidDetails = []LineIssue{}
	}
	if r.Problems == nil {
		r.Problems = []string{}
	}
	if r.Unfinished == nil {
		r.Unfinished = []string{}
	}
}
