package codex

import (
	"fmt"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// obj and kv are sample's ordered JSON object and its member.
type (
	obj = sample.Obj
	kv  = sample.KV
)

// tokens are a TokenUsage's counters (total_tokens is input + output).
type tokens struct{ in, cached, out, reasoning int64 }

func (t tokens) add(u tokens) tokens {
	return tokens{t.in + u.in, t.cached + u.cached, t.out + u.out, t.reasoning + u.reasoning}
}

func (t tokens) json() obj {
	return obj{{"input_tokens", t.in}, {"cached_input_tokens", t.cached}, {"output_tokens", t.out},
		{"reasoning_output_tokens", t.reasoning}, {"total_tokens", t.in + t.out}}
}

// rec is one line a rollout holds, with what the generator decided
// happens to its bytes and the truth of it.
type rec struct {
	b   obj    // the line's object (nil when raw)
	raw string // the exact text of a line that is no encoded object
	typ string // the event type the truth expects ("" when corrupt or unknown)

	invalid, unknown, corrupt bool
	notes                     []string // the format's annotations, in the document's order
	ship                      *tokens  // the usage the line ships, nil for none
	model                     string   // the model a shipped usage counts under
	state                     string   // the derived state after the line
	bill                      string   // the billed response ("<session>:<totals>"), "" for none
	copied                    bool     // a copy of another session's line (a fork's history)

	torn  bool // interleaved with the next line: one corrupt line holding both
	crash bool // the process died while writing it: a partial tail
}

// stamp is a line's timestamp as Codex writes it (UTC, milliseconds).
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// era is a CLI generation: what its rollouts write.
type era struct {
	version    string
	taskEvents bool // task_started / task_complete with turn ids (0.100+)
	repeats    bool // a token_count repeat before each response (0.41 to mid-2026)
	phase      bool // assistant messages carry a phase (0.105+; 0.104 alpha writes it)
	perRequest bool // a turn_context before each request (up to 0.106)
	flatLimits bool // 0.40's flat rate_limits
	seeded     bool // a resume continues the totals (0.78+)
}

var (
	era040  = era{version: "0.40.0", perRequest: true, flatLimits: true}
	era0104 = era{version: "0.104.0-alpha.1", taskEvents: true, repeats: true, phase: true, perRequest: true, seeded: true}
	era0135 = era{version: "0.135.0", taskEvents: true, phase: true, seeded: true}
	eras    = []era{era040, era0104, era0135}
)

// rateLimits is a token_count's rate_limits in the era's shape.
func (e era) rateLimits(x *rng) obj {
	used := float64(x.Between(1, 60))
	if e.flatLimits {
		return obj{{"primary_used_percent", used}, {"secondary_used_percent", used / 4}, {"primary_to_secondary_ratio_percent", 21.0},
			{"primary_window_minutes", 300}, {"secondary_window_minutes", 10080}}
	}
	return obj{{"limit_id", "codex"}, {"limit_name", nil}, {"primary", obj{{"used_percent", used}, {"window_minutes", 300}, {"resets_at", 1771851600 + x.Intn(9000)}}},
		{"secondary", obj{{"used_percent", used / 4}, {"window_minutes", 10080}, {"resets_at", 1772300000}}}, {"credits", nil}, {"plan_type", "pro"}}
}

// uuidV7 is a thread id as Codex 0.4x and later writes them: UUIDv7 of t.
func uuidV7(x *rng, t time.Time) string {
	ms := uint64(t.UnixMilli())
	return fmt.Sprintf("%08x-%04x-7%03x-%04x-%012x", ms>>16, ms&0xffff, x.Intn(1<<12), 0x8000|x.Intn(1<<14), x.Uint64()&(1<<48-1))
}

// rel is the rollout's path under the Codex home: its session's start in
// the name (the generator writes it in UTC; Codex writes local time).
func rel(start time.Time, id string) string {
	t := start.UTC()
	return fmt.Sprintf("sessions/%s/rollout-%s-%s.jsonl", t.Format("2006/01/02"), t.Format("2006-01-02T15-04-05"), id)
}

// words are the texts prompts and answers are made of.
var words = strings.Fields("the retry loop in client.go backs off exponentially but the jitter is computed before the cap " +
	"so the login test times out under load fix the comparison and add a table test for each case then run go vet")

func text(x *rng, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[x.Intn(len(words))]
	}
	return strings.Join(w, " ")
}
