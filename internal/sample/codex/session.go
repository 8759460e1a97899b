package codex

import (
	"fmt"
	"time"
)

// Derived states.
const (
	StateIdle     = "idle"
	StateActing   = "acting"
	StateThinking = "thinking"
)

// session is one rollout being written: its lines, the runtime's token
// totals, and the truth the rules of docs/formats/codex.md give for each
// line as the generator writes it.
type session struct {
	x      *rng
	id     string
	start  time.Time
	clock  time.Time
	era    era
	model  string
	models []string
	recs   []*rec

	// The runtime's view.
	total, last tokens
	hasTotal    bool
	context     int64 // the prompt of the next request
	turnID      string

	// The truth's view (docs/formats/codex.md, The rules).
	base    tokens // the totals the file's previous counted token_count stated
	hasBase bool
	extra   tokens // responses a schema-invalid token_count left uncounted
	reset   bool   // the totals restarted (a resume before 0.78)
	// origin is the session whose history the lines written now belong
	// to (a fork's own lines follow its parent's session_meta): "" for
	// the session itself.
	origin string
	// The runtime's view when a fork copied the file (snap).
	snapTotal, snapLast tokens
	snapContext         int64
	snapModel           string
	live                map[string]bool
	aborted             bool
	state               string
}

func newSession(x *rng, e era, model string, models []string, at time.Time) *session {
	s := &session{x: x, start: at, clock: at, era: e, model: model, models: models, state: StateIdle,
		live: map[string]bool{}, context: int64(x.Between(9000, 16000))}
	s.id = uuidV7(x, at)
	return s
}

// tick advances the clock by lo to hi milliseconds.
func (s *session) tick(lo, hi int) time.Time {
	s.clock = s.clock.Add(s.x.Millis(lo, hi))
	return s.clock
}

// add appends a line of envelope type typ with payload p; event is the
// event type the truth expects.
func (s *session) add(typ string, p obj, event string) *rec {
	r := &rec{b: obj{{"timestamp", stamp(s.clock)}, {"type", typ}, {"payload", p}}, typ: event, state: s.state}
	s.recs = append(s.recs, r)
	return r
}

// to moves the derived state and records it on r.
func (s *session) to(r *rec, state string) {
	s.state, r.state = state, state
}

func (s *session) meta(originator, source string) {
	p := obj{{"id", s.id}, {"timestamp", stamp(s.clock.Add(-12 * time.Millisecond))}, {"cwd", "/home/dev/app"},
		{"originator", originator}, {"cli_version", s.era.version}}
	if s.era == era040 {
		p = append(p, kv{"instructions", nil})
	} else {
		p = append(p, kv{"source", source}, kv{"model_provider", "openai"}, kv{"base_instructions", obj{{"text", "You are Codex, a coding agent."}}})
	}
	p = append(p, kv{"git", obj{{"commit_hash", fmt.Sprintf("%040x", s.x.Uint64())}, {"branch", "main"}}})
	s.add("session_meta", p, "session_meta")
}

func (s *session) turnContext() {
	p := obj{}
	if s.era.taskEvents {
		p = append(p, kv{"turn_id", s.turnID})
	}
	sandbox := obj{{"type", "workspace-write"}, {"writable_roots", []string{}}, {"network_access", false}}
	if s.era == era040 {
		sandbox = obj{{"mode", "workspace-write"}, {"network_access", false}}
	}
	p = append(p, kv{"cwd", "/home/dev/app"}, kv{"approval_policy", "on-request"}, kv{"sandbox_policy", sandbox},
		kv{"model", s.model}, kv{"effort", "high"}, kv{"summary", "auto"})
	r := s.add("turn_context", p, "turn_context")
	r.model = s.model // the line names it: it ships as its model
	s.aborted = false
	s.to(r, StateThinking)
}

func (s *session) message(role, content, phase string) *rec {
	typ := "input_text"
	if role == "assistant" {
		typ = "output_text"
	}
	p := obj{{"type", "message"}, {"role", role}, {"content", []obj{{{"type", typ}, {"text", content}}}}}
	if phase != "" {
		p = append(p, kv{"phase", phase})
	}
	return s.add("response_item", p, "message")
}

