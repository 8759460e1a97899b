package audit

import "time"

// Severities lists every severity, SeverityNone first.
var Severities = []string{SeverityNone, SeverityTruncatedTail, SeverityCorruptInterior, SeverityUnreadable}

// Severities, the seed's CorruptionSeverity ("" when the file is intact).
const (
	SeverityNone            = ""
	SeverityTruncatedTail   = "truncated_tail"
	SeverityCorruptInterior = "corrupt_interior"
	SeverityUnreadable      = "unreadable"
)

// Report is the integrity verdict on one journal file.
type Report struct {
	Path string `json:"path"`
	// Format is the journal format the file was judged by; DetectedBy says
	// how it was chosen (registry.Detection.How); PathProblem what is wrong
	// with the path, for that format ("" when nothing is).
	Format      string    `json:"format"`
	DetectedBy  string    `json:"detected_by"`
	PathProblem string    `json:"path_problem,omitempty"`
	Size        int64     `json:"size"` // bytes read (the file's size when read to the end)
	ModTime     time.Time `json:"mod_time"`

	// The seed's counts: non-empty lines; ValidLines includes
	// SchemaInvalidLines; the truncated tail is in TotalLines only.
	TotalLines         int `json:"total_lines"`
	ValidLines         int `json:"valid_lines"`
	SchemaInvalidLines int `json:"schema_invalid_lines"`
	CorruptLines       int `json:"corrupt_lines"`

	// TailTruncated: the last non-empty line is invalid (a write cut by a
	// crash). TailOffset and TailBytes locate it (bytes without the
	// newline); TailPreview is its start, escaped (see Preview).
	TailTruncated bool   `json:"tail_truncated"`
	TailOffset    int64  `json:"tail_offset"`
	TailBytes     int    `json:"tail_bytes"`
	TailPreview   string `json:"tail_preview"`

	// Seq continuity (the format's integrity.SeqRule): SeqGaps lists the first MaxDetails
	// gaps, SeqGapCount counts them all, MissingSeqs sums their sizes.
	SeqGaps       []Gap `json:"seq_gaps"`
	SeqGapCount   int   `json:"seq_gap_count"`
	MissingSeqs   int64 `json:"missing_seqs"`
	DuplicateSeqs int   `json:"duplicate_seqs"`
	Regressions   int   `json:"regressions"`

	// CorruptionRatio is CorruptLines / TotalLines; Severity and
	// UsableForRecovery are the seed's assessBufferIntegrity and
	// shouldUseBufferForRecovery.
	CorruptionRatio   float64 `json:"corruption_ratio"`
	Severity          string  `json:"severity"`
	UsableForRecovery bool    `json:"usable_for_recovery"`
	// Empty: the file was read and holds no line (blank lines at most): a
	// session that has not written yet. The seed's severity is
	// "unreadable" (nothing to recover from); the level is only Warning.
	Empty bool `json:"empty,omitempty"`

	// SchemaVersion is the buffer_schema_version SESSION_START declared (0
	// if none); BestEffort: that version is unknown, so lines were judged
	// on the version-independent fields only.
	SchemaVersion int64 `json:"schema_version"`
	BestEffort    bool  `json:"best_effort"`

	// Phase-2 recovery facts.
	LastCheckpoint           *Checkpoint `json:"last_checkpoint"`
	CompletedAfterCheckpoint []string    `json:"completed_after_checkpoint"`
	StartedNotFinished       []ToolCall  `json:"started_not_finished"`

	// SessionEnded: the lines end the session or run (the format's rule);
	// Terminal: and it will not resume. EndReason is how the last ending
	// line says it ended ("" unless SessionEnded).
	SessionEnded bool   `json:"session_ended"`
	Terminal     bool   `json:"terminal"`
	EndReason    string `json:"end_reason"`
	// Unfinished lists what the file leaves open if it ends here (a request
	// never answered), in the format's words.
	Unfinished []string `json:"unfinished"`
	// State is the format's derived state after the last line ("" when it
	// derives none).
	State string `json:"state,omitempty"`
	// Notes counts each of the format's own
	// annotations on the file's lines (its Annotations(): a Codelia
	// request_seq_gap, an OrbitMesh status_disagrees, …), by name; nil
	// when there is none.
	Notes map[string]int `json:"notes,omitempty"`

	SizeAlert bool `json:"size_alert"`

	// Details, at most MaxDetails each: corrupt interior lines and
	// schema-invalid lines.
	CorruptDetails       []LineIssue `json:"corrupt_details"`
	SchemaInvalidDetails []LineIssue `json:"schema_invalid_details"`

	// Problems are findings in plain words: unreadable files, over-long
	// lines, binary content, NUL bytes, lines the seed and the shipper
	// judge differently. At most MaxDetails, the last one saying how many
	// more there were.
	Problems []string `json:"problems"`
}

// Gap is a range of missing seqs, found before the line at Offset.
type Gap struct {
	From   int64 `json:"from"`
	To     int64 `json:"to"`
	Offset int64 `json:"offset"`
}

// Checkpoint is a line that saves a checkpoint. Step and Seq are -1 when the
// event does not carry them validly.
type Checkpoint struct {
	ID     string `json:"id"`
	Step   int64  `json:"step"`
	Seq    int64  `json:"seq"`
	Offset int64  `json:"offset"`
}

// ToolCall is a tool call without a result.
type ToolCall struct {
	InvocationID string `json:"invocation_id"`
	ToolName     string `json:"tool_name"`
	SideEffect   bool   `json:"side_effect"`
	Offset       int64  `json:"offset"`
}

// LineIssue is one bad line: its 1-based line number (counting every line,
// as the seed does), byte offset, the reason and an escaped preview.
type LineIssue struct {
	Line    int    `json:"line"`
	Offset  int64  `json:"offset"`
	Reason  string `json:"reason"`
	Preview string `json:"preview"`
}

// Level is a report's overall verdict.
type Level uint8

// Levels, in increasing gravity.
const (
	Clean Level = iota
	Warning
	Corrupt
)

var levelNames = [...]string{"clean", "warning", "corrupt"}

// String returns "clean", "warning" or "corrupt".
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "unknown"
}

// MarshalText renders the level as its name, for JSON.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Level is Warning for an empty file; Corrupt when the file is unreadable
// or not usable for recovery
// (its corruption ratio is over the threshold the report was made with);
// Warning for a truncated tail, any corrupt or schema-invalid line, seq
// gaps, duplicates or regressions, a session or run not over, a request
// left open, a format's own annotation, a size alert or any problem;
// Clean otherwise.
func (r Report) Level() Level {
	switch {
	case r.Empty:
		return Warning
	case r.Severity == SeverityUnreadable || !r.UsableForRecovery:
		return Corrupt
	case r.TailTruncated, r.CorruptLines > 0, r.SchemaInvalidLines > 0,
		r.SeqGapCount > 0, len(r.SeqGaps) > 0, r.MissingSeqs > 0,
		r.DuplicateSeqs > 0, r.Regressions > 0,
		!r.SessionEnded, len(r.Unfinished) > 0, len(r.Notes) > 0, r.SizeAlert, len(r.Problems) > 0:
		return Warning
	}
	return Clean
}
