package codelia

import (
	"cmp"
	"strconv"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// The annotation kinds the truth expects (Line.Expect). The generic ones
// are the pipeline's; the others are the format's notes, shipped with
// their detail under the metadata key of the same name.
const (
	AnnCorrupt                = "corrupt"
	AnnSchemaInvalid          = "schema_invalid"
	AnnUnknownType            = "unknown_type"
	AnnBestEffort             = "best_effort"
	AnnHeaderMissing          = "header_missing"
	AnnHeaderMisplaced        = "header_misplaced"
	AnnSchemaVersionUnknown   = "schema_version_unknown"
	AnnRunIDMismatch          = "run_id_mismatch"
	AnnFileNameMismatch       = "file_name_mismatch"
	AnnDateMismatch           = "date_mismatch"
	AnnRequestSeqGap          = "request_seq_gap"
	AnnRequestSeqRepeat       = "request_seq_repeat"
	AnnRequestSeqRegression   = "request_seq_regression"
	AnnResponseWithoutRequest = "response_without_request"
	AnnEventSeqRepeat         = "event_seq_repeat"
	AnnEventSeqRegression     = "event_seq_regression"
	AnnUnknownStatus          = "unknown_status"
	AnnUnknownOutcome         = "unknown_outcome"
	AnnUnknownInputType       = "unknown_input_type"
)

// fileTruth follows a file's lines in order, as the rules of the format
// (docs/formats/codelia.md) say a reader must, from the facts the
// generator recorded of each record it wrote.
type fileTruth struct {
	pathRunID string    // the file name's run_id
	pathDate  time.Time // the directories' date

	lines       int  // lines so far, corrupt ones included
	readable    bool // a line so far was not corrupt
	headerSeen  bool
	bestEffort  bool   // the first header declared a version v1 readers do not know
	runID       string // the file's run_id: the first header's
	sessionID   string // the first header's session_id, else the first run.start's
	headerModel string

	lastReq   int64
	hasReq    bool
	open      map[int64]string // unanswered requests: seq → model
	lastEvent int64
	hasEvent  bool
	derived   string // the run's last status
}

func newFileTruth(pathRunID string, pathDate time.Time) *fileTruth {
	y, m, d := pathDate.UTC().Date()
	return &fileTruth{pathRunID: pathRunID, pathDate: time.Date(y, m, d, 0, 0, 0, 0, time.UTC), open: map[int64]string{}}
}

// corrupt is the truth of a torn line: only "corrupt"; continuity does
// not see it.
func (t *fileTruth) corrupt(off int64, line []byte) sample.Line {
	t.lines++
	l := toLine(off, line)
	l.Corrupt, l.Expect = true, []string{AnnCorrupt}
	return l
}

// line is the truth of a complete record, in the order the product
// ships the kinds: schema_invalid, unknown_type, best_effort, then the
// format's notes.
func (t *fileTruth) line(off int64, line []byte, rc *rec) sample.Line {
	l := toLine(off, line)
	l.Type, l.Seq = rc.typ, rc.seq
	var notes []string
	bestEffort := t.bestEffort
	if rc.typ == typeHeader {
		notes = t.header(rc)
		bestEffort = rc.version != 1
		l.Model = rc.model // the run's configured model, which the header states
	} else {
		notes = t.record(rc, &l)
	}
	invalid := rc.invalid && !bestEffort
	l.Valid = !invalid
	if invalid {
		l.Expect = append(l.Expect, AnnSchemaInvalid)
	}
	if rc.unknown {
		l.Expect = append(l.Expect, AnnUnknownType)
	}
	if bestEffort {
		l.Expect = append(l.Expect, AnnBestEffort)
	}
	l.Expect = append(l.Expect, notes...)
	if rc.runID != "" && rc.runID != t.pathRunID {
		l.RunID = rc.runID // shipped as stated; the mismatch note names the file's
	}
	if rc.typ == typeLLMResponse && l.Valid && rc.usage != nil {
		u := rc.usage
		l.Counted = true
		l.PromptTokens, l.CompletionTokens = u.input, u.output
		l.CacheReadTokens, l.CacheWriteTokens = u.cacheReadTokens(), u.cacheWriteTokens()
		if u.exclusive { // tokens_in is the whole prompt: the cache comes on top
			l.PromptTokens += l.CacheReadTokens + l.CacheWriteTokens
		}
	}
	t.lines++
	t.readable = true
	l.State = t.derived
	return l
}

// header judges a header: only the file's first one counts.
func (t *fileTruth) header(rc *rec) []string {
	var notes []string
	if t.lines > 0 {
		notes = append(notes, AnnHeaderMisplaced)
	}
	if rc.version != 1 {
		notes = append(notes, detail(AnnSchemaVersionUnknown, strconv.FormatInt(rc.version, 10)))
	}
	if t.headerSeen {
		return append(notes, t.checkRunID(rc.runID)...)
	}
	t.headerSeen, t.bestEffort = true, rc.version != 1
	t.sessionID, t.headerModel, t.runID = rc.sessionID, rc.model, rc.runID
	if t.runID != t.pathRunID {
		notes = append(notes, detail(AnnFileNameMismatch, t.pathRunID))
	}
	y, m, d := rc.ts.UTC().Date()
	if day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC); !day.Equal(t.pathDate) {
		notes = append(notes, detail(AnnDateMismatch, day.Format(time.DateOnly)))
	}
	return notes
}

