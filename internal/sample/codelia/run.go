package codelia

import (
	"time"
)

// session is a conversation: runs that share a session_id, their history
// and their invocation numbering (which continues from run to run, as the
// state snapshot's invoke_seq says).
type session struct {
	id        string
	host      *host
	runs      int
	invokeSeq int64
	history   []obj // the user's inputs and the final answers of earlier runs
	lastRun   string
	updated   time.Time
}

// host is where the runtime runs: the machine, the user and the
// repository.
type host struct {
	th        *theme
	cwd       string
	os, arch  string
	client    string
	system    string
	baseToken int64 // tokens of the system prompt and tool definitions
}

// run builds the records of one run in append order.
type run struct {
	x       *rng
	id      string
	sess    *session // nil for a run without a session (prompt mode)
	host    *host
	model   string
	prov    provider
	version string // Codelia's version
	clock   time.Time
	recs    []*rec

	reqSeq   int64  // the last llm.request seq written
	evSeq    int64  // the next agent.event seq
	messages []obj  // the run's conversation, sent with each llm.request
	prompt   int64  // prompt tokens of the next invocation
	prev     int64  // prompt tokens of the previous invocation (0: none yet)
	input    string // the user's input as sent to the model
	final    string // the final answer, "" when the run gave none
	v2       bool   // writes schema version 2 records (tool.output result objects)

	fileID string    // the file name's run_id: id, unless misfiled
	dir    time.Time // the date of the file's directories: started_at's, unless misfiled
}

// ts is the run's clock as Codelia writes it.
func (r *run) ts() string { return r.clock.UTC().Format(tsLayout) }

// wait advances the clock by lo to hi milliseconds.
func (r *run) wait(lo, hi int) { r.clock = r.clock.Add(ms(r.x.Between(lo, hi))) }

// add appends a record stamped with the clock: type, run_id, ts, then
// seq when seq >= 0, then fields.
func (r *run) add(typ string, seq int64, fields obj) *rec {
	body := obj{{"type", typ}, {"run_id", r.id}, {"ts", r.ts()}}
	if seq >= 0 {
		body = append(body, kv{"seq", seq})
	}
	rc := &rec{typ: typ, body: append(body, fields...), ts: r.clock, seq: seq, runID: r.id}
	r.recs = append(r.recs, rc)
	return rc
}

// sessionID is the run's session_id, "" without a session.
func (r *run) sessionID() string {
	if r.sess == nil {
		return ""
	}
	return r.sess.id
}

// modelRef is the model object of the header and of llm.request.
func (r *run) modelRef() obj {
	o := obj{{"provider", r.prov.name}, {"name", r.model}}
	if r.prov.reasoning != "" {
		o = append(o, kv{"reasoning", r.prov.reasoning})
	}
	return o
}

// header appends the run's header, written when the file is created.
func (r *run) header(version int64) *rec {
	h := r.host
	body := obj{{"type", typeHeader}, {"schema_version", version}, {"run_id", r.id}}
	if sid := r.sessionID(); sid != "" {
		body = append(body, kv{"session_id", sid})
	}
	body = append(body,
		kv{"started_at", r.ts()},
		kv{"client", obj{{"name", h.client}, {"version", r.version}}},
		kv{"server", obj{{"name", "runtime"}, {"version", r.version}}},
		kv{"model", r.modelRef()},
		kv{"prompts", obj{{"system", h.system}}},
		kv{"tools", obj{{"source", "builtin"}, {"definitions", toolNames()}}},
		kv{"runtime", obj{{"cwd", h.cwd}, {"os", h.os}, {"arch", h.arch}, {"version", r.version}}},
	)
	rc := &rec{typ: typeHeader, body: body, ts: r.clock, seq: -1, runID: r.id, version: version,
		sessionID: r.sessionID(), model: r.model}
	r.recs = append(r.recs, rc)
	return rc
}

// toolNames is the header's tools.definitions: the tools by name.
func toolNames() []obj {
	out := make([]obj, 0, len(toolDefs))
	for _, d := range toolDefs {
		out = append(out, obj{{"name", d.Get("function").(obj).Get("name")}})
	}
	return out
}

// start appends run.start with the user's text, and opens the
// conversation.
func (r *run) start(text string) *rec {
	r.wait(120, 600)
	return r.startWith(obj{{"type", "text"}, {"text", text}}, "text", text)
}

// startWith appends run.start with any input; text is what the model is
// sent. session_id follows run_id, as in the spec's type.
func (r *run) startWith(input obj, inputType, text string) *rec {
	body := obj{{"type", typeRunStart}, {"run_id", r.id}}
	if sid := r.sessionID(); sid != "" {
		body = append(body, kv{"session_id", sid})
	}
	body = append(body, kv{"ts", r.ts()}, kv{"input", input}, kv{"ui_context", obj{{"cwd", r.host.cwd}}})
	rc := &rec{typ: typeRunStart, body: body, ts: r.clock, seq: -1, runID: r.id,
		sessionID: r.sessionID(), inputType: inputType}
	r.recs = append(r.recs, rc)
	r.messages = append(r.messages, obj{{"role", "system"}, {"content", r.host.system}})
	r.prompt = r.host.baseToken
	if r.sess != nil {
		r.messages = append(r.messages, r.sess.history...)
		r.prompt += tokensOf(r.sess.history...)
	}
	r.input = text
	user := obj{{"role", "user"}, {"content", text}}
	r.messages = append(r.messages, user)
	r.prompt += tokensOf(user)
	return rc
}

// status appends run.status; message "" is left out.
func (r *run) status(value, message string) *rec {
	r.wait(2, 40)
	fields := obj{{"status", value}}
	if message != "" {
		fields = append(fields, kv{"message", message})
	}
	rc := r.add(typeRunStatus, -1, fields)
	rc.status = value
	return rc
}

// context appends run.context with the share of the context window left.
func (r *run) context() *rec {
	r.wait(1, 15)
	left := 100 - float64(r.prompt*1000/200000)/10
	return r.add(typeRunContext, -1, obj{{"context_left_percent", left}})
}

// end appends run.end; final "" is left out.
func (r *run) end(outcome, final string) *rec {
	r.wait(1, 30)
	fields := obj{{"outcome", outcome}}
	if final != "" {
		fields = append(fields, kv{"final", final})
	}
	rc := r.add(typeRunEnd, -1, fields)
	rc.status = outcome
	return rc
}

// runError appends run.error.
func (r *run) runError(name, message string) *rec {
	r.wait(5, 80)
	return r.add(typeRunError, -1, obj{{"error", obj{{"name", name}, {"message", message}}}})
}

// event appends an agent.event with the next event seq.
func (r *run) event(ev obj) *rec {
	r.wait(1, 25)
	rc := r.add(typeAgentEvent, r.evSeq, obj{{"event", ev}})
	r.evSeq++
	return rc
}
