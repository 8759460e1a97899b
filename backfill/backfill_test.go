package backfill

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder ships into a real ledger (recording what it shipped) and fails
// the first `fail` calls with a retryable error.
type recorder struct {
	mu     sync.Mutex
	ledger *ledger.Ledger
	lines  map[string][]string // path -> lines in shipping order
	calls  int
	fail   int
	err    error
	onShip func([]chunk.Record) // sees every shipped call's records
}

func (r *recorder) Ship(ctx context.Context, recs []chunk.Record, _ string) (pipeline.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls <= r.fail {
		return pipeline.Result{}, &pipeline.RetryError{Cause: "server_error", Err: errors.New("503")}
	}
	if r.err != nil {
		return pipeline.Result{}, r.err
	}
	if r.onShip != nil {
		r.onShip(recs)
	}
	var segs []ledger.Segment
	for _, rec := range recs {
		r.lines[string(rec.Path)] = append(r.lines[string(rec.Path)], string(rec.Line))
		segs = append(segs, ledger.Segment{Path: string(rec.Path), Start: rec.Offset, End: rec.Offset + int64(len(rec.Line)) + 1, Lines: 1, FirstSeq: -1, LastSeq: -1})
	}
	if err := r.ledger.Record(ctx, segs); err != nil {
		return pipeline.Result{}, err
	}
	return pipeline.Result{Lines: len(recs), Shipped: len(recs)}, nil
}

func setup(t *testing.T) (*recorder, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := ledger.Open(ledger.Config{Path: filepath.Join(dir, "ledger.db")})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	root := filepath.Join(dir, "sessions")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "job-a"), 0o755))
	return &recorder{ledger: l, lines: map[string][]string{}}, root
}

func write(t *testing.T, path, data string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
}

