package gosession

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/journalship/journalship/format"
)

// The marks the finalizer keeps for a session (format.Marks), by name.
const (
	// markCost is the cumulative total_cost_usd counted so far: the last
	// summary's, or a fork's baseline read before its first run ended.
	markCost = "cost"
	// markSummary prefixes the key of a summary shipped (its metadata's
	// updated_at, else its modification time).
	markSummary = "summary:"
	// markCheckpoint prefixes the directory name of a checkpoint shipped.
	markCheckpoint = "checkpoint:"
)

// EndWritten implements format.EndsBeside: metadata.json has an
// exit_reason (the messages may still show a later run).
func (f *Format) EndWritten(path string) bool {
	if JournalOf(path) == NotAJournal {
		return false
	}
	m, ok := ReadMetadata(SessionDir(path), f.cfg.MaxMetadataBytes)
	return ok && m.ExitReason != ""
}

// SideRecords implements format.SideRecords for a messages.jsonl: one
// checkpoint entry per manifest not shipped yet, and, when the session is
// over, one summary entry for the run metadata.json describes, unless
// shipped already (docs/formats/go-session.md, Checkpoints and Tokens and
// cost). A fork's metadata read before its first run ended sets its cost
// baseline (the source's cost, already counted under the source).
//
// The summary is due when metadata.json has an exit_reason, the marks show
// no summary of the run it describes, and over() (the finalizer's reading
// of the whole session) says the run ended after its last message; a
// metadata.json that cannot be read now (rewritten in place) yields none
// until a later pass reads it whole.
func (f *Format) SideRecords(path string, over func() bool, marks format.Marks) ([]format.SideRecord, format.Marks) {
	if JournalOf(path) != Messages {
		return nil, nil
	}
	dir := SessionDir(path)
	recs, next := f.checkpoints(dir, marks)
	m, ok := ReadMetadata(dir, f.cfg.MaxMetadataBytes)
	key := markSummary + summaryKey(m)
	switch {
	case !ok:
	case m.ExitReason != "" && marks[key] == "" && over():
		recs = append(recs, summary(filepath.Base(dir), m, marks))
		next[key] = "1"
		if m.HasTotalCost {
			next[markCost] = strconv.FormatFloat(m.TotalCostUSD, 'g', -1, 64)
		}
	case forkBaseline(m, marks):
		next[markCost] = strconv.FormatFloat(m.TotalCostUSD, 'g', -1, 64)
	}
	return recs, next
}

// forkBaseline tells whether m is a fork's metadata as Fork writes it,
// before its first run ended (created_at = updated_at, the source's cost
// copied), with no cost counted for the session yet.
func forkBaseline(m Metadata, marks format.Marks) bool {
	_, counted := marks[markCost]
	return !counted && m.ParentSessionID != "" && m.HasTotalCost && m.HasCreatedAt && m.HasUpdatedAt &&
		m.CreatedAt.Equal(m.UpdatedAt)
}

// checkpoints returns the entries of the manifests not shipped yet, and
// the marks that record them.
func (f *Format) checkpoints(dir string, marks format.Marks) ([]format.SideRecord, format.Marks) {
	next := format.Marks{}
	cps, _ := ReadCheckpoints(dir, f.cfg.MaxMetadataBytes) // an unlistable directory: tried again next pass
	var recs []format.SideRecord
	for _, cp := range cps {
		key := markCheckpoint + filepath.Base(filepath.Dir(cp.Manifest))
		if marks[key] != "" {
			continue
		}
		at := cp.Time
		if !cp.HasTime {
			fi, err := os.Stat(cp.Manifest)
			if err != nil {
				continue
			}
			at = fi.ModTime()
		}
		line, _ := json.Marshal(checkpointEntry{ID: cp.ID, CreatedAt: stamp(cp.Time, cp.HasTime), Files: cp.Files, Manifest: cp.Manifest})
		recs = append(recs, format.SideRecord{EventType: TypeCheckpoint, Role: format.RoleCheckpoint, Time: at, Line: line})
		next[key] = "1"
	}
	return recs, next
}

