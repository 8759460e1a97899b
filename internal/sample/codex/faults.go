package codex

import "fmt"

// The annotation kinds the truth expects (sample.Line.Expect), in the
// order a line lists them: the neutral ones first, then the format's in
// the order of docs/formats/codex.md's table.
const (
	AnnSessionIDMismatch     = "session_id_mismatch"
	AnnToolResultWithoutCall = "tool_result_without_call"
	AnnPayloadTypeUnknown    = "payload_type_unknown"
	AnnUsageReset            = "usage_reset"
	AnnUsageInconsistent     = "usage_inconsistent"
)

// resume is the session taken up again after a break, in the same file:
// no new session_meta. A CLI before 0.78 restarts the totals at zero (the
// next response's token_count then expects usage_reset); later ones
// continue them.
func (s *session) resume() {
	s.clock = s.clock.Add(s.x.Secs(300, 1200))
	if !s.era.seeded {
		s.total, s.hasTotal, s.reset = tokens{}, false, true
	}
	s.fullTurn(s.x.Between(1, 2), true)
}

// abort is an interrupted turn as CLI 0.40 writes it: the response's
// usage, turn_aborted, then the rest of the response (a patch the user
// rejected): idle from the abort on.
func (s *session) abort() {
	s.turn(false)
	s.toolRound(true)
	s.request(false)
	r := s.add("event_msg", obj{{"type", "agent_reasoning"}, {"text", "**Patching**"}}, "agent_reasoning")
	s.to(r, StateThinking)
	s.respond(s.usage())
	p := obj{{"type", "turn_aborted"}}
	if s.era.taskEvents {
		p = append(p, kv{"turn_id", s.turnID})
	}
	s.endTurn(s.add("event_msg", append(p, kv{"reason", "interrupted"}), "turn_aborted"))
	s.aborted = true
	s.reasoning()
	id := s.call("apply_patch", `{"input":"*** Begin Patch"}`)
	s.output(id, "function_call_output", "patch rejected by user")
}

// compact is a remote compaction inside a turn: compacted with the
// replacement history, context_compacted, a token_count whose totals
// are unchanged (its last usage the new context's estimate: nothing
// ships) and a new turn_context.
func (s *session) compact() {
	s.tick(1000, 5000)
	r := s.add("compacted", obj{{"message", ""}, {"replacement_history", []obj{
		{{"type", "message"}, {"role", "user"}, {"content", []obj{{{"type", "input_text"}, {"text", "the login test fails"}}}}}}}}, "compacted")
	s.to(r, StateThinking)
	s.to(s.add("event_msg", obj{{"type", "context_compacted"}}, "context_compacted"), StateThinking)
	s.context = int64(s.x.Between(6000, 12000))
	est := tokens{}.json()
	est[4] = kv{"total_tokens", s.context}
	s.add("event_msg", obj{{"type", "token_count"}, {"info", obj{{"total_token_usage", s.total.json()}, {"last_token_usage", est},
		{"model_context_window", 258400}}}, {"rate_limits", s.era.rateLimits(s.x)}}, "token_count")
	s.turnContext()
}

// damage writes the faults of a damaged rollout into a turn: a line torn
// by the next one, a line without a type, a type journalship does not
// know, a payload type it does not know, an output whose call is not in
// the file, and a token_count with a counter written as a string (schema
// invalid: its response is counted by the next one, usage_inconsistent).
func (s *session) damage() {
	s.turn(false)
	s.toolRound(true)
	r := s.add("event_msg", obj{{"type", "agent_reasoning"}, {"text", "torn"}}, "")
	r.torn = true
	s.add("event_msg", obj{{"type", "agent_reasoning"}, {"text", "swallowed"}}, "")
	s.recs = append(s.recs, &rec{raw: `{"timestamp":"` + stamp(s.clock) + `","payload":{"type":"agent_reasoning","text":"no type"}}`, corrupt: true})
	r = s.add("token_usage_record", obj{{"response_id", "resp_" + s.x.Chars(16, "0123456789abcdef")}}, "")
	r.unknown = true
	r = s.add("event_msg", obj{{"type", "thread_settings_applied"}, {"service_tier", "fast"}}, "")
	r.notes = append(r.notes, AnnPayloadTypeUnknown)
	r = s.add("response_item", obj{{"type", "function_call_output"}, {"call_id", s.x.callID()}, {"output", "late"}}, "function_call_output")
	r.notes = append(r.notes, AnnToolResultWithoutCall)
	s.to(r, StateThinking)
	// The schema-invalid token_count.
	s.request(false)
	u := s.usage()
	s.total, s.last = s.total.add(u), u
	tot := s.total.json()
	tot[2] = kv{"output_tokens", fmt.Sprint(s.total.out)}
	r = s.add("event_msg", obj{{"type", "token_count"}, {"info", obj{{"total_token_usage", tot}, {"last_token_usage", u.json()},
		{"model_context_window", 258400}}}, {"rate_limits", nil}}, "token_count")
	r.invalid = true
	s.extra = s.extra.add(u)
	s.answer(false)
}

// crash ends the rollout inside a turn: a call whose output the process
// died writing (a partial last line); the call stays unanswered.
func (s *session) crash() {
	s.turn(false)
	s.request(true)
	s.reasoning()
	id := s.call("exec_command", `{"cmd":"go test -count=1 ./...","workdir":"/home/dev/app"}`)
	s.respond(s.usage())
	s.tick(20000, 90000)
	r := s.add("response_item", obj{{"type", "function_call_output"}, {"call_id", id}, {"output", text(s.x, 40)}}, "function_call_output")
	r.crash = true
}