func TestShipsCompleteLinesLikeTail(t *testing.T) {
	rec, root := setup(t)
	a := filepath.Join(root, "job-a", "s1.jsonl")
	write(t, a, "{\"seq\":0}\n\n{\"seq\":1}\r\n{\"seq\":2}\n{\"seq\":3,\"torn")
	write(t, filepath.Join(root, "job-a", "notes.txt"), "not a journal\n")
	var progress bytes.Buffer
	cfg := DefaultConfig()
	cfg.Progress, cfg.BatchLines = &progress, 2
	r, err := New(cfg, rec, rec.ledger)
	require.NoError(t, err)
	st, err := r.Run(context.Background(), root)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"seq":0}`, `{"seq":1}`, `{"seq":2}`}, rec.lines[a], "no empty line, no \\r, no partial tail")
	assert.Len(t, rec.lines, 1, "only *.jsonl files")
	assert.Equal(t, 1, st.Files)
	assert.Equal(t, 3, st.Shipped)
	assert.Equal(t, 1, st.PartialTails)
	assert.Contains(t, progress.String(), "done: 1/1 files, 3 lines")
}

func TestSecondRunShipsNothing(t *testing.T) {
	rec, root := setup(t)
	a := filepath.Join(root, "job-a", "s1.jsonl")
	write(t, a, "{\"seq\":0}\n{\"seq\":1}\n")
	r, err := New(DefaultConfig(), rec, rec.ledger)
	require.NoError(t, err)
	_, err = r.Run(context.Background(), root)
	require.NoError(t, err)

	// The writer appends; only the new line goes out on the next run.
	f, err := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("{\"seq\":2}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	r, err = New(DefaultConfig(), rec, rec.ledger)
	require.NoError(t, err)
	st, err := r.Run(context.Background(), root)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Shipped)
	assert.Equal(t, 2, st.Skipped)
	assert.Equal(t, []string{`{"seq":0}`, `{"seq":1}`, `{"seq":2}`}, rec.lines[a], "nothing twice")
}

func TestRetriesWhileLokiFails(t *testing.T) {
	rec, root := setup(t)
	write(t, filepath.Join(root, "job-a", "s1.jsonl"), "{\"seq\":0}\n")
	rec.fail = 2
	r, err := New(DefaultConfig(), rec, rec.ledger)
	require.NoError(t, err)
	st, err := r.Run(context.Background(), root)
	require.NoError(t, err)
	assert.Equal(t, 3, rec.calls)
	assert.Equal(t, 1, st.Shipped)
}

func TestGivesUpNamingFileAndOffsets(t *testing.T) {
	rec, root := setup(t)
	a := filepath.Join(root, "job-a", "s1.jsonl")
	write(t, a, "{\"seq\":0}\n{\"seq\":1}\n")
	rec.fail = 1 << 30
	cfg := DefaultConfig()
	cfg.MaxElapsed = 300 * time.Millisecond
	r, err := New(cfg, rec, rec.ledger)
	require.NoError(t, err)
	_, err = r.Run(context.Background(), root)
	require.Error(t, err)
	assert.Contains(t, err.Error(), a+" offsets 0-10")

	rec.fail, rec.calls, rec.err = 0, 0, errors.New("permanent")
	_, err = r.Run(context.Background(), root)
	require.ErrorContains(t, err, "permanent")
	assert.Equal(t, 1, rec.calls, "a non-retryable error is not retried")
}

func TestDiscoverDoesNotFollowSymlinks(t *testing.T) {
	_, root := setup(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret.jsonl"), "{}\n")
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.jsonl"), filepath.Join(root, "job-a", "l.jsonl")))
	write(t, filepath.Join(root, "job-a", "b.jsonl"), "{}\n")
	files, err := Discover(root)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(root, "job-a", "b.jsonl")}, files)
	_, err = Discover(filepath.Join(root, "missing"))
	assert.Error(t, err)
}

// Fluent Bit's tail reports absolute paths and the ledger is keyed by them:
// a relative path on the command line must come out absolute, or the CLI
// would ship again what the plugin shipped (found trying it with a real
// Fluent Bit: `finalize sessions` re-shipped every line).
func TestDiscoverReturnsAbsolutePaths(t *testing.T) {
	_, root := setup(t)
	write(t, filepath.Join(root, "job-a", "b.jsonl"), "{}\n")
	t.Chdir(root)
	files, err := Discover("job-a", "./job-a/../job-a/b.jsonl")
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(root, "job-a", "b.jsonl")}, files)
}

func TestLongLinesAreBoundedAndNamed(t *testing.T) {
	rec, root := setup(t)
	a := filepath.Join(root, "job-a", "s1.jsonl")
	long := string(bytes.Repeat([]byte("x"), 3<<20))
	write(t, a, "{\"seq\":0}\n"+long+"\n{\"seq\":2}\n")
	cfg := DefaultConfig()
	cfg.MaxLineBytes = 2 << 20
	var got []chunk.Record
	rec.onShip = func(recs []chunk.Record) {
		for _, r := range recs {
			got = append(got, chunk.Record{Line: append([]byte(nil), r.Line...), Offset: r.Offset, Cut: r.Cut})
		}
	}
	r, err := New(cfg, rec, rec.ledger)
	require.NoError(t, err)
	_, err = r.Run(context.Background(), root)
	require.NoError(t, err, "a line over MaxLineBytes does not stop the file")
	require.Len(t, got, 3, "the lines after it ship too")
	assert.Equal(t, int64(10), got[1].Offset)
	assert.Equal(t, int64(len(long)), got[1].Cut, "its full length")
	assert.Equal(t, long[:len(got[1].Line)], string(got[1].Line), "its first bytes only")
	assert.LessOrEqual(t, len(got[1].Line), cutPrefix)
	assert.Equal(t, int64(10+len(long)+1), got[2].Offset, "the next line's offset counts every byte")

	rec2, root2 := setup(t)
	b := filepath.Join(root2, "job-a", "s1.jsonl")
	write(t, b, string(bytes.Repeat([]byte("y"), 1<<21))+"\n")
	r, err = New(DefaultConfig(), rec2, rec2.ledger)
	require.NoError(t, err)
	_, err = r.Run(context.Background(), root2)
	require.NoError(t, err)
	require.Len(t, rec2.lines[b], 1, "a line longer than the read buffer is shipped whole")
	assert.Len(t, rec2.lines[b][0], 1<<21)
}

func TestConfigValidate(t *testing.T) {
	assert.NoError(t, DefaultConfig().Validate())
	c := DefaultConfig()
	c.BatchLines = 0
	assert.Error(t, c.Validate())
	_, err := New(DefaultConfig(), nil, nil)
	assert.Error(t, err)
}

// TestTruncatedInPlaceShipsFromItsStart: a file truncated and rewritten in
// place (the same inode, the same first line) whose ledger ranges reach
// past its new end is shipped from its start, not skipped as shipped.
func TestTruncatedInPlaceShipsFromItsStart(t *testing.T) {
	rec, root := setup(t)
	a := filepath.Join(root, "job-a", "s1.jsonl")
	write(t, a, "{\"seq\":0}\n{\"seq\":1,\"long\":\"xxxxxxxxxxxxxxxx\"}\n")
	r, err := New(DefaultConfig(), rec, rec.ledger)
	require.NoError(t, err)
	_, err = r.Run(context.Background(), root)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(a, 0))
	f, err := os.OpenFile(a, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("{\"seq\":0}\n{\"seq\":9}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	rec.lines = map[string][]string{}
	_, err = r.Run(context.Background(), root)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"seq":0}`, `{"seq":9}`}, rec.lines[a], "the rewritten file ships whole")
}