// record judges any other record and sets the line's model.
func (t *fileTruth) record(rc *rec, l *sample.Line) []string {
	var notes []string
	if !t.readable && !t.headerSeen {
		notes = append(notes, AnnHeaderMissing)
	}
	notes = append(notes, enumNote(rc)...)
	notes = append(notes, t.checkRunID(rc.runID)...)
	switch rc.typ {
	case typeRunStart:
		if t.sessionID == "" {
			t.sessionID = rc.sessionID
		}
	case typeAgentEvent:
		notes = append(notes, order(rc.seq, &t.lastEvent, &t.hasEvent, false, AnnEventSeqRepeat, AnnEventSeqRegression)...)
	case typeLLMRequest:
		l.Model = cmp.Or(rc.model, t.headerModel)
		notes = append(notes, order(rc.seq, &t.lastReq, &t.hasReq, true, AnnRequestSeqRepeat, AnnRequestSeqRegression)...)
		t.open[rc.seq] = l.Model
	case typeLLMResponse:
		reqModel, ok := t.open[rc.seq]
		delete(t.open, rc.seq)
		if !ok {
			notes = append(notes, AnnResponseWithoutRequest)
		}
		l.Model = cmp.Or(rc.model, reqModel, t.headerModel)
	case typeRunStatus, typeRunEnd:
		t.derived = rc.status
		if !known(knownStatuses, rc.status) {
			t.derived = "other"
		}
	}
	return notes
}

// enumNote annotates a value outside the spec's enums, which readers must
// tolerate.
func enumNote(rc *rec) []string {
	switch {
	case rc.typ == typeRunStart && !known(knownInputTypes, rc.inputType):
		return []string{detail(AnnUnknownInputType, rc.inputType)}
	case rc.typ == typeRunStatus && !known(knownStatuses, rc.status):
		return []string{detail(AnnUnknownStatus, rc.status)}
	case rc.typ == typeRunEnd && !known(knownOutcomes, rc.status):
		return []string{detail(AnnUnknownOutcome, rc.status)}
	}
	return nil
}

// checkRunID annotates a run_id other than the file's: the first
// header's, else the file name's.
func (t *fileTruth) checkRunID(id string) []string {
	ref := cmp.Or(t.runID, t.pathRunID)
	if id == "" || id == ref {
		return nil
	}
	return []string{detail(AnnRunIDMismatch, ref)}
}

// order judges seq after the previous one of its kind, *last: a gap (when
// gaps count), a repeat or a regression; then seq becomes the previous.
func order(seq int64, last *int64, has *bool, gaps bool, repeat, regression string) []string {
	var notes []string
	switch l := *last; {
	case !*has || seq == l+1:
	case seq == l:
		notes = []string{detail(repeat, "after "+strconv.FormatInt(l, 10))}
	case seq < l:
		notes = []string{detail(regression, "after "+strconv.FormatInt(l, 10))}
	case gaps && seq == l+2:
		notes = []string{detail(AnnRequestSeqGap, strconv.FormatInt(l+1, 10))}
	case gaps:
		notes = []string{detail(AnnRequestSeqGap, strconv.FormatInt(l+1, 10)+"-"+strconv.FormatInt(seq-1, 10))}
	}
	*last, *has = seq, true
	return notes
}

// detail is an expected annotation with the value shipped under its key.
func detail(kind, value string) string { return kind + ":" + value }
