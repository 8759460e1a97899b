package orbitmesh

import (
	"fmt"
	"time"
)

// The record kinds of the runtime's message log (OrbitMesh's
// domain.MessageKind).
const (
	KindUser         = "user"
	KindOutput       = "output"
	KindThought      = "thought"
	KindToolUse      = "tool_use"
	KindError        = "error"
	KindSystem       = "system"
	KindPlan         = "plan"
	KindMetric       = "metric"
	TypeRuntimeError = "runtime_error" // the event_type of kind error
)

// The projections of the runtime's records.
const (
	ProjectionAppend      = "append"
	ProjectionRaw         = "append_raw"
	ProjectionOutputDelta = "append_output_delta"
)

// Terminal reasons of a run attempt (SaveRunAttempt).
const (
	ReasonCompleted   = "completed"
	ReasonFailed      = "failed"
	ReasonCancelled   = "cancelled"
	ReasonInterrupted = "interrupted"
)

// Providers of a runtime-shaped session: a Claude CLI whose stream-json
// events land in raw, or an ACP agent whose session updates do.
const (
	ProviderClaude = "claude"
	ProviderACP    = "acp"
)

// tokenLifetime is how long a resume token stays valid.
const tokenLifetime = 24 * time.Hour

// logRecord is one line as AppendMessageLog marshals it.
type logRecord struct {
	Seq        int64  `json:"seq"`
	Timestamp  string `json:"timestamp"`
	Projection string `json:"projection"`
	Kind       string `json:"kind"`
	Contents   string `json:"contents"`
	Raw        any    `json:"raw,omitempty"`
}

// rrec is one record of the runtime's log with what the truth needs of
// it.
type rrec struct {
	r     logRecord
	at    time.Time
	model string // the model raw names ("" when none)
	usage *usage // a Claude message_start's or message_delta's usage
	start bool   // usage is a message_start's
	resp  string // the response's message id (message_start)
	lost  bool   // never reached the file (a seq gap)
	crash bool   // the process died appending it: the file's partial tail
}

// usage is a Claude usage object as written.
type usage struct {
	in, out, cacheRead, cacheWrite, write1h int64
	split                                   bool // written with its cache_creation 5m/1h split
}

// attempt is one run attempt's file.
type attempt struct {
	id, boot                  string
	started, ended, heartbeat time.Time
	terminal, interruption    string
	waitKind, tokenID         string
}

// rtoken is one resume token's file.
type rtoken struct {
	id, attemptID                       string
	created, expires, consumed, revoked time.Time
	revocation                          string
}

// transition is one state change of the session document.
type transition struct {
	from, to, reason string
	at               time.Time
}

// rsession builds one session the way OrbitMesh's storage writes it today:
// the log, the session document, the attempts and the resume tokens.
type rsession struct {
	x        *rng
	th       theme
	id       string
	provider string
	model    string // the Claude model of the session's responses
	helper   string // the model of a Task subagent's responses
	created  time.Time
	clock    time.Time
	recs     []*rrec
	next     int64
	boot     string
	attempts []*attempt
	cur      *attempt
	tokens   []*rtoken
	trans    []transition
	state    string // the document's state: idle, running, suspended
	docTorn  bool   // the document is caught half-rewritten
	scenario string
	doing    task

	streaming  response // the Claude response being streamed
	cliSession string   // the Claude CLI's own session id
}

func newRSession(x *rng, id, provider, model string, at time.Time) *rsession {
	s := &rsession{x: x, th: newTheme(x), id: id, provider: provider, model: model, helper: HelperModel,
		created: at, clock: at, next: 1, state: "idle"}
	s.boot = x.Chars(32, hexAlphabet)
	s.cliSession = x.UUIDv4()
	return s
}

// tick advances the clock by d and a few microseconds: the runtime
// stamps records with Go's nanosecond clock.
func (s *rsession) tick(d time.Duration) {
	s.clock = s.clock.Add(d + time.Duration(s.x.Intn(1_000_000)))
}

// add appends a record at the current time with the next seq.
func (s *rsession) add(projection, kind, contents string, raw any) *rrec {
	r := &rrec{at: s.clock, r: logRecord{Seq: s.next, Timestamp: s.clock.Format(time.RFC3339Nano),
		Projection: projection, Kind: kind, Contents: contents, Raw: raw}}
	s.next++
	s.recs = append(s.recs, r)
	return r
}

// lastAt is the time of the last record appended.
func (s *rsession) lastAt() time.Time { return s.recs[len(s.recs)-1].at }

