package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/journalship/journalship/chunk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Deterministic cases found by TestSeqContinuityProperty and by reading the
// look-behind: a line's annotations must not depend on whether the line
// before it was in the same chunk, in memory, on disk or in the ledger.

// contLine renders an ERROR event with a seq (as raw JSON text, so that
// odd encodings such as 2.0 can be written).
func contLine(seq string, extra string) string {
	return `{"type":"ERROR","timestamp":"2026-11-21T10:00:00.000Z","job_id":"` + goldenJob +
		`","session_id":"` + sessA + `","seq":` + seq + extra + `}`
}

func contStart() string {
	return `{"type":"SESSION_START","timestamp":"2026-11-21T10:00:00.000Z","job_id":"` + goldenJob +
		`","session_id":"` + sessA + `","seq":0,"buffer_schema_version":1,"agent_id":"` + agent + `","pod_name":"p"}`
}

// writeJournal writes lines (LF) to a seed-named file and returns its path,
// data and tail records.
func writeJournal(t *testing.T, lines []string) (string, []byte, []chunk.Record) {
	t.Helper()
	path := filepath.Join(t.TempDir(), goldenJob, "session_20261121T100000Z_pod-1.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	data := []byte(strings.Join(lines, "\n") + "\n")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path, data, tailRecords(path, data, testNow)
}

// lastLineAnnotations ships recs and returns the last line's annotations
// with their seq details, as annotationsByOffset renders them.
func lastLineAnnotations(t *testing.T, e *env, recs []chunk.Record) string {
	t.Helper()
	return annotationsByOffset(t, e)[strconv.FormatInt(recs[len(recs)-1].Offset, 10)]
}

// TestLookbehindSeesTheHighestSeqBehindAStaleBurst: four stale lines (a
// late writer replaying old seqs) and then the next in-order event. In one
// chunk the event is in order; when the chunk boundary falls before it and
// the previous chunk is not in memory (a restart, or chunks arriving out of
// order), the look-behind only considers the last journalfile.SeqDepth (4)
// sequenced lines, misses the highest seq and reports a false gap.
func TestLookbehindSeesTheHighestSeqBehindAStaleBurst(t *testing.T) {
	lines := []string{contStart()}
	for s := 1; s <= 5; s++ {
		lines = append(lines, contLine(strconv.Itoa(s), ""))
	}
	for s := 1; s <= 4; s++ { // stale: regressions below 5
		lines = append(lines, contLine(strconv.Itoa(s), ""))
	}
	lines = append(lines, contLine("6", ""))
	_, _, recs := writeJournal(t, lines)
	last := len(recs) - 1

	one := newEnv(t, nil)
	_, err := one.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	require.Equal(t, "||", lastLineAnnotations(t, one, recs), "in one chunk, seq 6 follows the highest seq 5")

	restarted := newEnv(t, nil)
	_, err = restarted.pipe.Ship(context.Background(), recs[:last], "t")
	require.NoError(t, err)
	p, err := New(restarted.pipe.cfg, restarted.pipe.deps)
	require.NoError(t, err)
	restarted.pipe = p
	_, err = restarted.pipe.Ship(context.Background(), recs[last:], "t")
	require.NoError(t, err)
	assert.Equal(t, "||", lastLineAnnotations(t, restarted, recs), "after a restart: no false seq_gap")

	reordered := newEnv(t, nil)
	_, err = reordered.pipe.Ship(context.Background(), recs[last:], "t")
	require.NoError(t, err)
	_, err = reordered.pipe.Ship(context.Background(), recs[:last], "t")
	require.NoError(t, err)
	assert.Equal(t, "||", lastLineAnnotations(t, reordered, recs), "chunks out of order: no false seq_gap")
}

// TestLookbehindReadsLinesAsTheValidatorDoes: the look-behind parses the
// lines before a chunk with its own rules (fastjson, any "seq" that
// Int64() reads), the chunk path with the validator's. Whenever they
// disagree on whether a line carries a seq, the annotation of the line
// after it depends on where the chunk boundary falls.
func TestLookbehindReadsLinesAsTheValidatorDoes(t *testing.T) {
	cases := []struct {
		name string
		odd  string // the line between seq 1 and the judged line
		next string // the judged line's seq
	}{
		{"seq written as 2.0 (an integer for JSON Schema and the validator)", contLine("2.0", ""), "3"},
		{"seq written as 2e0", contLine("2e0", ""), "3"},
		{"corrupt: invalid UTF-8 in a string, with a seq", contLine("9", `,"x":"`+"\xff"+`"`), "2"},
		{"corrupt: NaN, with a seq", contLine("9", `,"x":NaN`), "2"},
		{"corrupt: no type, with a seq", `{"timestamp":"2026-11-21T10:00:00.000Z","seq":9}`, "2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, recs := writeJournal(t, []string{contStart(), contLine("1", ""), tc.odd, contLine(tc.next, "")})
			last := len(recs) - 1

			one := newEnv(t, nil)
			_, err := one.pipe.Ship(context.Background(), recs, "t")
			require.NoError(t, err)
			want := lastLineAnnotations(t, one, recs)

			split := newEnv(t, nil)
			_, err = split.pipe.Ship(context.Background(), recs[last:], "t") // the next chunk arrives first
			require.NoError(t, err)
			assert.Equal(t, want, lastLineAnnotations(t, split, recs), "same annotations whatever the chunking")
		})
	}
}

// TestLedgerFallbackUsesTheHighestSeq: when the file can no longer be read
// (removed or rewritten while its last chunk waited in Fluent Bit's buffer)
// and memory is gone (a restart), the ledger's range before the chunk is
// the last resort. Its LastSeq is the seq of the range's last line, not the
// highest seq before the chunk: after one stale line it yields a false gap.
func TestLedgerFallbackUsesTheHighestSeq(t *testing.T) {
	lines := []string{contStart(), contLine("1", ""), contLine("2", ""), contLine("3", ""), contLine("1", ""), contLine("4", "")}
	path, _, recs := writeJournal(t, lines)
	last := len(recs) - 1

	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), recs[:last], "t")
	require.NoError(t, err)
	rg, ok, err := e.ledger.Covering(context.Background(), path, recs[last].Offset)
	require.NoError(t, err)
	require.True(t, ok, "the ledger holds the range just before the last line")

	require.NoError(t, os.Remove(path))
	p, err := New(e.pipe.cfg, e.pipe.deps)
	require.NoError(t, err)
	e.pipe = p
	_, err = e.pipe.Ship(context.Background(), recs[last:], "t")
	require.NoError(t, err)
	assert.Equal(t, "||", lastLineAnnotations(t, e, recs),
		"seq 4 follows the highest seq 3 (the ledger range's LastSeq is %d, the stale line's)", rg.LastSeq)
}

// A chunk whose first line is an LLM_RESPONSE, its request flushed in an
// earlier chunk this process never saw: one look-behind gives both the
// previous seq and the request's model.
func TestChunkStartingWithAResponseReadsTheFileOnce(t *testing.T) {
	_, path, data := journalAt(t)
	e := newEnv(t, nil)
	recs := tailRecords(path, data, testNow)[3:] // from the first LLM_RESPONSE
	_, err := e.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	first := e.cap.entries()
	var resp capturedEntry
	for _, en := range first {
		if en.md["seq"] == "3" {
			resp = en
		}
	}
	assert.Equal(t, "claude-sonnet-4-5", resp.md["model"])
	assert.NotContains(t, resp.md["annotations"], "model_unknown")
	assert.NotContains(t, resp.md["annotations"], "seq_gap")
	assert.EqualValues(t, 1, e.pipe.reader.Reads())
}
