package orbitmesh

import (
	"path/filepath"
	"strings"

	"github.com/journalship/journalship/format"
)

// Suffix ends the name of every session log.
const Suffix = ".messages.jsonl"

// The companion files' suffixes, after the session id.
const (
	SnapshotSuffix = ".json"
	TokensSuffix   = ".tokens.json"
)

// Claim implements format.Format: any file whose name ends in
// .messages.jsonl; the part before is the session id. The Group is the log
// itself: retention deletes its Companions with it
// (docs/formats/orbitmesh.md, Layout). Snapshots are never claimed.
func (*Format) Claim(path string) (format.Path, bool) {
	id, ok := sessionID(path)
	if !ok {
		return format.Path{}, false
	}
	p := format.Path{Format: Name, SessionID: id, Group: path, Companions: Companions(path)}
	switch {
	case id == "":
		p.Problem = "file name has no session id before .messages.jsonl"
	case !plainID(id):
		p.Problem = "file name's session id " + id + " names a directory, not a session"
	case filepath.Base(filepath.Dir(path)) != "sessions":
		p.Problem = "parent directory is not sessions"
	}
	return p, true
}

// sessionID returns the session id a log's name holds, and whether the
// name is a log's at all.
func sessionID(path string) (string, bool) {
	return strings.CutSuffix(filepath.Base(path), Suffix)
}

// plainID tells whether a session id can name the session's files: not
// empty, and not "." or "..", which in attempts/<id> would name the
// attempts directory or the sessions directory itself.
func plainID(id string) bool { return id != "" && id != "." && id != ".." }

// Companions returns the snapshot and token index of the session log at
// path (<dir>/<id>.json, <dir>/<id>.tokens.json), which retention deletes
// together with the log; nil when path is not a session log.
func Companions(path string) []string {
	id, ok := sessionID(path)
	if !ok || !plainID(id) {
		return nil
	}
	dir := filepath.Dir(path)
	return []string{filepath.Join(dir, id+SnapshotSuffix), filepath.Join(dir, id+TokensSuffix)}
}
