package pipeline

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClaimKeepsLinesOfAReplacedFile: a chunk of file A, retried after A
// was replaced under the same name by B (whose lines are in the ledger
// already), is not dropped against B's ranges: every line of A is sent.
func TestClaimKeepsLinesOfAReplacedFile(t *testing.T) {
	_, path, dataA := journalAt(t)
	recsA := tailRecords(path, dataA, testNow)
	for i := range recsA {
		recsA[i].Line = bytes.Clone(recsA[i].Line)
	}
	require.NoError(t, os.Remove(path))
	dataB := append([]byte(`{"type":"SESSION_START","other":1}`+"\n"), dataA...)
	require.NoError(t, os.WriteFile(path, dataB, 0o644))
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, dataB, testNow), "t")
	require.NoError(t, err)
	before := len(e.cap.entries())
	res, err := e.pipe.Ship(context.Background(), recsA, "t") // A's chunk, retried
	require.NoError(t, err)
	assert.Zero(t, res.AlreadyShipped)
	assert.Equal(t, len(recsA), len(e.cap.entries())-before, "every line of A reaches Loki")

	res, err = e.pipe.Ship(context.Background(), tailRecords(path, dataB, testNow), "t")
	require.NoError(t, err)
	assert.Equal(t, res.Lines, res.AlreadyShipped, "B's own lines, delivered again, are not sent twice")
}

// TestCutLineIsAlwaysDeadLettered: a line read only in part (the CLI's
// reader keeps the first 4 KiB of a line over 16 MiB) is dead-lettered
// even when Max_Line_Bytes would take its full size: its prefix is never
// shipped as if it were the line.
func TestCutLineIsAlwaysDeadLettered(t *testing.T) {
	_, path, _ := journalAt(t)
	data := append(bytes.Repeat([]byte("x"), 17<<20), '\n')
	require.NoError(t, os.WriteFile(path, data, 0o644))
	e := newEnv(t, func(c *Config) { c.MaxLineBytes = 32 << 20 })
	rec := tailRecords(path, data, testNow)[0]
	rec.Line, rec.Cut = rec.Line[:4096], int64(len(data)-1)
	res, err := e.pipe.Ship(context.Background(), []chunk.Record{rec}, "t")
	require.NoError(t, err)
	assert.Empty(t, e.cap.entries(), "the prefix is not shipped")
	assert.Equal(t, 1, res.DeadLettered)
	dl := e.deadLetters(t)
	require.Len(t, dl, 1)
	assert.Contains(t, dl[0], "line of 17825792 bytes, too long to read whole")
	st, err := e.ledger.File(context.Background(), path)
	require.NoError(t, err)
	assert.Equal(t, int64(len(data)), st.Watermark, "accounted for: in the dead-letter file")
}

// unreadable is a ledger whose read of a flush's files fails.
type unreadable struct{ *ledger.Ledger }

func (unreadable) FilesOf(context.Context, []string) (map[string]ledger.FileState, error) {
	return nil, errors.New("disk read failed")
}

// TestClaimReadFailureSendsNothing: when the ledger cannot tell what a
// flush's files hold already, the flush is handed back before anything
// is sent (sending could repeat lines Loki has), and its locks are let go.
func TestClaimReadFailureSendsNothing(t *testing.T) {
	e := newEnv(t, nil)
	_, path, data := journalAt(t)
	p, _ := pipeOn(t, e.cap.srv.URL, 2*time.Second, unreadable{e.ledger}, nil, nil, nil)
	_, err := p.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	var re *RetryError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "ledger", re.Cause)
	assert.ErrorContains(t, err, "disk read failed")
	assert.Empty(t, e.cap.entries())
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, unlock, err := e.ledger.LockFile(ctx, path)
	require.NoError(t, err, "the file's lock was released")
	unlock()
}

// TestFileReplacedDuringPush: the lines of a file already in the ledger
// are recorded under the identity claim read, that of the file they came
// from, even when the path names another file by the time Loki answers;
// the new file's lines are then never dropped against them, and its
// first flush retires them.
func TestFileReplacedDuringPush(t *testing.T) {
	_, path, dataA := journalAt(t)
	recsA := tailRecords(path, dataA, testNow)
	for i := range recsA {
		recsA[i].Line = bytes.Clone(recsA[i].Line)
	}
	idA, err := journalfile.IdentityOf(path)
	require.NoError(t, err)
	e := newEnv(t, nil)
	half := len(recsA) / 2
	_, err = e.pipe.Ship(context.Background(), recsA[:half], "t")
	require.NoError(t, err)

	dataB := append([]byte(`{"type":"SESSION_START","other":1}`+"\n"), dataA...)
	replaced := false
	e.cap.mu.Lock()
	e.cap.statusFor = func(int) int { // while the rest of A is pushed
		if !replaced {
			replaced = true
			assert.NoError(t, os.WriteFile(path+".b", dataB, 0o644))
			assert.NoError(t, os.Rename(path+".b", path))
		}
		return http.StatusNoContent
	}
	e.cap.mu.Unlock()
	_, err = e.pipe.Ship(context.Background(), recsA[half:], "t")
	require.NoError(t, err)
	st, err := e.ledger.File(context.Background(), path)
	require.NoError(t, err)
	assert.Equal(t, idA, st.Identity, "A's lines are recorded as A's")

	before := len(e.cap.entries())
	recsB := tailRecords(path, dataB, testNow)
	res, err := e.pipe.Ship(context.Background(), recsB, "t")
	require.NoError(t, err)
	assert.Zero(t, res.AlreadyShipped, "none of B's lines is taken for A's")
	assert.Len(t, e.cap.entries()[before:], len(recsB))
	st, err = e.ledger.File(context.Background(), path)
	require.NoError(t, err)
	assert.NotEqual(t, idA, st.Identity, "B's now")
	assert.Equal(t, int64(len(dataB)), st.Watermark, "B's ranges only: A's were retired")
}
