package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	cortexsample "github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLineOverSixteenMiBIsDeadLettered: a 17 MiB line does not abort
// `journalship ship`: it lands in the dead-letter file as its first bytes,
// its size and the reason, the lines around it and the other files ship,
// and the ledger accounts for every byte (so retention can delete the
// file once finalized).
func TestLineOverSixteenMiBIsDeadLettered(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "job1"), 0o755))
	now := time.Now().UTC().Format(time.RFC3339Nano)
	ev := func(typ string, extra string) string {
		return `{"type":"` + typ + `","timestamp":"` + now + `","job_id":"job1","session_id":"s","seq":0` + extra + `}`
	}
	huge := ev("TOOL_RESULT", `,"output":"`+strings.Repeat("x", 17<<20)+`"`)
	a := filepath.Join(root, "job1", "session_20260301T100000Z_a.jsonl")
	b := filepath.Join(root, "job1", "session_20260301T110000Z_b.jsonl")
	content := ev("SESSION_START", "") + "\n" + huge + "\n" + ev("ERROR", "") + "\n"
	require.NoError(t, os.WriteFile(a, []byte(content), 0o644))
	require.NoError(t, os.WriteFile(b, []byte(ev("SESSION_START", "")+"\n"), 0o644))

	s := map[string]string{"loki_url": loki.URL, "ledger_path": filepath.Join(dir, "ledger.db"),
		"dead_letter_path": filepath.Join(dir, "dl.jsonl"), "metrics_address": "off", "log_level": "error"}
	get := func(k string) string { return s[strings.ToLower(k)] }
	st, err := shipPaths(context.Background(), get, backfill.DefaultConfig(), root)
	require.NoError(t, err, "the long line does not abort the run")
	assert.Equal(t, 3, st.Shipped)
	assert.Equal(t, 1, st.DeadLettered)

	q := &lokiquery.Client{URL: loki.URL}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions"}`, time.Now().Add(-time.Hour), time.Now().Add(time.Minute), 3, 30*time.Second)
	require.NoError(t, err)
	assert.Len(t, got, 3, "both files' other lines are in Loki")

	fh, err := os.Open(s["dead_letter_path"])
	require.NoError(t, err)
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	require.True(t, sc.Scan())
	var dl struct {
		File   string `json:"file"`
		Offset int64  `json:"offset"`
		Line   string `json:"line"`
		Reason string `json:"reason"`
	}
	require.NoError(t, json.Unmarshal(sc.Bytes(), &dl))
	assert.Equal(t, a, dl.File)
	assert.Equal(t, int64(len(ev("SESSION_START", ""))+1), dl.Offset)
	assert.True(t, strings.HasPrefix(huge, dl.Line) && len(dl.Line) > 100 && len(dl.Line) <= 4096, "its first bytes")
	assert.Contains(t, dl.Reason, "line of 17825")
	assert.False(t, sc.Scan(), "one dead letter")

	l, err := ledger.Open(ledger.Config{Path: s["ledger_path"]})
	require.NoError(t, err)
	defer l.Close()
	fs, err := l.File(context.Background(), a)
	require.NoError(t, err)
	assert.Equal(t, int64(len(content)), fs.Watermark, "every byte accounted for, the long line included")
}

// TestConcurrentShipsSendEachLineOnce: two `journalship ship` runs on the
// same files at once (sharing the ledger, as two processes on a node do)
// send each line once between them: the per-file lock makes the second
// wait, then find the lines in the ledger.
func TestConcurrentShipsSendEachLineOnce(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	cfg := cortexsample.DefaultConfig()
	cfg.Seed, cfg.Jobs = 3, 6
	c, err := cortexsample.Generate(cfg)
	require.NoError(t, err)
	require.NoError(t, c.WriteTo(root))
	lines := 0
	for _, f := range c.Files {
		lines += len(f.Lines)
	}
	s := map[string]string{"loki_url": loki.URL, "ledger_path": filepath.Join(dir, "ledger.db"),
		"dead_letter_path": filepath.Join(dir, "dl.jsonl"), "metrics_address": "off", "log_level": "error"}
	get := func(k string) string { return s[strings.ToLower(k)] }
	var wg sync.WaitGroup
	stats := make([]backfill.Stats, 2)
	for i := range stats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bc := backfill.DefaultConfig()
			bc.BatchLines = 7 // many small flushes, so the two runs interleave
			st, err := shipPaths(context.Background(), get, bc, root)
			assert.NoError(t, err)
			stats[i] = st
		}()
	}
	wg.Wait()
	assert.Equal(t, lines, stats[0].Shipped+stats[1].Shipped+stats[0].DeadLettered+stats[1].DeadLettered,
		"each line sent once between the two runs (%+v, %+v)", stats[0], stats[1])
	assert.Equal(t, lines, stats[0].Skipped+stats[1].Skipped, "what one sent, the other found shipped")
}