// moveTo records a state change of the session document.
func (s *rsession) moveTo(to, reason string) {
	s.trans = append(s.trans, transition{from: s.state, to: to, reason: reason, at: s.clock})
	s.state = to
}

// begin starts a run attempt for the user's prompt: the attempt file,
// the document's transition to running, then the user's record.
func (s *rsession) begin(prompt string) {
	s.tick(s.x.Millis(1, 6))
	s.cur = &attempt{id: s.x.Chars(24, hexAlphabet), boot: s.boot, started: s.clock}
	s.attempts = append(s.attempts, s.cur)
	s.tick(s.x.Millis(0, 4))
	s.add(ProjectionAppend, KindUser, prompt, nil)
	s.tick(s.x.Millis(1, 4))
	s.moveTo("running", "session started")
}

// end ends the current attempt with reason at the last record's time
// (final: the session's last record is the attempt's end) or a moment
// after it.
func (s *rsession) end(reason, detail, docReason string, final bool) {
	a := s.cur
	a.ended = s.lastAt()
	if !final {
		a.ended = a.ended.Add(s.x.Millis(1, 8))
	}
	if s.clock.Before(a.ended) {
		s.clock = a.ended
	}
	a.heartbeat, a.terminal, a.interruption = a.ended, reason, detail
	s.moveTo("idle", docReason)
	s.cur = nil
}

// pause is the user's pause between two attempts.
func (s *rsession) pause() { s.tick(s.x.Secs(15, 120)) }

// cleanRuntime is a session without faults: one to three attempts, the
// last ending completed (most), failed or cancelled.
func (s *rsession) cleanRuntime() {
	s.scenario = "clean"
	n := s.x.Between(1, 3)
	for i := range n {
		if i > 0 {
			s.pause()
		}
		s.ask(i == 0)
		s.work(i == 0, s.x.Between(1, 3))
		last := i == n-1
		switch k := 0; {
		case last:
			k = s.x.Weighted(80, 10, 10)
			[]func(){func() { s.complete(true) }, func() { s.fail(true) }, func() { s.cancel(true) }}[k]()
		default:
			s.complete(false)
		}
	}
}

// ask begins an attempt with the session's task or a follow-up.
func (s *rsession) ask(first bool) {
	s.doing = s.th.task
	if !first {
		f := pick(s.x, followUps)
		s.doing = task{prompt: s.th.words(s.x, f.prompt), done: s.th.words(s.x, f.done)}
	}
	s.begin(s.doing.prompt)
}

// work appends the provider's events of one attempt: steps responses
// (Claude) or updates (ACP).
func (s *rsession) work(first bool, steps int) {
	if s.provider == ProviderClaude {
		s.claudeInit()
		for k := range steps {
			s.claudeTurn(k == steps-1)
		}
		return
	}
	if first {
		s.acpCommands()
	}
	for k := range steps {
		s.acpTurn(k == steps-1)
	}
}

// complete ends the attempt completed.
func (s *rsession) complete(final bool) {
	s.end(ReasonCompleted, "", "session run completed", final)
}

// fail ends the attempt failed, after the provider's error record.
func (s *rsession) fail(final bool) {
	s.tick(s.x.Millis(5, 400))
	msg := "ACP prompt failed: context deadline exceeded"
	if s.provider == ProviderClaude {
		msg = pick(s.x, []string{"claude exited: API Error: 529 overloaded", "claude exited: context window exceeded"})
	}
	s.add(ProjectionRaw, KindError, msg, nil)
	s.end(ReasonFailed, msg, pick(s.x, []string{"ACP prompt failed", "provider failed"}), final)
}

// cancel ends the attempt cancelled by the user.
func (s *rsession) cancel(final bool) {
	s.tick(s.x.Millis(200, 4000))
	s.add(ProjectionAppend, KindSystem, "Run cancelled by user", nil)
	s.end(ReasonCancelled, "run cancelled by user", "run cancelled by user", final)
}

// crashedRuntime (session 5): a Claude session whose process dies while
// appending an output delta of its second response: the file's partial
// tail; the attempt file has no terminal reason (no recovery has run
// yet); the document still says running.
func (s *rsession) crashedRuntime() {
	s.scenario = "crashed-runtime"
	s.ask(true)
	s.claudeInit()
	s.claudeTurn(false)
	s.cur.heartbeat = s.lastAt()
	s.claudeStart(s.model)
	s.deltas(s.th.words(s.x, "Running the {pkg} tests to reproduce the failure first."))
	s.tick(s.x.Millis(5, 40))
	s.add(ProjectionOutputDelta, KindOutput, " then", textDelta(" then")).crash = true
}

