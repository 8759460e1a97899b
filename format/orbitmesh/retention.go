package orbitmesh

import (
	"os"
	"path/filepath"
	"time"
)

// Beside implements format.OwnsBeside: with a deleted log go the files of
// its attempts directory (the directory too, once empty) and the resume
// tokens that name the session and are consumed or revoked, or expired
// at now. A token still active stays: the runtime may yet be asked to resume
// with it. The session document is one of the log's Companions.
func (*Format) Beside(path string, now time.Time) (files, dirs []string) {
	id, ok := sessionID(path)
	if !ok || !plainID(id) {
		return nil, nil
	}
	dir := filepath.Dir(path)
	adir := filepath.Join(dir, AttemptsDir, id)
	// Only a directory of its own: a symlink there could list another
	// session's files, or the sessions directory itself.
	info, err := os.Lstat(adir)
	own := err == nil && info.IsDir()
	if own {
		files = regularIn(adir)
	}
	for _, t := range readTokens(dir, id) {
		if t.done(now) {
			files = append(files, filepath.Join(dir, ResumeTokensDir, t.ID+".json"))
		}
	}
	if !own {
		return files, nil
	}
	return files, []string{adir}
}

// done tells whether the token can no longer resume anything at now: the
// runtime wrote it consumed or revoked (whenever that was), or it expired.
func (rt *ResumeToken) done(now time.Time) bool {
	return !rt.Consumed.IsZero() || !rt.Revoked.IsZero() || !rt.Expires.IsZero() && !now.Before(rt.Expires)
}

// regularIn lists the regular files directly in dir (none when it cannot
// be read).
func regularIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
