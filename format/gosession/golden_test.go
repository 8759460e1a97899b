package gosession

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenMTime is the modification time of every file of the golden
// sessions (a checkout sets them to now): after every message and
// metadata time in them.
var goldenMTime = time.Date(2026, 2, 9, 18, 0, 0, 0, time.UTC)

// TestGolden judges each session directory of testdata/sessions (copied
// to a temporary base, every file's modification time goldenMTime): its
// journals with the metadata.json beside them (Load), then its
// checkpoints, into testdata/<session>.golden (-update rewrites).
func TestGolden(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "sessions"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			dir := copySession(t, filepath.Join("testdata", "sessions", d.Name()))
			got := renderSession(t, dir)
			golden := filepath.Join("testdata", d.Name()+".golden")
			formattest.Golden(t, golden, got, *update, "run go test ./format/gosession -update")
		})
	}
}

// copySession copies a session directory to <tmp>/sessions/<name>, every
// file with the modification time goldenMTime.
func copySession(t *testing.T, src string) string {
	dst := filepath.Join(t.TempDir(), "sessions", filepath.Base(src))
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return err
		}
		return os.Chtimes(to, goldenMTime, goldenMTime)
	})
	require.NoError(t, err)
	return dst
}

func renderSession(t *testing.T, dir string) string {
	var b strings.Builder
	m, ok := ReadMetadata(dir, 0)
	fmt.Fprintf(&b, "metadata: %s\n", renderMetadata(m, ok))
	if m.IDMismatch(filepath.Base(dir)) {
		fmt.Fprintf(&b, "metadata: %s(%s)\n", NoteMetadataIDMismatch, m.SessionID)
	}
	for _, name := range []string{MessagesFile, TranscriptFile} {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		b.WriteString(renderJournal(t, path, data))
	}
	cps, err := Checkpoints(dir)
	require.NoError(t, err)
	for _, cp := range cps {
		rel, _ := filepath.Rel(dir, cp.Manifest)
		fmt.Fprintf(&b, "checkpoint id=%s time=%s files=%d manifest=%s\n", cp.ID, timeText(cp.Time, cp.HasTime), cp.Files, rel)
	}
	return b.String()
}

func renderMetadata(m Metadata, ok bool) string {
	if !ok {
		return "unknown"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session=%q parent=%q model=%q agent=%q cwd=%q exit_reason=%q", m.SessionID, m.ParentSessionID, m.Model, m.AgentName, m.Cwd, m.ExitReason)
	if m.HasTurnCount {
		fmt.Fprintf(&b, " turns=%d", m.TurnCount)
	}
	if m.HasTotalCost {
		fmt.Fprintf(&b, " cost=%g", m.TotalCostUSD)
	}
	fmt.Fprintf(&b, " created=%s updated=%s mtime=%s", timeText(m.CreatedAt, m.HasCreatedAt), timeText(m.UpdatedAt, m.HasUpdatedAt), timeText(m.ModTime, true))
	return b.String()
}

func timeText(t time.Time, ok bool) string {
	if !ok {
		return "-"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// renderJournal judges a journal's lines (a last one without its newline
// is the torn tail) into a state loaded from its path and renders each
// neutral event, then the state.
func renderJournal(t *testing.T, path string, data []byte) string {
	f := New()
	p, ok := f.Claim(path)
	require.True(t, ok)
	var b strings.Builder
	fmt.Fprintf(&b, "journal %s session=%s group=<session dir>/%s sniff=%t\n",
		filepath.Base(path), p.SessionID, filepath.Base(p.Group), f.Sniff(bytes.SplitN(data, []byte("\n"), 2)[0]))
	st := f.NewState(p)
	st.(format.SideFiles).Load(path)
	formattest.JudgeFile(&b, f.NewJudge(), st, data, formattest.Style{AlwaysTypeName: true, Cost: "reported_cost"})
	return b.String()
}
