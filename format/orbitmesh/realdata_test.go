package orbitmesh

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/internal/realdata"
)

// realSession is what a real session's files must yield.
type realSession struct {
	states    string // the lines' states, run-length: "running*7 idle running*5"
	derived   string
	endReason string
	endLines  []int64        // the seqs of the lines marked Ends
	tokens    map[string]tok // by model
}

// tok is a usage summed over a session's lines.
type tok struct{ in, out, cacheRead, cacheWrite, cacheWrite1h int64 }

const sonnet = "claude-sonnet-4-5-20250929"

// realSessions: ../shared/realdata/orbitmesh/README (written by
// OrbitMesh's storage at 62c8c80, driven as its executor does).
var realSessions = map[string]realSession{
	"claude-review-1": {states: "running*53", derived: StatusIdle, endReason: "completed",
		tokens: map[string]tok{sonnet: {in: 21349 + 24681, out: 192 + 1, cacheRead: 17610 + 21346, cacheWrite: 3736 + 3328, cacheWrite1h: 3736 + 3328}}},
	"acp-suspend-2": {states: "running*7 idle running*5", derived: StatusIdle, endReason: "failed",
		endLines: []int64{8}, tokens: map[string]tok{}},
	"crash-recover-3": {states: "running*12 interrupted_startup", derived: StatusInterruptedStartup, endReason: "interrupted",
		endLines: []int64{13}, tokens: map[string]tok{sonnet: {in: 21349, out: 1, cacheRead: 17610, cacheWrite: 3736, cacheWrite1h: 3736}}},
	"cancelled-4": {states: "running*20", derived: StatusIdle, endReason: "failed",
		tokens: map[string]tok{sonnet: {in: 21349, out: 1, cacheRead: 17610, cacheWrite: 3736, cacheWrite1h: 3736}}},
}

// TestRealData judges the logs OrbitMesh's own storage wrote, with their
// side files: every line valid with its own time and no annotation, the
// states the attempts and resume tokens give, the tokens by model the
// provider events state, and each session over as its latest attempt says.
func TestRealData(t *testing.T) {
	dir := filepath.Join(realdata.Dir(t, "orbitmesh"), "sessions")
	logs, err := filepath.Glob(filepath.Join(dir, "*"+Suffix))
	require.NoError(t, err)
	require.Len(t, logs, len(realSessions))
	f := New()
	for _, log := range logs {
		id := strings.TrimSuffix(filepath.Base(log), Suffix)
		want, ok := realSessions[id]
		require.True(t, ok, id)
		t.Run(id, func(t *testing.T) {
			data, err := os.ReadFile(log)
			require.NoError(t, err)
			p, ok := f.Claim(log)
			require.True(t, ok)
			assert.Empty(t, p.Problem)
			first, _, _ := bytes.Cut(data, []byte("\n"))
			assert.True(t, f.Sniff(first), "detected by content")
			st := f.NewState(p).(*State)
			st.Load(log)
			j := f.NewJudge()
			var states []string
			var ends []int64
			got := map[string]tok{}
			for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				var a integrity.Arena
				var ev format.Event
				j.Judge(line, st, &a, &ev)
				require.Equal(t, integrity.Valid, ev.Outcome, "%s: %v", line[:min(len(line), 120)], ev.Violations)
				assert.Zero(t, ev.Flags&format.UnknownType)
				assert.Zero(t, ev.NoteCount)
				var raw struct {
					Seq       int64     `json:"seq"`
					Timestamp time.Time `json:"timestamp"`
				}
				require.NoError(t, json.Unmarshal(line, &raw))
				require.True(t, ev.HasTime && ev.HasSeq)
				assert.True(t, raw.Timestamp.Equal(ev.Time), "the line's own time")
				assert.Equal(t, raw.Seq, ev.Seq)
				states = append(states, ev.State)
				if ev.Ends {
					ends = append(ends, ev.Seq)
				}
				if ev.Usage.Has {
					require.Equal(t, format.RoleLLMResponse, ev.Role)
					require.NotEmpty(t, ev.Model, "a counted usage has its model")
					u := got[string(ev.Model)]
					u.in += ev.Usage.Input
					u.out += ev.Usage.Output
					u.cacheRead += ev.Usage.CacheRead
					u.cacheWrite += ev.Usage.CacheWrite
					u.cacheWrite1h += ev.Usage.CacheWrite1h
					got[string(ev.Model)] = u
				}
			}
			assert.Equal(t, want.states, runLength(states))
			assert.Equal(t, want.endLines, ends)
			assert.Equal(t, want.tokens, got)
			assert.Equal(t, want.derived, st.Derived())
			over, terminal := st.Over()
			assert.True(t, over && terminal, "the latest attempt has a terminal reason")
			assert.Equal(t, want.endReason, st.EndReason())
			assert.Nil(t, st.Open())
			assert.True(t, f.EndWritten(log))
		})
	}
}

// runLength renders states as "a*3 b c*2".
func runLength(states []string) string {
	var parts []string
	for i := 0; i < len(states); {
		k := i
		for k < len(states) && states[k] == states[i] {
			k++
		}
		if k-i == 1 {
			parts = append(parts, states[i])
		} else {
			parts = append(parts, states[i]+"*"+strconv.Itoa(k-i))
		}
		i = k
	}
	return strings.Join(parts, " ")
}
