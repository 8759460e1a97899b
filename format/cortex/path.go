package cortex

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
)

// pathInfo is what a session buffer's path says about it.
type pathInfo struct {
	// OK is true when the path follows
	// <root>/<job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl.
	OK bool
	// Problem says why the path does not match, when !OK.
	Problem      string
	JobID        string
	SessionStart time.Time
	Pod          string
}

const sessionTimeLayout = "20060102T150405Z"

// parsePath reads the job id, session start time and pod from a journal
// path. Whatever parts it can read are filled in even when the path does
// not match as a whole.
func parsePath(path string) pathInfo {
	var pi pathInfo
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	if uuid.Validate(dir) == nil && len(dir) == 36 {
		pi.JobID = dir
	}
	name, ok := strings.CutSuffix(base, ".jsonl")
	if !ok {
		pi.Problem = "file name does not end in .jsonl"
		return pi
	}
	rest, ok := strings.CutPrefix(name, "session_")
	if !ok {
		pi.Problem = "file name does not start with session_"
		return pi
	}
	ts, pod, ok := strings.Cut(rest, "_")
	if !ok || pod == "" {
		pi.Problem = "file name has no _<pod> part"
		return pi
	}
	// time.Parse would also take fractional seconds after the seconds
	// field; the seed's compact form has exactly 16 characters.
	t, err := time.Parse(sessionTimeLayout, ts)
	if err != nil || len(ts) != len(sessionTimeLayout) {
		pi.Problem = "session time is not YYYYMMDDTHHMMSSZ"
		return pi
	}
	pi.SessionStart, pi.Pod = t, pod
	if pi.JobID == "" {
		pi.Problem = "parent directory is not a job uuid"
		return pi
	}
	pi.OK = true
	return pi
}
