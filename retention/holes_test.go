package retention

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/output"
	"github.com/journalship/journalship/pipeline"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingShipper is the output instance, counting the lines each Ship
// call really sent (not those the ledger already held).
type countingShipper struct {
	*output.Instance
	mu      sync.Mutex
	shipped int
}

func (c *countingShipper) Ship(ctx context.Context, recs []chunk.Record, tag string) (pipeline.Result, error) {
	res, err := c.Instance.Ship(ctx, recs, tag)
	c.mu.Lock()
	c.shipped += res.Shipped
	c.mu.Unlock()
	return res, err
}

func (c *countingShipper) sent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shipped
}

// holeJournal is a Cortex Plane session still running (no SESSION_END):
// its lines and their offsets.
func holeJournal(start time.Time) (data string, offsets []int64) {
	const job, sess = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", "01956a3b-8000-7000-8000-000000000001"
	types := []string{"SESSION_START", "LLM_REQUEST", "LLM_RESPONSE", "TOOL_START", "TOOL_RESULT", "LLM_REQUEST"}
	var b strings.Builder
	for i, typ := range types {
		extra := ""
		if i == 0 {
			extra = `,"buffer_schema_version":1,"agent_id":"01956a3b-9000-7000-8000-000000000002","pod_name":"p1"`
		}
		offsets = append(offsets, int64(b.Len()))
		fmt.Fprintf(&b, `{"type":%q,"timestamp":%q,"job_id":%q,"session_id":%q,"seq":%d%s}`+"\n",
			typ, start.Add(time.Duration(i)*time.Second).UTC().Format("2006-01-02T15:04:05.000Z"), job, sess, i, extra)
	}
	return b.String(), offsets
}

// shipAsTail ships the lines at the given indexes through the plugin's
// path, as tail would have delivered them.
func shipAsTail(t *testing.T, inst *output.Instance, path, data string, offsets []int64, idx ...int) {
	t.Helper()
	var recs []chunk.Record
	for _, i := range idx {
		end := strings.IndexByte(data[offsets[i]:], '\n')
		recs = append(recs, chunk.Record{Time: time.Now(), Line: []byte(data[offsets[i] : offsets[i]+int64(end)]),
			Path: []byte(path), Offset: offsets[i], HasOffset: true, Index: len(recs)})
	}
	res, err := inst.Ship(context.Background(), recs, "sessions.cortex.x")
	require.NoError(t, err)
	require.Equal(t, len(idx), res.Shipped)
}

// A session still being written whose ledger shows holes (lines Fluent
// Bit lost after a crash) gets them into Loki at the next sweep, once;
// the lines past the last shipped range are left to tail, and the next
// sweep sends nothing.
func TestSweepShipsHolesOfAFileStillBeingWritten(t *testing.T) {
	rig := newLiveRig(t)
	inst, root := rig.inst, rig.root
	now := time.Now()
	data, offsets := holeJournal(now.Add(-time.Hour))
	path := filepath.Join(root, "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", "session_20260310T110000Z_p1.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	// Tail delivered lines 1, 3 and 4: lines 0 and 2 are holes, line 5 is
	// past the last shipped range (tail's to send).
	shipAsTail(t, inst, path, data, offsets, 1)
	shipAsTail(t, inst, path, data, offsets, 3, 4)

	counting := &countingShipper{Instance: inst}
	fcfg := finalize.DefaultConfig()
	fin, err := finalize.New(fcfg, counting, inst.Ledger(), nil)
	require.NoError(t, err)
	var log bytes.Buffer
	cfg := DefaultConfig()
	cfg.Root, cfg.Log = root, &log
	a, err := New(cfg, nil, fin, inst.Ledger(), nil)
	require.NoError(t, err)

	r, err := a.Sweep(context.Background())
	require.NoError(t, err)
	assert.Equal(t, KeepRecentlyModified, decision(t, r, path).Reason, "the file is still being written")
	assert.Equal(t, 2, counting.sent(), "the two hole lines, and nothing else, are sent")
	assert.Equal(t, 2.0, testutil.ToFloat64(a.Metrics().HolesShippedLines))
	holes := fmt.Sprintf("[0,%d) [%d,%d)", offsets[1], offsets[2], offsets[3])
	assert.Contains(t, log.String(), "shipped 2 lines from holes of "+path+" at bytes "+holes)

	st, err := inst.Ledger().File(context.Background(), path)
	require.NoError(t, err)
	assert.Equal(t, []ledger.Range{{Start: 0, End: offsets[5]}}, spans(st.Ranges), "the holes are closed; line 5 is not claimed")
	assert.False(t, st.Finished)

	q := &lokiquery.Client{URL: rig.loki}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions"}`, now.Add(-2*time.Hour), now.Add(time.Minute), 5, 20*time.Second)
	require.NoError(t, err)
	perOffset := map[string]int{}
	for _, e := range got {
		perOffset[e.Metadata["byte_offset"]]++
	}
	for i := range 5 {
		assert.Equal(t, 1, perOffset[strconv.FormatInt(offsets[i], 10)], "line %d is in Loki once", i)
	}
	assert.Zero(t, perOffset[strconv.FormatInt(offsets[5], 10)], "the line past the last shipped range is left to tail")
	assert.Len(t, got, 5)

	r, err = a.Sweep(context.Background())
	require.NoError(t, err)
	assert.Equal(t, KeepRecentlyModified, decision(t, r, path).Reason)
	assert.Equal(t, 2, counting.sent(), "a second sweep sends nothing")
	assert.Equal(t, 2.0, testutil.ToFloat64(a.Metrics().HolesShippedLines))
	again, err := q.QueryRange(context.Background(), `{service_name="agent-sessions"}`, now.Add(-2*time.Hour), now.Add(time.Minute), 100, "forward")
	require.NoError(t, err)
	assert.Len(t, again, 5)
}

// spans keeps only the byte edges of ranges.
func spans(rs []ledger.Range) []ledger.Range {
	out := make([]ledger.Range, len(rs))
	for i, r := range rs {
		out[i] = ledger.Range{Start: r.Start, End: r.End}
	}
	return out
}
