package gosession

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/journalship/journalship/integrity"
)

// Metadata is what a session's metadata.json says (docs/formats/
// go-session.md, metadata.json). The runtime rewrites the file in place
// without a lock, so it is read defensively: a file absent, not regular,
// larger than the bound, empty, half-written, not one JSON object or
// followed by anything but whitespace is unknown (Read false, every field
// zero); a field of the wrong type is unknown on its own. A string field
// is "" when it is absent, empty or not a string; a number or time field
// is known only with its Has flag.
type Metadata struct {
	// Read: the file was one complete JSON object.
	Read bool

	SessionID       string // session_id, else id
	ParentSessionID string // parent_session_id, else parent_id (a fork's source)
	Model           string
	AgentName       string // agent_name
	Cwd             string
	// ExitReason is exit_reason: set when a run ended (end_turn,
	// max_turns, interrupted, …; any value passes), never cleared.
	ExitReason string

	// PerRun tells how the counts and the cost are meant (docs/formats/
	// go-session.md, metadata.json): true, as Goat's store writes the file
	// (the session named by id, or not named), they are the latest run's
	// own, the file rewritten by every run; false, in the spec's shape (the
	// session named by session_id and not by id), they are cumulative over
	// the session's runs.
	PerRun bool

	// TurnCount is turn_count, an integer >= 0: the run's (PerRun), else
	// the session's so far.
	TurnCount    int64
	HasTurnCount bool
	// MessageCount is message_count, an integer >= 0 (Goat: the messages
	// the run's loop held at its end, restored ones included).
	MessageCount    int64
	HasMessageCount bool
	// TotalCostUSD is total_cost_usd, a number >= 0: the run's cost
	// (PerRun; a subagent's is its parent run's shared tracker, see
	// Format.SideRecords), else cumulative over the session's runs (a fork
	// starts with its source's).
	TotalCostUSD float64
	HasTotalCost bool

	// CreatedAt and UpdatedAt are created_at and updated_at (RFC 3339; Go's
	// zero time, 0001-01-01T00:00:00Z, is unknown).
	CreatedAt    time.Time
	HasCreatedAt bool
	UpdatedAt    time.Time
	HasUpdatedAt bool

	// ModTime is the file's modification time when it was read.
	ModTime time.Time
}

// IDMismatch tells whether the metadata names a session other than
// sessionID (its directory's name): the finalizer annotates its summary
// NoteMetadataIDMismatch with m.SessionID.
func (m *Metadata) IDMismatch(sessionID string) bool {
	return m.SessionID != "" && m.SessionID != sessionID
}

// ReadMetadata reads <sessionDir>/metadata.json, at most maxBytes of it
// (DefaultMaxMetadataBytes when maxBytes < 1). It never fails: ok is false
// when the file is unknown, and the Metadata is then zero.
func ReadMetadata(sessionDir string, maxBytes int64) (m Metadata, ok bool) {
	b, mod, ok := readStable(filepath.Join(sessionDir, MetadataFile), maxBytes)
	if !ok {
		return Metadata{}, false
	}
	if m = ParseMetadata(b); !m.Read {
		return Metadata{}, false
	}
	m.ModTime = mod
	return m, true
}

var metaPaths = integrity.MustPaths("session_id", "id", "parent_session_id", "parent_id", "model",
	"agent_name", "cwd", "exit_reason", "turn_count", "total_cost_usd", "created_at", "updated_at",
	"message_count")

const (
	mSessionID = iota
	mID
	mParentSessionID
	mParentID
	mModel
	mAgentName
	mCwd
	mExitReason
	mTurnCount
	mTotalCost
	mCreatedAt
	mUpdatedAt
	mMessageCount
)