// recoveredRuntime (session 6): a completed attempt one of whose output
// deltas was lost (the append failed after the writer numbered it: a seq
// gap), then an attempt whose process died between two appends; a new
// boot's startup recovery marks it interrupted and appends its notice.
// The document was being rewritten when read: half-written.
func (s *rsession) recoveredRuntime() {
	s.scenario = "recovered"
	s.ask(true)
	s.claudeInit()
	s.claudeStart(s.model)
	s.deltas(s.th.words(s.x, "Let me look at {file} first, then the tests."))
	s.recs[len(s.recs)-2].lost = true
	s.claudeFinish(false)
	s.claudeTurn(true)
	s.complete(false)
	s.pause()
	s.ask(false)
	s.claudeInit()
	s.claudeStart(s.model)
	s.deltas(s.th.words(s.x, "Applying the change to {file}."))
	s.cur.heartbeat = s.lastAt()
	s.tick(s.x.Secs(30, 120))
	s.boot = s.x.Chars(32, hexAlphabet)
	reason := "startup recovery: interrupted while running"
	s.add(ProjectionAppend, KindSystem, fmt.Sprintf("[recovery] %s (attempt=%s)", reason, s.cur.id), nil)
	a := s.cur
	a.ended, a.heartbeat, a.terminal, a.interruption = s.clock, s.clock, ReasonInterrupted, reason
	s.moveTo("idle", reason)
	s.cur = nil
	s.docTorn = true
}

// suspendedRuntime (session 7): an ACP attempt suspended waiting for a
// tool result (a resume token minted, the attempt ended interrupted),
// resumed minutes later with its token (consumed), then a new attempt
// that completes. The document records every transition.
func (s *rsession) suspendedRuntime() {
	s.scenario = "suspended"
	s.ask(true)
	s.acpCommands()
	s.acpTurn(false)
	call := "call_" + s.x.Chars(6, base32Alphabet)
	s.tick(s.x.Millis(5, 30))
	file := s.th.file(s.x)
	s.add(ProjectionRaw, KindToolUse, "Edit "+file+": "+call, map[string]any{"toolCallId": call, "title": "Edit " + file,
		"kind": "edit", "status": "pending", "locations": []any{map[string]any{"path": s.th.dir() + "/" + file}}})
	s.tick(s.x.Millis(1, 5))
	tok := &rtoken{id: s.x.Chars(32, hexAlphabet), attemptID: s.cur.id, created: s.clock, expires: s.clock.Add(tokenLifetime)}
	s.tokens = append(s.tokens, tok)
	s.tick(s.x.Millis(3, 12))
	a := s.cur
	a.ended, a.heartbeat, a.terminal = s.clock, s.clock, ReasonInterrupted
	a.interruption, a.waitKind, a.tokenID = "waiting for tool result: "+call, "tool_result", tok.id
	s.moveTo("suspended", a.interruption)
	s.cur = nil
	s.tick(s.x.Secs(60, 600))
	tok.consumed, tok.revoked, tok.revocation = s.clock, s.clock, "consumed"
	a.heartbeat = s.clock
	s.tick(s.x.Millis(2, 10))
	s.moveTo("idle", "resume token accepted; provider continuation unavailable")
	s.add(ProjectionAppend, KindSystem, "[resume] Resume token accepted. Provider continuation is unavailable; send a new message to continue.", nil)
	s.tick(s.x.Secs(5, 40))
	s.doing = task{prompt: "continue: apply the edit and run the tests", done: s.th.words(s.x, "Applied; {n} tests pass.")}
	s.begin(s.doing.prompt)
	s.acpTurn(true)
	s.complete(true)
}

// cancelledRuntime (session 8): a Claude attempt cancelled by the user in
// the middle of its first response (no message_delta: the initial usage
// stays counted).
func (s *rsession) cancelledRuntime() {
	s.scenario = "cancelled"
	s.ask(true)
	s.claudeInit()
	s.claudeStart(s.model)
	s.deltas(s.th.words(s.x, "I'll start by listing the files under {pkg}."))
	s.snapshot(s.model, nil)
	s.blockStop(0)
	s.toolStart(1, "Bash")
	s.cancel(true)
}

// The directories of the runtime's side files under sessions/.
const (
	AttemptsDirName     = "attempts"
	ResumeTokensDirName = "resume_tokens"
)
