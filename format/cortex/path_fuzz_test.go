package cortex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// FuzzParsePath feeds arbitrary paths to parsePath. Its seed corpus is in
// testdata/fuzz/FuzzParsePath (the seed's example path and odd ones: unicode,
// empty parts, very long names, "session__.jsonl", a trailing slash, ...).
//
// Properties:
//   - it never panics;
//   - OK means no Problem, a JobID that is a 36-character uuid and the
//     path's parent directory, a non-empty pod, and a file name rebuilt
//     exactly from the parts: session_<SessionStart as YYYYMMDDTHHMMSSZ>_<Pod>.jsonl
//     (so the session time formats back to the file's timestamp);
//   - !OK means a non-empty Problem;
//   - a JobID, when set, is always the parent directory and a uuid.
func FuzzParsePath(f *testing.F) {
	f.Add("/data/sessions/01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789/session_20260223T143022Z_agent-worker-7b9f4-xk2n3.jsonl")
	f.Fuzz(func(t *testing.T, path string) {
		pi := parsePath(path)
		checkJobID(t, path, pi)
		if !pi.OK {
			if pi.Problem == "" {
				t.Fatalf("parsePath(%q) = %+v: not OK without a Problem", path, pi)
			}
			return
		}
		checkOK(t, path, pi)
	})
}

// checkJobID: a JobID, OK or not, is the 36-character uuid naming the
// path's parent directory.
func checkJobID(t *testing.T, path string, pi pathInfo) {
	t.Helper()
	if pi.JobID == "" {
		return
	}
	if len(pi.JobID) != 36 {
		t.Fatalf("parsePath(%q): JobID %q is not 36 characters", path, pi.JobID)
	}
	if _, err := uuid.Parse(pi.JobID); err != nil {
		t.Fatalf("parsePath(%q): JobID %q is not a uuid: %v", path, pi.JobID, err)
	}
	if dir := filepath.Base(filepath.Dir(path)); dir != pi.JobID {
		t.Fatalf("parsePath(%q): JobID %q is not the parent directory %q", path, pi.JobID, dir)
	}
}

func checkOK(t *testing.T, path string, pi pathInfo) {
	t.Helper()
	if pi.Problem != "" {
		t.Fatalf("parsePath(%q) = %+v: OK with a Problem", path, pi)
	}
	if pi.JobID == "" {
		t.Fatalf("parsePath(%q) = %+v: OK without a JobID", path, pi)
	}
	if pi.Pod == "" {
		t.Fatalf("parsePath(%q) = %+v: OK with an empty pod", path, pi)
	}
	if strings.Contains(pi.Pod, "/") {
		t.Fatalf("parsePath(%q): pod %q holds a path separator", path, pi.Pod)
	}
	if pi.SessionStart.IsZero() || pi.SessionStart.Location().String() != "UTC" {
		t.Fatalf("parsePath(%q): session start %v is not a UTC time", path, pi.SessionStart)
	}
	want := "session_" + pi.SessionStart.Format(sessionTimeLayout) + "_" + pi.Pod + ".jsonl"
	if base := filepath.Base(path); base != want {
		t.Fatalf("parsePath(%q) = %+v: OK, but its parts rebuild the file name %q, not %q (the session time does not format back to the file's timestamp)",
			path, pi, want, base)
	}
}
