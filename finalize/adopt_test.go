package finalize

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/journalfile"
)

// TestRenamedJournalIsNotShippedAgain: a journal shipped under one name
// and renamed (Codex's archive, or a rename Fluent Bit's tail follows and
// reports the new name for the lines after it) is the same file: its
// lines shipped under the old name are not shipped again under the new
// one, the new name takes the ledger's ranges and the old one's row goes.
// (TestRules holds the other side: its journals, alike, are written
// after others were removed and often get their inodes back; none takes
// another's ranges.)
func TestRenamedJournalIsNotShippedAgain(t *testing.T) {
	e := newEnv(t)
	lines := []string{start, ev("LLM_REQUEST", 1, ""), ev("ERROR", 2, ""), ev("SESSION_END", 3, `"reason":"completed"`)}
	var data string
	var offsets []int64
	for _, l := range lines {
		offsets = append(offsets, int64(len(data)))
		data += l + "\n"
	}
	old := e.write(t, "session_20261121T100000Z_p1.jsonl", data, 0)
	var recs []chunk.Record
	for i := range 2 {
		recs = append(recs, chunk.Record{Time: time.Now(), Line: []byte(lines[i]), Path: []byte(old), Offset: offsets[i], HasOffset: true, Index: i})
	}
	res, err := e.inst.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	require.Equal(t, 2, res.Shipped)

	renamed := filepath.Join(e.root, "session_20261121T100000Z_p2.jsonl")
	require.NoError(t, os.Rename(old, renamed))
	// Tail follows the rename: the next line comes under the new name.
	res, err = e.inst.Ship(context.Background(), []chunk.Record{{Time: time.Now(), Line: []byte(lines[2]), Path: []byte(renamed), Offset: offsets[2], HasOffset: true}}, "t")
	require.NoError(t, err)
	require.Equal(t, 1, res.Shipped)
	mt := time.Now().Add(-20 * time.Minute)
	require.NoError(t, os.Chtimes(renamed, mt, mt))

	o, err := e.finalizer(t, nil, nil).File(context.Background(), renamed)
	require.NoError(t, err)
	if _, ok := journalfile.Born(renamed); !ok {
		// No birth time on this file system: a rename is not told from
		// a reused inode, and the lines ship again (a duplicate, no loss).
		assert.Empty(t, o.Adopted)
		assert.Equal(t, 2, o.HoleLines)
		return
	}
	assert.Equal(t, []string{old}, o.Adopted)
	assert.Zero(t, o.HoleLines, "the lines shipped under the old name are not a hole")
	assert.True(t, o.Finished)
	assert.Equal(t, 1, o.ShippedLines, "only the last line, never shipped")
	got := e.entries(t, 5)
	assert.Len(t, got, 5, "four lines once each, and the file summary")

	st, err := e.ledger.File(context.Background(), old)
	require.NoError(t, err)
	assert.Empty(t, st.Ranges, "the old name's row is gone")
}
