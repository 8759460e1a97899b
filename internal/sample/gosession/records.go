package gosession

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// rec is one line the runtime meant to write to messages.jsonl, with the
// facts the truth needs, recorded as the generator decides them (never
// read back from the bytes).
type rec struct {
	b   obj    // the object written (nil when raw is)
	raw string // the exact text of a line that is no object Marshal writes

	// What a reader can learn of the line.
	corrupt bool      // not JSON, or no string role
	invalid bool      // a rule of the document's section 3 broken
	dupKey  bool      // a field journalship reads written twice
	role    string    // the role as written
	uuid    string    // the uuid, when a non-empty string
	at      time.Time // the timestamp, when hasAt
	hasAt   bool
	calls   []string // tool_calls entries with a non-empty string id, in order
	entries int      // tool_calls entries, valid or not
	answers string   // a tool message's tool_call_id, when a non-empty string

	// nested: the message's own fields are in "message" (Goat's
	// MessageEntry), else beside uuid and timestamp (the spec's shape).
	nested bool

	// What happened to its bytes.
	lost  bool // the write was dropped (lock timeout, full disk)
	crash bool // the process died while writing it: the file ends in its prefix
	torn  bool // cut short, the next line written right after it, on the same line
}

// call is one tool call an assistant message issues, with the output of
// its tool message.
type call struct {
	id, name string
	args     obj
	out      string
	run      [2]time.Duration // how long the tool takes, at least and at most
	edit     *task            // an edit: its task (a checkpoint saves the file first)
}

// stamp writes t as Go's encoding/json writes a time.Time: RFC 3339 with
// nanoseconds (trailing zeros dropped) and the session's offset.
func (s *session) stamp(t time.Time) string { return t.In(s.loc).Format(time.RFC3339Nano) }

// msg appends a message of role at the clock: uuid, timestamp, then role
// and members, flat or (s.nested, as Goat's store writes a MessageEntry)
// in "message".
func (s *session) msg(role string, members ...kv) *rec {
	r := &rec{role: role, uuid: s.x.UUIDv4(), at: s.clock, hasAt: true, nested: s.nested}
	r.b = obj{{"uuid", r.uuid}, {"timestamp", s.stamp(s.clock)}}
	fields := append(obj{{"role", role}}, members...)
	if s.nested {
		r.b = append(r.b, kv{"message", fields})
	} else {
		r.b = append(r.b, fields...)
	}
	s.recs = append(s.recs, r)
	return r
}

// message returns the object holding the message's own fields (role,
// content, tool_calls, tool_call_id, name): "message" when nested, else
// the line.
func (r *rec) message() obj {
	if r.nested {
		return r.b.Get("message").(obj)
	}
	return r.b
}

// editMessage replaces the message's own fields by f's result, where they
// are written.
func (r *rec) editMessage(f func(obj) obj) {
	if !r.nested {
		r.b = f(r.b)
		return
	}
	r.b = set(r.b, "message", f(r.message()))
}

// user appends the user's message (and its SDK copy).
func (s *session) user(text string) *rec {
	r := s.msg("user", kv{"content", text})
	s.sdk(obj{{"type", "user"}, {"uuid", r.uuid}, {"session_id", s.id},
		{"message", obj{{"role", "user"}, {"content", text}}}, {"parent_tool_use_id", nil}})
	return r
}

// assistant appends a model response: text, then the calls in OpenAI
// shape. A response that only calls tools has "" or null content, as the
// session's runtime writes it; some write content as an array of parts.
func (s *session) assistant(text string, calls []call) *rec {
	var content any = text
	switch {
	case text == "" && s.nullContent:
		content = nil
	case text != "" && s.parts:
		content = []obj{{{"type", "text"}, {"text", text}}}
	}
	members := []kv{{"content", content}}
	blocks := []obj{}
	if text != "" {
		blocks = append(blocks, obj{{"type", "text"}, {"text", text}})
	}
	var ids []string
	if len(calls) > 0 {
		tc := make([]obj, len(calls))
		for i, c := range calls {
			args, _ := sample.Marshal(c.args)
			tc[i] = obj{{"id", c.id}, {"type", "function"}, {"function", obj{{"name", c.name}, {"arguments", string(args)}}}}
			blocks = append(blocks, obj{{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", c.args}})
			ids = append(ids, c.id)
		}
		members = append(members, kv{"tool_calls", tc})
	}
	m := s.msg("assistant", members...)
	m.calls, m.entries = ids, len(calls)
	s.turns++
	s.micros += s.x.price(s.model)
	s.sdk(obj{{"type", "assistant"}, {"uuid", m.uuid}, {"session_id", s.id},
		{"message", obj{{"role", "assistant"}, {"model", s.model}, {"content", blocks}}}, {"parent_tool_use_id", nil}})
	return m
}

// tool appends the tool message answering c.
func (s *session) tool(c call) *rec {
	members := []kv{{"tool_call_id", c.id}}
	if s.toolName {
		members = append(members, kv{"name", c.name})
	}
	r := s.msg("tool", append(members, kv{"content", c.out})...)
	r.answers = c.id
	s.sdk(obj{{"type", "user"}, {"uuid", r.uuid}, {"session_id", s.id},
		{"message", obj{{"role", "user"}, {"content", []obj{{{"type", "tool_result"}, {"tool_use_id", c.id}, {"content", c.out}}}}}},
		{"parent_tool_use_id", nil}})
	return r
}

// system appends the system prompt, as the run starts.
func (s *session) system() *rec {
	s.tick(time.Millisecond, 60*time.Millisecond)
	return s.msg("system", kv{"content", s.th.system})
}

// sdk appends an SDK message to transcript.jsonl, when the session keeps
// one.
func (s *session) sdk(o obj) {
	if s.transcript {
		s.tr = append(s.tr, o)
	}
}

// price is the cost of one model response in micro-dollars, by the
// model's tier.
func (x *rng) price(model string) int64 {
	lo, hi := 4000, 28000 // micro-dollars: Sonnet
	switch {
	case len(model) >= 11 && model[:11] == "claude-opus":
		lo, hi = 18000, 90000
	case len(model) >= 12 && model[:12] == "claude-haiku":
		lo, hi = 900, 6000
	}
	return int64(x.Between(lo, hi))
}

// without returns o without its member k.
func without(o obj, k string) obj {
	out := make(obj, 0, len(o))
	for _, m := range o {
		if m.K != k {
			out = append(out, m)
		}
	}
	return out
}

// set returns o with member k's value replaced by v.
func set(o obj, k string, v any) obj {
	out := append(obj(nil), o...)
	for i := range out {
		if out[i].K == k {
			out[i].V = v
		}
	}
	return out
}
