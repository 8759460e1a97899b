package codex

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// The Path.Problem of claimed paths that are not quite the layout.
const (
	problemNameTime = "file name's time is not a valid time"
	problemDateDirs = "date directories YYYY/MM/DD do not match the file name's date"
)

// namePrefix starts every rollout's name; nameTime is the layout of the
// time after it (local time, as Codex names its files).
const (
	namePrefix = "rollout-"
	nameTime   = "2006-01-02T15-04-05"
)

// Claim implements format.Format, from the path alone: a file
// rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl anywhere (SessionID: the uuid,
// Started: the name's time, read in the node's local time zone as Codex
// writes it). A name whose time is no valid time is claimed with
// Path.Problem set, and so is a file in dated directories YYYY/MM/DD
// that are not the name's date. Other names are not claimed: a rollout
// copied under another name is found by its content.
func (*Format) Claim(path string) (format.Path, bool) {
	parts := strings.Split(filepath.ToSlash(path), "/")
	n := len(parts)
	ts, id, ok := parseName(parts[n-1])
	if !ok {
		return format.Path{}, false
	}
	p := format.Path{Format: Name, SessionID: id, Group: path}
	t, err := time.ParseInLocation(nameTime, ts, time.Local)
	if err != nil {
		p.Problem = problemNameTime
		return p, true
	}
	p.Started = t
	if n >= 4 && isDigits(parts[n-4], 4) && isDigits(parts[n-3], 2) && isDigits(parts[n-2], 2) &&
		parts[n-4]+"-"+parts[n-3]+"-"+parts[n-2] != ts[:10] {
		p.Problem = problemDateDirs
	}
	return p, true
}

// parseName splits a rollout's file name into its time and its uuid.
func parseName(base string) (ts, id string, ok bool) {
	stem, ok := strings.CutSuffix(base, ".jsonl")
	if !ok {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(stem, namePrefix)
	if !ok || len(rest) != len(nameTime)+1+36 || rest[len(nameTime)] != '-' {
		return "", "", false
	}
	ts, id = rest[:len(nameTime)], rest[len(nameTime)+1:]
	if !integrity.IsUUID([]byte(id)) || !timeShaped(ts) {
		return "", "", false
	}
	return ts, strings.ToLower(id), true
}

// timeShaped tells whether s has the shape of nameTime: digits where it
// has digits, its separators elsewhere.
func timeShaped(s string) bool {
	for i := range len(nameTime) {
		if d := nameTime[i] >= '0' && nameTime[i] <= '9'; d != (s[i] >= '0' && s[i] <= '9') || !d && s[i] != nameTime[i] {
			return false
		}
	}
	return true
}

func isDigits(s string, width int) bool {
	if len(s) != width {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// refusedNames are files in a Codex home that are never rollouts: the
// prompt history and the thread-name index.
var refusedNames = []string{"history.jsonl", "session_index.jsonl"}

// Refuses implements format.Refuser: Codex's prompt history and its
// thread-name index, whatever their first line.
func (*Format) Refuses(path string) bool {
	base := filepath.Base(filepath.ToSlash(path))
	for _, r := range refusedNames {
		if base == r {
			return true
		}
	}
	return false
}