// turn begins a user turn: task_started (0.100+), turn_context, the
// context and the prompt.
func (s *session) turn(resumed bool) {
	s.tick(2000, 30000)
	s.turnID = uuidV7(s.x, s.clock)
	if s.era.taskEvents {
		r := s.add("event_msg", obj{{"type", "task_started"}, {"turn_id", s.turnID}, {"model_context_window", 258400},
			{"collaboration_mode_kind", "default"}}, "task_started")
		s.aborted = false
		s.to(r, StateThinking)
	}
	s.turnContext()
	if resumed || len(s.recs) <= 3 {
		s.to(s.message("user", "<environment_context>\n  <cwd>/home/dev/app</cwd>\n</environment_context>", ""), StateThinking)
	}
	prompt := text(s.x, s.x.Between(6, 20))
	s.to(s.message("user", prompt, ""), StateThinking)
	u := obj{{"type", "user_message"}, {"message", prompt}}
	if s.era == era040 {
		u = append(u, kv{"kind", "plain"})
	} else {
		u = append(u, kv{"images", []string{}})
	}
	s.to(s.add("event_msg", u, "user_message"), StateThinking)
}

// request starts a model request: the era's turn_context and rate-limit
// repeat.
func (s *session) request(first bool) {
	s.tick(300, 2000)
	if s.era.perRequest && !first {
		s.turnContext()
	}
	if s.era.repeats {
		s.repeat()
	}
}

// usage is a response's usage: the context read (mostly cached), the
// output (part of it reasoning).
func (s *session) usage() tokens {
	out := int64(s.x.Between(40, 900))
	u := tokens{in: s.context, cached: s.context - int64(s.x.Between(300, 3000)), out: out, reasoning: out * int64(s.x.Between(0, 80)) / 100}
	u.cached = max(0, u.cached) / 128 * 128
	s.context += out + int64(s.x.Between(200, 6000))
	return u
}

// tokenCount writes a token_count stating the runtime's totals and last
// usage (info null before any).
func (s *session) tokenCount() *rec {
	p := obj{{"type", "token_count"}}
	if s.hasTotal {
		p = append(p, kv{"info", obj{{"total_token_usage", s.total.json()}, {"last_token_usage", s.last.json()}, {"model_context_window", 258400}}})
	} else {
		p = append(p, kv{"info", nil})
	}
	p = append(p, kv{"rate_limits", s.era.rateLimits(s.x)})
	return s.add("event_msg", p, "token_count")
}

// repeat writes a token_count with unchanged totals (rate limits): it
// ships nothing.
func (s *session) repeat() { s.tokenCount() }

// respond records a response's usage: a token_count that ships how far
// the totals grew past the file's previous ones.
func (s *session) respond(u tokens) *rec {
	s.total, s.last, s.hasTotal = s.total.add(u), u, true
	r := s.tokenCount()
	s.count(r, u)
	return r
}

// count sets the truth of a token_count that brought the totals to
// s.total after a response of usage u.
func (s *session) count(r *rec, u tokens) {
	ship := u
	if s.reset {
		r.notes = append(r.notes, AnnUsageReset)
		s.reset = false
	}
	if s.extra != (tokens{}) {
		ship = u.add(s.extra)
		r.notes = append(r.notes, AnnUsageInconsistent)
		s.extra = tokens{}
	}
	s.base, s.hasBase = s.total, true
	r.ship, r.model = &ship, s.model
	r.bill = s.billKey()
}

// billKey names the response whose usage brought the totals to s.total,
// in the session whose history it is.
func (s *session) billKey() string {
	t, id := s.total, s.id
	if s.origin != "" {
		id = s.origin
	}
	return fmt.Sprintf("%s:%d/%d/%d/%d", id, t.in, t.cached, t.out, t.reasoning)
}

// call issues a tool call.
func (s *session) call(name, args string) string {
	id := s.x.callID()
	r := s.add("response_item", obj{{"type", "function_call"}, {"name", name}, {"arguments", args}, {"call_id", id}}, "function_call")
	if !s.aborted {
		s.live[id] = true
		s.to(r, StateActing)
	}
	return id
}

