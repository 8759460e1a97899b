package audit

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/gosession"
	"github.com/journalship/journalship/internal/sample/kinds"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeneratedCorporaMatchTheirTruth audits each format's
// generated corpus (every fault scenario, snapshots beside the logs) and
// checks every report against what the generator wrote: the format,
// line counts, torn and cut-off tails, schema-invalid lines, seq faults,
// how the run ended and the derived state.
func TestGeneratedCorporaMatchTheirTruth(t *testing.T) {
	for _, k := range kinds.All() {
		name := k.Format
		t.Run(name, func(t *testing.T) {
			c, err := k.Fixture()
			require.NoError(t, err)
			root := filepath.Join(t.TempDir(), name)
			require.NoError(t, c.WriteTo(root))
			reports := map[string]Report{}
			_, err = Tree([]string{root}, DefaultConfig(), func(r Report) { reports[r.Path] = r })
			require.NoError(t, err)
			require.Len(t, reports, len(c.Files), "snapshots are not journals")
			for _, f := range c.Files {
				r, ok := reports[filepath.Join(root, f.Rel)]
				require.True(t, ok, f.Rel)
				t.Run(filepath.Base(f.Rel), func(t *testing.T) { checkRunTruth(t, f, r) })
			}
		})
	}
}

// checkRunTruth compares a report with a file's truth.
func checkRunTruth(t *testing.T, f sample.File, r Report) {
	t.Helper()
	assert.Equal(t, f.Format, r.Format)
	if first := f.Lines[0]; first.Type != "header" && f.Format == "codelia" {
		assert.Equal(t, "path-unconfirmed", r.DetectedBy, "no header to confirm the path")
	} else {
		assert.Equal(t, "path", r.DetectedBy)
	}
	own := registry.Lookup(f.Format).Annotations()
	corrupt, schemaInvalid, seqFaults := 0, 0, 0
	notes := map[string]int{}
	state := ""
	for _, l := range f.Lines {
		if l.Corrupt {
			corrupt++
		} else {
			state = l.State
		}
		for _, e := range l.Expect {
			kind, _, _ := strings.Cut(e, ":")
			switch {
			case kind == "schema_invalid":
				schemaInvalid++
			case slices.Contains(own, kind):
				notes[kind]++
			case kind == "seq_gap", kind == "seq_repeat", kind == "seq_regression":
				seqFaults++ // the shared seq rule (OrbitMesh)
			}
		}
	}
	if len(notes) == 0 {
		notes = nil
	}
	total := len(f.Lines)
	switch {
	case len(f.PartialTail) > 0:
		total++
		assert.True(t, r.TailTruncated, "cut-off tail")
		assert.Equal(t, len(f.PartialTail), r.TailBytes)
	case len(f.Lines) > 0 && f.Lines[len(f.Lines)-1].Corrupt:
		corrupt--
		assert.True(t, r.TailTruncated, "torn last line")
	default:
		assert.False(t, r.TailTruncated)
	}
	assert.Equal(t, total, r.TotalLines, "total")
	assert.Equal(t, corrupt, r.CorruptLines, "corrupt")
	assert.Equal(t, schemaInvalid, r.SchemaInvalidLines, "schema invalid")
	assert.Equal(t, seqFaults, r.SeqGapCount+r.DuplicateSeqs+r.Regressions, "seq faults")
	assert.Equal(t, notes, r.Notes, "the format's own annotations")
	assert.Equal(t, f.EndReason, r.EndReason, "end reason")
	if registry.EndOf(f.Format) == format.EndQuiet {
		// No end record: over when idle (for good once quiet).
		assert.Equal(t, state == "idle", r.SessionEnded, "over")
	} else {
		assert.Equal(t, f.EndReason != "", r.SessionEnded, "over")
	}
	if f.Format == gosession.FormatName && f.EndReason != "" && state != "" {
		state = gosession.StateIdle // the state now: idle once the run ended, whatever its last message
	}
	if state == "waiting" && f.Format == "orbitmesh" {
		// The truth states a line's status at its ts; verify judges the
		// file now, long past the fixture's wait deadlines.
		state = "interrupted_waiting"
	}
	assert.Equal(t, state, r.State, "derived state after the last line")
	assert.Equal(t, int64(len(f.Data)), r.Size)
	assert.False(t, slices.ContainsFunc(r.Problems, func(p string) bool { return strings.Contains(p, "judge") }), "%v", r.Problems)
}
