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
	// markCost is the cumulative total_cost_usd counted so far (metadata in
	// the spec's shape only): the last summary's, or a fork's baseline
	// read before its first run ended.
	markCost = "cost"
	// markRun prefixes the key of a run whose summary shipped, for
	// metadata in Goat's shape (Metadata.PerRun): the run's created_at,
	// which each run's Create writes and its end keeps.
	markRun = "run:"
	// markSummary prefixes the key of a summary shipped for metadata in the
	// spec's shape (its updated_at, else its modification time), and of a
	// run whose metadata has no created_at.
	markSummary = "summary:"
	// markCheckpoint prefixes the key of a checkpoint shipped: its
	// directory's name and its created_at (Goat rewrites one directory,
	// session-end, at every run's end).
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
// cost).
//
// The summary is due when metadata.json has an exit_reason, the marks show
// no summary of the run it describes (runKey), and over() (the
// finalizer's reading of the whole session) says the run ended after its
// last message; a metadata.json that cannot be read now (rewritten in
// place) yields none until a later pass reads it whole. In the spec's
// shape a fork's metadata read before its first run ended sets its cost
// baseline (the source's cost, already counted under the source).
func (f *Format) SideRecords(path string, over func() bool, marks format.Marks) ([]format.SideRecord, format.Marks) {
	if JournalOf(path) != Messages {
		return nil, nil
	}
	dir := SessionDir(path)
	recs, next := f.checkpoints(dir, marks)
	m, ok := ReadMetadata(dir, f.cfg.MaxMetadataBytes)
	switch {
	case !ok:
	case m.ExitReason != "" && !shipped(m, marks) && over():
		recs = append(recs, f.summary(dir, m, marks))
		next[runKey(m)] = "1"
		if !m.PerRun && m.HasTotalCost {
			next[markCost] = strconv.FormatFloat(m.TotalCostUSD, 'g', -1, 64)
		}
	case !m.PerRun && forkBaseline(m, marks):
		next[markCost] = strconv.FormatFloat(m.TotalCostUSD, 'g', -1, 64)
	}
	return recs, next
}

// runKey names the run m describes, as the marks keep it: for Goat's
// per-run metadata its created_at (every run's Create writes a new one;
// the end of the run, and any later rewrite of the same run, keeps it),
// else its updated_at (else the file's modification time).
func runKey(m Metadata) string {
	if m.PerRun && m.HasCreatedAt {
		return markRun + m.CreatedAt.UTC().Format(time.RFC3339Nano)
	}
	return markSummary + summaryKey(m)
}

// shipped tells whether the marks show the summary of the run m
// describes: by its key, or by its updated_at (the key a summary of the
// same run shipped under before runs were keyed by their start).
func shipped(m Metadata, marks format.Marks) bool {
	return marks[runKey(m)] != "" || marks[markSummary+summaryKey(m)] != ""
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
		key := checkpointKey(cp)
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

// checkpointKey names a checkpoint in the marks: its directory and, when
// the manifest has one, its created_at. Goat writes every run's
// checkpoint to the same directory (session-end), rewriting the manifest:
// each rewrite is a checkpoint of its own.
func checkpointKey(cp Checkpoint) string {
	key := markCheckpoint + filepath.Base(filepath.Dir(cp.Manifest))
	if cp.HasTime {
		key += "@" + cp.Time.UTC().Format(time.RFC3339Nano)
	}
	return key
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
	MessageCount *int64   `json:"message_count,omitempty"`
	TotalCostUSD *float64 `json:"total_cost_usd"`
	CostUSD      *float64 `json:"cost_usd"`
	Model        string   `json:"model,omitempty"`
	AgentName    string   `json:"agent_name,omitempty"`
	Cwd          string   `json:"cwd,omitempty"`
	Parent       string   `json:"parent_session_id,omitempty"`
	SubagentOf   string   `json:"subagent_of,omitempty"`
	CreatedAt    string   `json:"created_at,omitempty"`
	UpdatedAt    string   `json:"updated_at,omitempty"`
}

// summary builds the summary entry of the run m describes, for the
// session directory dir.
func (f *Format) summary(dir string, m Metadata, marks format.Marks) format.SideRecord {
	sessionID := filepath.Base(dir)
	e := summaryEntry{SessionID: sessionID, ExitReason: m.ExitReason, Model: m.Model, AgentName: m.AgentName, Cwd: m.Cwd,
		Parent: m.ParentSessionID, CreatedAt: stamp(m.CreatedAt, m.HasCreatedAt), UpdatedAt: stamp(m.UpdatedAt, m.HasUpdatedAt)}
	rec := format.SideRecord{EventType: TypeMetadata, Role: format.RoleSessionEnd, Time: summaryTime(m),
		Model: m.Model, EndReason: m.ExitReason}
	if m.HasTurnCount {
		e.TurnCount = &m.TurnCount
	}
	if m.HasMessageCount {
		e.MessageCount = &m.MessageCount
	}
	if m.IDMismatch(sessionID) {
		e.MetadataID = m.SessionID
		rec.Annotations = append(rec.Annotations, NoteMetadataIDMismatch)
	}
	if m.HasTotalCost {
		var cost float64
		var note string
		if m.PerRun {
			cost, e.SubagentOf, note = f.runCost(dir, m)
		} else {
			cost, note = growth(m, marks)
		}
		e.TotalCostUSD, e.CostUSD = &m.TotalCostUSD, &cost
		rec.CostUSD, rec.HasCost = cost, true
		rec.ReportedCostUSD, rec.HasReported = m.TotalCostUSD, true
		if note != "" {
			rec.Annotations = append(rec.Annotations, note)
		}
	}
	rec.Line, _ = json.Marshal(e)
	return rec
}

// runCost is the cost a run of Goat's per-run metadata adds: its
// total_cost_usd, except for a subagent's run (a sibling session's tool
// message names it: ParentOf), whose figure is its parent run's shared
// cost tracker and is counted in the parent's summary: 0, with the parent
// and NoteCostInParent.
func (f *Format) runCost(dir string, m Metadata) (cost float64, parent, note string) {
	since := m.CreatedAt
	if !m.HasCreatedAt {
		since = time.Time{}
	}
	if parent = ParentOf(dir, since, f.cfg.MaxParentScanBytes); parent != "" {
		return 0, parent, NoteCostInParent
	}
	return m.TotalCostUSD, "", ""
}

// growth is the cost a run of the spec's cumulative metadata adds: the
// total_cost_usd less what was counted before (the previous summary's
// total, or a fork's baseline). A total below what was counted means the
// metadata started over (the session directory replaced): the whole total
// is new. The note is NoteCostIncludesParent on a fork's first summary
// with no baseline, whose total includes its source's cost.
func growth(m Metadata, marks format.Marks) (delta float64, note string) {
	prev, err := strconv.ParseFloat(marks[markCost], 64)
	if err != nil {
		if m.ParentSessionID != "" && m.TotalCostUSD > 0 {
			note = NoteCostIncludesParent
		}
		return m.TotalCostUSD, note
	}
	if m.TotalCostUSD < prev {
		return m.TotalCostUSD, ""
	}
	return m.TotalCostUSD - prev, ""
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