// checkpointEntry is the text of a checkpoint entry.
type checkpointEntry struct {
	ID        string `json:"checkpoint_id"`
	CreatedAt string `json:"created_at,omitempty"`
	Files     int    `json:"checkpoint_files"`
	Manifest  string `json:"manifest"`
}

// summaryEntry is the text of a summary entry: the metadata as read.
type summaryEntry struct {
	SessionID    string   `json:"session_id"`
	MetadataID   string   `json:"metadata_session_id,omitempty"` // when it is not the directory's
	ExitReason   string   `json:"exit_reason"`
	TurnCount    *int64   `json:"turn_count"`
	TotalCostUSD *float64 `json:"total_cost_usd"`
	CostUSD      *float64 `json:"cost_usd"`
	Model        string   `json:"model,omitempty"`
	AgentName    string   `json:"agent_name,omitempty"`
	Cwd          string   `json:"cwd,omitempty"`
	Parent       string   `json:"parent_session_id,omitempty"`
	CreatedAt    string   `json:"created_at,omitempty"`
	UpdatedAt    string   `json:"updated_at,omitempty"`
}

// summary builds the summary entry of the run m describes.
func summary(sessionID string, m Metadata, marks format.Marks) format.SideRecord {
	e := summaryEntry{SessionID: sessionID, ExitReason: m.ExitReason, Model: m.Model, AgentName: m.AgentName, Cwd: m.Cwd,
		Parent: m.ParentSessionID, CreatedAt: stamp(m.CreatedAt, m.HasCreatedAt), UpdatedAt: stamp(m.UpdatedAt, m.HasUpdatedAt)}
	rec := format.SideRecord{EventType: TypeMetadata, Role: format.RoleSessionEnd, Time: summaryTime(m),
		Model: m.Model, EndReason: m.ExitReason}
	if m.HasTurnCount {
		e.TurnCount = &m.TurnCount
	}
	if m.IDMismatch(sessionID) {
		e.MetadataID = m.SessionID
		rec.Annotations = append(rec.Annotations, NoteMetadataIDMismatch)
	}
	if m.HasTotalCost {
		delta, fromParent := growth(m, marks)
		e.TotalCostUSD, e.CostUSD = &m.TotalCostUSD, &delta
		rec.CostUSD, rec.HasCost = delta, true
		rec.ReportedCostUSD, rec.HasReported = m.TotalCostUSD, true
		if fromParent {
			rec.Annotations = append(rec.Annotations, NoteCostIncludesParent)
		}
	}
	rec.Line, _ = json.Marshal(e)
	return rec
}

// growth is the cost the run adds: the cumulative total_cost_usd less what
// was counted before (the previous summary's total, or a fork's
// baseline). A total below what was counted means the metadata started
// over (the session directory replaced): the whole total is new.
// fromParent: a fork's first summary with no baseline, whose total
// includes its source's cost.
func growth(m Metadata, marks format.Marks) (delta float64, fromParent bool) {
	prev, err := strconv.ParseFloat(marks[markCost], 64)
	if err != nil {
		return m.TotalCostUSD, m.ParentSessionID != "" && m.TotalCostUSD > 0
	}
	if m.TotalCostUSD < prev {
		return m.TotalCostUSD, false
	}
	return m.TotalCostUSD - prev, false
}

// summaryKey names the run m describes: its updated_at, else the file's
// modification time.
func summaryKey(m Metadata) string {
	return summaryTime(m).UTC().Format(time.RFC3339Nano)
}

func summaryTime(m Metadata) time.Time {
	if m.HasUpdatedAt {
		return m.UpdatedAt
	}
	return m.ModTime
}

func stamp(t time.Time, has bool) string {
	if !has {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}
