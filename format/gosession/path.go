package gosession

import (
	"os"
	"path/filepath"

	"github.com/journalship/journalship/format"
)

// The names inside a session directory (docs/formats/go-session.md,
// Layout).
const (
	MessagesFile   = "messages.jsonl"
	TranscriptFile = "transcript.jsonl"
	MetadataFile   = "metadata.json"
	CheckpointsDir = "checkpoints"
	ManifestFile   = "manifest.json"
)

// Journal is which of a session's two journals a file is.
type Journal uint8

// The journals.
const (
	NotAJournal Journal = iota // neither (or not in a session directory)
	Messages                   // <session dir>/messages.jsonl
	Transcript                 // <session dir>/transcript.jsonl
)

// String returns the journal's file name ("" for NotAJournal).
func (j Journal) String() string {
	switch j {
	case Messages:
		return MessagesFile
	case Transcript:
		return TranscriptFile
	}
	return ""
}

// JournalOf tells which journal path is: a file named exactly
// messages.jsonl or transcript.jsonl directly in a directory with a name
// (the session id). Nothing else is one: not metadata.json, not the
// *.lock files, nothing under checkpoints/.
func JournalOf(path string) Journal {
	if path == "" || os.IsPathSeparator(path[len(path)-1]) {
		return NotAJournal
	}
	var j Journal
	switch filepath.Base(path) {
	case MessagesFile:
		j = Messages
	case TranscriptFile:
		j = Transcript
	default:
		return NotAJournal
	}
	switch id := filepath.Base(filepath.Dir(path)); {
	case id == "" || id == "." || id == ".." || id == string(filepath.Separator):
		return NotAJournal
	case filepath.Base(filepath.Dir(filepath.Dir(path))) == CheckpointsDir:
		return NotAJournal // checkpoints/<id>/ holds no journal
	}
	return j
}

// SessionDir returns the session directory of a journal path (its parent
// directory).
func SessionDir(journalPath string) string { return filepath.Dir(journalPath) }

// Claim implements format.Format: <base>/<session id>/messages.jsonl and
// <base>/<session id>/transcript.jsonl (see JournalOf). The session id is
// the directory's name. messages.jsonl is the session's main journal: it
// is the Group of both journals, and the directory around it is its
// SessionDir, which retention deletes whole (metadata.json, checkpoints/
// and the lock files included) with it, once transcript.jsonl is in Loki
// too. Claude Code's transcripts (<project>/<uuid>.jsonl,
// <uuid>/subagents/agent-<x>.jsonl) are never claimed.
func (*Format) Claim(path string) (format.Path, bool) {
	if JournalOf(path) == NotAJournal {
		return format.Path{}, false
	}
	dir := SessionDir(path)
	return format.Path{Format: Name, SessionID: filepath.Base(dir), Group: filepath.Join(dir, MessagesFile)}, true
}

// SessionDir implements format.SessionDir: the directory of a
// messages.jsonl is its session's; a transcript.jsonl is a member.
func (f *Format) SessionDir(path string) (dir string, ok bool) {
	if JournalOf(path) != Messages {
		return "", false
	}
	return SessionDir(path), true
}
