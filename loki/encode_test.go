package loki

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// decodePush decodes a request body as Loki does (snappy, then protobuf).
func decodePush(t testing.TB, body []byte) push.PushRequest {
	t.Helper()
	raw, err := snappy.Decode(nil, body)
	require.NoError(t, err)
	var req push.PushRequest
	require.NoError(t, req.Unmarshal(raw))
	return req
}

// renderPush writes a push request readably: one block per stream, one line
// per entry with its timestamp, quoted line and structured metadata.
func renderPush(req push.PushRequest) string {
	var sb strings.Builder
	for _, s := range req.Streams {
		fmt.Fprintf(&sb, "stream %s\n", s.Labels)
		for _, e := range s.Entries {
			fmt.Fprintf(&sb, "  %s %s", e.Timestamp.UTC().Format(time.RFC3339Nano), strconv.Quote(e.Line))
			for _, m := range e.StructuredMetadata {
				fmt.Fprintf(&sb, " %s=%s", m.Name, strconv.Quote(m.Value))
			}
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./loki/ -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), got)
}

func TestEncodeGolden(t *testing.T) {
	b := fixtureBatch(t)
	journal := []Label{{"source", "journal"}, {"agent", "claude-code"}}
	lines := []string{
		`{"type":"assistant","seq":7,"text":"héllo \"wörld\"\n\tdone","cost":0.25}`,
		`{"type":"result","stop_reason":"end_turn"}` + "\r",
	}
	for i, line := range lines {
		md := []Label{{"session_id", "5f0c"}, {"seq", strconv.Itoa(7 + i)}}
		require.NoError(t, b.Add(journal, Entry{Timestamp: fixtureBase.Add(time.Duration(i) * time.Microsecond), Line: line, Metadata: md, Ref: 10 + i}))
	}
	reqs := b.plan(DefaultMaxRequestBytes, true)
	require.Len(t, reqs, 1)
	raw, body, err := b.encode(reqs[0])
	require.NoError(t, err)
	req := decodePush(t, body)
	assert.Equal(t, req.Size(), len(raw))
	golden(t, "encode.golden", renderPush(req))
}

// splitBatch has 3 streams of 40 entries of 100 bytes (~5 KB of protobuf).
func splitBatch(t testing.TB) *Batch {
	b := NewBatch()
	ref := 0
	for i := range 40 {
		for s := range 3 {
			line := fmt.Sprintf("%03d/%d:%s", ref, s, strings.Repeat("x", 94))
			md := []Label{{"seq", strconv.Itoa(i)}}
			require.NoError(t, b.Add([]Label{{"stream", strconv.Itoa(s)}}, Entry{Timestamp: fixtureBase.Add(time.Duration(ref)), Line: line, Metadata: md, Ref: ref}))
			ref++
		}
	}
	return b
}

func TestPlanSplitsBySize(t *testing.T) {
	for _, limit := range []int{MinMaxRequestBytes, 1500, 2000, 4096, 1 << 20} {
		t.Run(strconv.Itoa(limit), func(t *testing.T) {
			b := splitBatch(t)
			reqs := b.plan(limit, true)
			var lines []string
			perStream := map[string][]string{}
			for _, r := range reqs {
				raw, body, err := b.encode(r)
				require.NoError(t, err)
				assert.LessOrEqual(t, len(raw), limit)
				req := decodePush(t, body)
				assert.Equal(t, req.Size(), len(raw))
				seen := map[string]bool{}
				for _, s := range req.Streams {
					assert.False(t, seen[s.Labels], "stream %s twice in one request", s.Labels)
					seen[s.Labels] = true
					for _, e := range s.Entries {
						lines = append(lines, e.Line)
						perStream[s.Labels] = append(perStream[s.Labels], e.Line)
					}
				}
			}
			assert.Len(t, lines, b.Len())
			for key, ls := range perStream {
				for i := 1; i < len(ls); i++ {
					assert.Less(t, ls[i-1], ls[i], "order within %s", key)
				}
			}
			if limit >= 1<<20 {
				assert.Len(t, reqs, 1)
			} else {
				assert.Greater(t, len(reqs), 1)
			}
		})
	}
}

func TestPlanSendsOversizedEntryAlone(t *testing.T) {
	b := NewBatch()
	ls := []Label{{"job", "x"}}
	require.NoError(t, b.Add(ls, Entry{Timestamp: fixtureBase, Line: "small", Ref: 0}))
	require.NoError(t, b.Add(ls, Entry{Timestamp: fixtureBase, Line: strings.Repeat("b", 3000), Ref: 1}))
	require.NoError(t, b.Add(ls, Entry{Timestamp: fixtureBase, Line: "small", Ref: 2}))
	reqs := b.plan(MinMaxRequestBytes, true)
	require.Len(t, reqs, 3)
	assert.Equal(t, []int{1, 1, 1}, []int{reqs[0].entries, reqs[1].entries, reqs[2].entries})
	assert.Greater(t, reqs[1].size, MinMaxRequestBytes)
	_, body, err := b.encode(reqs[1])
	require.NoError(t, err)
	assert.Len(t, decodePush(t, body).Streams[0].Entries[0].Line, 3000)
}

func TestSov(t *testing.T) {
	for _, x := range []uint64{0, 1, 127, 128, 16383, 16384, 1 << 35, 1<<64 - 1} {
		n := 0
		for v := x; ; v >>= 7 {
			n++
			if v < 128 {
				break
			}
		}
		assert.Equal(t, n, sov(x), "%d", x)
	}
}
