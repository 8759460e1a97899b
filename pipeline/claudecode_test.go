package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/journalship/journalship/pricing"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const rvSession = "7c2d9f40-1b3e-4d5a-8c6f-2e1d0c9b8a70"

func rvAssistant(n int, out int, block string) string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"sessionId":"%s","type":"assistant","message":{"id":"msg_01A","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[%s],"stop_reason":null,"usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":12000,"output_tokens":%d}},"uuid":"10000000-0000-4000-8000-%012d","timestamp":"2026-11-21T11:59:0%d.000Z","requestId":"req_01A"}`,
		rvSession, block, out, n, n)
}

func rvOut(t *testing.T, e *env) (sum int) {
	for _, en := range e.cap.entries() {
		if v := en.md["tokens_out"]; v != "" {
			n, err := strconv.Atoi(v)
			require.NoError(t, err)
			sum += n
		}
	}
	return sum
}

func rvWrite(t *testing.T, lines ...string) (string, []byte) {
	root := t.TempDir()
	path := filepath.Join(root, "projects", "-home-dev-app", rvSession+".jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	data := []byte(strings.Join(lines, "\n") + "\n")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path, data
}

// TestTooLongLineGivesBackItsUsage: a split response (growing snapshots,
// CLI < 2.1.97) whose middle line is over Max_Line_Bytes: the line is
// dead-lettered and gives back what it counted (format.Withdrawer), so the
// next line ships the growth past the line before it.
func TestTooLongLineGivesBackItsUsage(t *testing.T) {
	big := `{"type":"tool_use","id":"toolu_big","name":"Write","input":{"content":"` + strings.Repeat("x", 300<<10) + `"}}`
	path, data := rvWrite(t,
		rvAssistant(1, 8, `{"type":"text","text":"writing"}`),
		rvAssistant(2, 300, big),
		rvAssistant(3, 310, `{"type":"tool_use","id":"toolu_2","name":"Read","input":{}}`),
	)
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	t.Logf("entries: %d", len(e.cap.entries()))
	assert.Equal(t, 310, rvOut(t, e), "the response's largest output, once, among the lines in Loki (or the whole response's on the next line)")
}

// TestStatelessLinesShipNoUsage: when the state cannot be rebuilt (the
// file is gone, as after Claude Code's cleanup, or over the replay bound)
// a split line cannot tell what its response's other lines counted: it
// ships no usage, annotated usage_unverified, and never more than the
// response's usage.
func TestStatelessLinesShipNoUsage(t *testing.T) {
	lines := []string{rvAssistant(1, 1, `{"type":"thinking","thinking":"t","signature":"s"}`)}
	for i := 2; i <= 5; i++ {
		lines = append(lines, rvAssistant(i, 310, `{"type":"text","text":"x"}`))
	}
	path, data := rvWrite(t, lines...)
	recs := tailRecords(path, data, testNow)
	inOrder := newEnv(t, nil)
	_, err := inOrder.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err)
	want := rvOut(t, inOrder)

	// A restart: the chunk after the first line comes to a fresh pipeline;
	// the file was deleted meanwhile.
	restarted := newEnv(t, nil)
	require.NoError(t, os.Remove(path))
	_, err = restarted.pipe.Ship(context.Background(), recs[1:], "t")
	require.NoError(t, err)
	got := rvOut(t, restarted)
	t.Logf("in order %d, restarted (first line already shipped before) %d", want, got)
	assert.LessOrEqual(t, got+1, want, "no line ships more than the response's usage")
	assert.Zero(t, got, "without the state no usage is shipped")
	for _, en := range restarted.cap.entries() {
		assert.Contains(t, en.md["annotations"], "usage_unverified", en.md["byte_offset"])
	}
	assert.Equal(t, 4.0, testutil.ToFloat64(restarted.metrics.Annotations.WithLabelValues("usage_unverified")), "counted in the annotations metric")
}

// TestTooLongFirstLineGivesBackItsUsage: CLI >= 2.1.97, every line of a
// response carries its final usage. The first block is a Write of a 300 KB
// file (over Max_Line_Bytes, under Fluent Bit's Buffer_Max_Size 1M):
// dead-lettered, it gives its usage back, and the second line, in Loki,
// ships the whole response once.
func TestTooLongFirstLineGivesBackItsUsage(t *testing.T) {
	big := `{"type":"tool_use","id":"toolu_big","name":"Write","input":{"content":"` + strings.Repeat("x", 300<<10) + `"}}`
	path, data := rvWrite(t,
		rvAssistant(1, 310, big),
		rvAssistant(2, 310, `{"type":"tool_use","id":"toolu_2","name":"Read","input":{}}`),
	)
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	in := 0
	for _, en := range e.cap.entries() {
		t.Logf("in Loki: byte_offset=%s tokens_in=%q tokens_out=%q", en.md["byte_offset"], en.md["tokens_in"], en.md["tokens_out"])
		if v := en.md["tokens_in"]; v != "" {
			n, _ := strconv.Atoi(v)
			in += n
		}
	}
	assert.Equal(t, 12005, in, "the response's prompt, once")
	assert.Equal(t, 310, rvOut(t, e))
}

// TestUnpricedRunIsNotCompared: a run one of whose responses is of a model
// the table lacks (claude-opus-4-20250514): the computed cost is short by
// that response, so the stated cost is shipped but not compared.
func TestUnpricedRunIsNotCompared(t *testing.T) {
	sid := "b7c69dea-b5d8-4bf4-8a69-c2b1a09f34ba"
	a := func(id, model string, out int) string {
		return `{"type":"assistant","message":{"id":"` + id + `","type":"message","role":"assistant","model":"` + model + `","content":[{"type":"text","text":"x"}],"stop_reason":"end_turn","usage":{"input_tokens":1000,"output_tokens":` + strconv.Itoa(out) + `}},"parent_tool_use_id":null,"session_id":"` + sid + `"}`
	}
	// sonnet 4.5: 1000 in * 3/M + 1000 out * 15/M = 0.018; opus 4 unknown.
	lines := []string{
		`{"type":"system","subtype":"init","session_id":"` + sid + `"}`,
		a("m1", "claude-sonnet-4-5-20250929", 1000),
		a("m2", "claude-opus-4-20250514", 1000),
		`{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.108,"session_id":"` + sid + `"}`,
	}
	root := t.TempDir()
	path := filepath.Join(root, "captures", "run.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	data := []byte(strings.Join(lines, "\n") + "\n")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	e := newEnvPriced(t, func(c *Config) { c.Formats.Roots = map[string][]string{"claude-code": {root}} }, pricing.Default())
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	for _, en := range e.cap.entries() {
		t.Logf("role=%s cost=%s annotations=%q reported=%s computed=%s", en.md["role"], en.md["cost_usd"], en.md["annotations"], en.md["reported_cost_usd"], en.md["cost_disagrees"])
		if en.md["role"] == "session_end" {
			assert.NotContains(t, en.md["annotations"], "cost_disagrees", "a run with an unpriced response cannot be compared")
		}
	}
}
