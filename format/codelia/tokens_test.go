package codelia

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInputIsTheWholePrompt: tokens_in counts the cache reads and writes
// once whatever the provider's style: added back for a provider that
// leaves them out (named anthropic, or, when no provider is named or the
// response is judged without its file's state, a claude model), as
// written otherwise.
func TestInputIsTheWholePrompt(t *testing.T) {
	const run = `"run_id":"r1"`
	header := func(model string) string {
		return `{"type":"header","schema_version":1,` + run + `,"started_at":"2026-02-03T12:00:00Z","model":` + model + `}`
	}
	request := `{"type":"llm.request",` + run + `,"ts":"2026-02-03T12:00:01Z","seq":1,"input":{"messages":[]}}`
	response := func(model string) string {
		return `{"type":"llm.response",` + run + `,"ts":"2026-02-03T12:00:02Z","seq":1,"output":{"messages":[],"usage":{"model":"` + model +
			`","input_tokens":100,"input_cached_tokens":800,"input_cache_creation_tokens":50,"output_tokens":7,"total_tokens":107}}}`
	}
	f := New()
	for _, c := range []struct {
		name   string
		lines  []string // judged in order with one state; nil state when one line
		wantIn int64
	}{
		{"anthropic named", []string{header(`{"provider":"anthropic","name":"claude-sonnet-4-5"}`), request, response("claude-sonnet-4-5")}, 950},
		{"openai named", []string{header(`{"provider":"openai","name":"gpt-4.1"}`), request, response("gpt-4.1")}, 100},
		{"named provider wins over the model's name", []string{header(`{"provider":"openrouter","name":"claude-sonnet-4-5"}`), request, response("claude-sonnet-4-5")}, 100},
		{"no provider, a claude model", []string{header(`{"name":"claude-sonnet-4-5"}`), request, response("claude-sonnet-4-5")}, 950},
		{"no provider, another model", []string{header(`{"name":"gpt-4.1"}`), request, response("gpt-4.1")}, 100},
		{"without state, a claude model", []string{response("claude-sonnet-4-5")}, 950},
		{"without state, another model", []string{response("gemini-2.5-pro")}, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := f.NewJudge()
			var st format.State
			if len(c.lines) > 1 {
				p, _ := f.Claim("/data/codelia/sessions/2026/02/03/r1.jsonl")
				st = f.NewState(p)
			}
			var ev format.Event
			for _, l := range c.lines {
				j.Judge([]byte(l), st, integrity.NewArena(4096), &ev)
			}
			require.True(t, ev.Usage.Has)
			assert.Equal(t, c.wantIn, ev.Usage.Input)
			assert.Equal(t, int64(800), ev.Usage.CacheRead)
			assert.Equal(t, int64(50), ev.Usage.CacheWrite)
		})
	}
}