// ParseMetadata reads a metadata.json's content (without ModTime). Any
// bytes are accepted; what is not as expected is unknown. A key written
// twice counts by its first occurrence.
func ParseMetadata(b []byte) Metadata {
	var c integrity.Capture
	if c.Scan(b, metaPaths) != "" {
		return Metadata{}
	}
	m := Metadata{Read: true}
	_, spec := c.Str(mSessionID)
	m.PerRun = !spec || c.Has(mID)
	m.SessionID = str(&c, mSessionID, mID)
	m.ParentSessionID = str(&c, mParentSessionID, mParentID)
	m.Model = str(&c, mModel, -1)
	m.AgentName = str(&c, mAgentName, -1)
	m.Cwd = str(&c, mCwd, -1)
	m.ExitReason = str(&c, mExitReason, -1)
	if n, ok := c.Int(mTurnCount); ok && n >= 0 {
		m.TurnCount, m.HasTurnCount = n, true
	}
	if n, ok := c.Int(mMessageCount); ok && n >= 0 {
		m.MessageCount, m.HasMessageCount = n, true
	}
	if f, ok := c.Float(mTotalCost); ok && f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f) {
		m.TotalCostUSD, m.HasTotalCost = f, true
	}
	m.CreatedAt, m.HasCreatedAt = timeOf(&c, mCreatedAt)
	m.UpdatedAt, m.HasUpdatedAt = timeOf(&c, mUpdatedAt)
	return m
}

// str returns the non-empty string of id, else of alt (-1: none), else "".
func str(c *integrity.Capture, id, alt int) string {
	if s, ok := c.Str(id); ok && len(s) > 0 {
		return string(s)
	}
	if alt >= 0 {
		if s, ok := c.Str(alt); ok {
			return string(s)
		}
	}
	return ""
}

func timeOf(c *integrity.Capture, id int) (time.Time, bool) {
	t, ok := c.Time(id)
	if !ok || t.IsZero() {
		return time.Time{}, false
	}
	return t, true
}

// readStable returns a regular file's content and modification time, or
// ok false when it is absent, not a regular file, unreadable, larger than
// maxBytes (DefaultMaxMetadataBytes when < 1), or changed while it was
// read (the runtime truncates and rewrites in place).
func readStable(path string, maxBytes int64) (b []byte, mod time.Time, ok bool) {
	if maxBytes < 1 {
		maxBytes = DefaultMaxMetadataBytes
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxBytes {
		return nil, time.Time{}, false // a FIFO is never opened: it would block
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}, false
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil || !before.Mode().IsRegular() || before.Size() > maxBytes {
		return nil, time.Time{}, false
	}
	b, err = io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil || int64(len(b)) > maxBytes {
		return nil, time.Time{}, false
	}
	after, err := f.Stat()
	if err != nil || after.Size() != before.Size() || int64(len(b)) != after.Size() || !after.ModTime().Equal(before.ModTime()) {
		return nil, time.Time{}, false
	}
	return b, after.ModTime(), true
}

// tailWindows are the sizes of the end of messages.jsonl newestInTail
// reads, each tried when the one before held no complete line with a
// timestamp (a last message larger than it).
var tailWindows = [...]int64{64 << 10, 1 << 20, 16 << 20}

var tailPaths = integrity.MustPaths("timestamp")

// newestInTail returns the newest timestamp of the complete lines at the
// end of a messages.jsonl (a torn last line is left out), reading at most
// the largest of tailWindows.
func newestInTail(path string) (newest time.Time, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}, false
	}
	var c integrity.Capture
	for _, w := range tailWindows {
		off := max(fi.Size()-w, 0)
		buf := make([]byte, fi.Size()-off)
		n, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			return time.Time{}, false
		}
		buf = buf[:n]
		end := bytes.LastIndexByte(buf, '\n') // lines after it are torn
		for end > 0 {
			start := bytes.LastIndexByte(buf[:end], '\n') + 1
			if start == 0 && off > 0 {
				break // the window starts inside this line
			}
			if c.Scan(buf[start:end], tailPaths) == "" {
				if t, has := c.Time(0); has && (!ok || t.After(newest)) {
					newest, ok = t, true
				}
			}
			end = start - 1
		}
		if ok || off == 0 {
			return newest, ok
		}
	}
	return time.Time{}, false
}
