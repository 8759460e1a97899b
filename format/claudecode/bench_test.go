package claudecode

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/require"
)

// benchText is prose of n bytes with the escapes real transcripts have
// (newlines, quotes, tabs).
func benchText(n int) string {
	const para = "The retry loop in client.go backs off \"exponentially\", but the jitter is computed before the cap:\n\tdelay := base << attempt\n"
	s := strings.Repeat(para, n/len(para)+1)[:n]
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// benchSession is a realistic session of turns: a prompt, a response of
// three lines (thinking, text, tool_use with a file's content as input,
// its output growing), the tool's result (with toolUseResult, as the CLI
// writes it), a progress line and a file-history snapshot. Lines are 2 to
// 10 KB.
func benchSession(turns int) [][]byte {
	var lines [][]byte
	parent := "null"
	n := 0
	next := func() string {
		n++
		return uid(n)
	}
	env := func(typ, u string, sec int) string {
		return fmt.Sprintf(`"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/dev/app","sessionId":"%s","version":"2.1.90","gitBranch":"main","type":"%s","uuid":"%s","timestamp":"2026-03-02T10:%02d:%02d.%03dZ"`,
			parent, sessionID, typ, u, sec/60%60, sec%60, sec%1000)
	}
	for i := range turns {
		sec := i * 7
		u := next()
		lines = append(lines, fmt.Appendf(nil, `{%s,"message":{"role":"user","content":"%s"},"promptId":"p-%d","permissionMode":"default"}`, env("user", u, sec), benchText(2000), i))
		parent = `"` + u + `"`
		msg, req := fmt.Sprintf("msg_01Bench%05d", i), fmt.Sprintf("req_011Bench%05d", i)
		for k, block := range []string{
			`{"type":"thinking","thinking":"` + benchText(3000) + `","signature":"` + strings.Repeat("EqQBCkYIBxgCKkA", 20) + `"}`,
			`{"type":"text","text":"` + benchText(2000) + `"}`,
			`{"type":"tool_use","id":"toolu_01Bench` + fmt.Sprint(i) + `","name":"Write","input":{"file_path":"/home/dev/app/client.go","content":"` + benchText(6000) + `"}}`,
		} {
			u = next()
			lines = append(lines, fmt.Appendf(nil, `{%s,"requestId":"%s","message":{"id":"%s","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[%s],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":1840,"cache_read_input_tokens":21337,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1840},"output_tokens":%d,"service_tier":"standard"}}}`,
				env("assistant", u, sec+1+k), req, msg, block, 10+k*150))
			parent = `"` + u + `"`
		}
		out := benchText(4000)
		u = next()
		lines = append(lines, fmt.Appendf(nil, `{%s,"message":{"role":"user","content":[{"tool_use_id":"toolu_01Bench%d","type":"tool_result","content":"%s","is_error":false}]},"toolUseResult":{"stdout":"%s","stderr":"","interrupted":false},"sourceToolAssistantUUID":%s}`,
			env("user", u, sec+5), i, out, out, parent))
		parent = `"` + u + `"`
		u = next()
		lines = append(lines, fmt.Appendf(nil, `{%s,"data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Write","command":"gofmt -l .","output":"%s"},"toolUseID":"toolu_01Bench%d","parentToolUseID":"toolu_01Bench%d"}`,
			env("progress", u, sec+6), benchText(1800), i, i))
		lines = append(lines, fmt.Appendf(nil, `{"type":"file-history-snapshot","messageId":"%s","snapshot":{"messageId":"%s","trackedFileBackups":{"/home/dev/app/client.go":{"backupFileName":"5f1e@v%d","version":%d,"backupTime":"2026-03-02T10:00:00.000Z","content":"%s"}},"timestamp":"2026-03-02T10:00:00.000Z"},"isSnapshotUpdate":false}`,
			u, u, i, i, benchText(1800)))
	}
	return lines
}

// BenchmarkJudge judges a session's lines, one per op, with the file's
// state: it must allocate nothing once the buffers have grown.
func BenchmarkJudge(b *testing.B) {
	lines := benchSession(50)
	f := New()
	p, _ := f.Claim(mainPath)
	formattest.BenchJudge(b, f.NewJudge(), f.NewState(p), lines)
}

// BenchmarkJudgeLongLine judges a 50 KB tool result: the values the judge
// does not read are skipped at the scanner's speed.
func BenchmarkJudgeLongLine(b *testing.B) {
	out := benchText(25000)
	l := []byte(`{"parentUuid":"` + uuid1 + `","isSidechain":false,"sessionId":"` + sessionID + `","type":"user","uuid":"` + uuid2 + `","timestamp":"` + stamp +
		`","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"` + out + `"}]},"toolUseResult":{"stdout":"` + out + `"}}`)
	f := New()
	j := f.NewJudge()
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	b.SetBytes(int64(len(l)))
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(1 << 16)
		j.Judge(l, nil, a, &ev)
	}
}

// BenchmarkState judges a whole session into a fresh state per op: the
// cost of a file's first reading, its sets growing included.
func BenchmarkState(b *testing.B) {
	lines := benchSession(50)
	f := New()
	p, _ := f.Claim(mainPath)
	j := f.NewJudge()
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	b.SetBytes(int64(formattest.TotalBytes(lines)))
	b.ReportAllocs()
	for b.Loop() {
		st := f.NewState(p)
		for _, l := range lines {
			a.Reset(1 << 16)
			j.Judge(l, st, a, &ev)
		}
	}
}

func TestBenchSessionIsClean(t *testing.T) {
	lines := benchSession(3)
	var ls []string
	for _, l := range lines {
		require.GreaterOrEqual(t, len(l), 2000)
		require.LessOrEqual(t, len(l), 10<<10)
		ls = append(ls, string(l))
	}
	evs, st := run(t, New(), mainPath, ls...)
	for i, ev := range evs {
		require.Equal(t, integrity.Valid, ev.Outcome, "line %d: %v", i+1, formattest.Violations(&ev))
		require.Zero(t, ev.NoteCount, "line %d: %v", i+1, formattest.Notes(&ev))
	}
	require.Nil(t, st.Open())
	require.Equal(t, StateThinking, st.Derived())
	require.Equal(t, format.Usage{Output: 150, Has: true}, evs[2].Usage, "a response's second line ships its growth")
}

func TestJudgeDoesNotAllocate(t *testing.T) {
	lines := benchSession(5)
	f := New()
	p, _ := f.Claim(mainPath)
	j, st := f.NewJudge(), f.NewState(p)
	a := integrity.NewArena(1 << 16)
	var ev format.Event
	for _, l := range lines {
		a.Reset(1 << 16)
		j.Judge(l, st, a, &ev)
	}
	allocs := testing.AllocsPerRun(20, func() {
		for _, l := range lines {
			a.Reset(1 << 16)
			j.Judge(l, st, a, &ev)
		}
	})
	require.Zero(t, allocs)
}