// patch issues an apply_patch custom tool call.
func (s *session) patch() string {
	id := s.x.callID()
	r := s.add("response_item", obj{{"type", "custom_tool_call"}, {"status", "completed"}, {"call_id", id}, {"name", "apply_patch"},
		{"input", "*** Begin Patch\n*** Update File: client.go\n@@\n-\tdelay := base << attempt\n+\tdelay := min(base<<attempt, maxDelay)\n*** End Patch"}}, "custom_tool_call")
	if !s.aborted {
		s.live[id] = true
		s.to(r, StateActing)
	}
	return id
}

// output answers call id.
func (s *session) output(id, typ, out string) {
	r := s.add("response_item", obj{{"type", typ}, {"call_id", id}, {"output", out}}, typ)
	delete(s.live, id)
	if !s.aborted {
		if len(s.live) > 0 {
			s.to(r, StateActing)
		} else {
			s.to(r, StateThinking)
		}
	}
}

// reasoning writes the agent_reasoning event and the reasoning item.
func (s *session) reasoning() {
	r := s.add("event_msg", obj{{"type", "agent_reasoning"}, {"text", "**" + text(s.x, 3) + "**"}}, "agent_reasoning")
	if !s.aborted {
		s.to(r, StateThinking)
	}
	r = s.add("response_item", obj{{"type", "reasoning"}, {"summary", []obj{{{"type", "summary_text"}, {"text", "**Planning**"}}}},
		{"content", nil}, {"encrypted_content", "gAAAAB" + s.x.Chars(80, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}}, "reasoning")
	if !s.aborted {
		s.to(r, StateThinking)
	}
}

// toolRound is one response that calls one or two tools (or apply_patch),
// then the tools' outputs.
func (s *session) toolRound(first bool) {
	s.request(first)
	s.reasoning()
	var ids []string
	var types []string
	if s.x.Chance(0.25) {
		ids, types = append(ids, s.patch()), append(types, "custom_tool_call_output")
	} else {
		for range s.x.Between(1, 2) {
			ids = append(ids, s.call("exec_command", `{"cmd":"go test ./...","workdir":"/home/dev/app"}`))
			types = append(types, "function_call_output")
		}
	}
	s.respond(s.usage())
	s.tick(500, 8000)
	for i, id := range ids {
		s.output(id, types[i], "ok  \texample.com/app\t0.4"+fmt.Sprint(s.x.Intn(10))+"s")
	}
}

// answer is the turn's final response: the message to the user and its
// usage, then task_complete (0.100+).
func (s *session) answer(first bool) {
	s.request(first)
	msg := text(s.x, s.x.Between(5, 15))
	phase := ""
	if s.era.phase {
		phase = "final_answer"
	}
	ev := obj{{"type", "agent_message"}, {"message", msg}}
	if phase != "" {
		ev = append(ev, kv{"phase", phase})
	}
	s.answered(s.add("event_msg", ev, "agent_message"))
	if s.era == era040 {
		s.respond(s.usage())
		s.reasoning()
		s.answered(s.message("assistant", msg, ""))
	} else {
		s.answered(s.message("assistant", msg, phase))
		s.respond(s.usage())
	}
	if s.era.taskEvents {
		s.endTurn(s.add("event_msg", obj{{"type", "task_complete"}, {"turn_id", s.turnID}, {"last_agent_message", msg}}, "task_complete"))
	}
}

// answered moves the state after the model's message to the user.
func (s *session) answered(r *rec) {
	switch {
	case s.aborted:
	case len(s.live) > 0:
		s.to(r, StateActing)
	default:
		s.to(r, StateIdle)
	}
}

// endTurn closes the turn (task_complete, turn_aborted): its unanswered
// calls no longer keep the session acting.
func (s *session) endTurn(r *rec) {
	clear(s.live)
	s.to(r, StateIdle)
}

// fullTurn is a turn of n tool rounds and an answer.
func (s *session) fullTurn(n int, resumed bool) {
	s.turn(resumed)
	for k := range n {
		s.toolRound(k == 0)
	}
	s.answer(n == 0)
}
