package gosession

import (
	"fmt"
	"path"
	"time"
)

// Zones the sessions' machines write their local times in (Go writes the
// local offset).
var (
	zonePlusOne   = time.FixedZone("CET", 3600)
	zoneMinusFive = time.FixedZone("EST", -5*3600)
)

// Checkpoint manifest shapes.
const (
	shapeSeed  = iota // seed 002: {checkpoint_id, created_at, files[{path, hash}]}, blobs/
	shapeGoat         // Goat's spec: {user_message_uuid, created_at, files[{path, exists, hash, size}]}, files/
	shapeMixed        // the first seed-shaped, then alternating
)

// session is one session directory being written: what the runtime
// persists and when.
type session struct {
	x        *rng
	id       string
	scenario string
	th       *theme
	model    string
	agent    string
	loc      *time.Location
	clock    time.Time // the time of the next thing written

	// How this runtime writes.
	openAI      bool // call_… ids rather than toolu_01…
	toolName    bool // tool messages carry the tool's name
	nullContent bool // a response that only calls tools has null content, not ""
	parts       bool // content as an array of parts
	transcript  bool // transcript.jsonl is written
	// nested: Goat's own store (nested messages; metadata.json named by
	// id, rewritten by every run with that run's figures), else the
	// spec's shape (flat messages; metadata named by session_id,
	// cumulative over the runs).
	nested bool
	shape  int // checkpoint manifests' shape

	recs     []*rec
	tr       []obj
	cps      []*checkpoint
	promptID string // the current user message's uuid

	runs              int   // runs started
	turns, runTurns   int   // responses: in all runs, before this run
	micros, runMicros int64 // cost in micro-dollars: likewise
	meta              metaDoc
	noMeta            bool // metadata.json absent
	metaCut           bool // metadata.json half-written
}

// metaDoc is Goat's SessionMetadata as metadata.json holds it.
type metaDoc struct {
	SessionID       string    `json:"session_id"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	Model           string    `json:"model"`
	CWD             string    `json:"cwd"`
	AgentName       string    `json:"agent_name"`
	TurnCount       int       `json:"turn_count"`
	TotalCostUSD    float64   `json:"total_cost_usd"`
	ExitReason      string    `json:"exit_reason"`
	ParentSessionID string    `json:"parent_session_id"`
	MessageCount    int       `json:"-"` // Goat's shape only
}

// goatMetaDoc is agent.SessionMetadata as Goat's store writes it
// (json.MarshalIndent, its field order and omitempty tags).
type goatMetaDoc struct {
	ID              string    `json:"id"`
	CWD             string    `json:"cwd"`
	Model           string    `json:"model"`
	ParentSessionID string    `json:"parent_session_id,omitempty"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	MessageCount    int       `json:"message_count"`
	TurnCount       int       `json:"turn_count"`
	TotalCostUSD    float64   `json:"total_cost_usd"`
	ExitReason      string    `json:"exit_reason,omitempty"`
	AgentName       string    `json:"agent_name,omitempty"`
}

// doc is the metadata as the session's store writes it.
func (m *metaDoc) doc(goat bool) any {
	if !goat {
		return m
	}
	return goatMetaDoc{ID: m.SessionID, CWD: m.CWD, Model: m.Model, ParentSessionID: m.ParentSessionID,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, MessageCount: m.MessageCount, TurnCount: m.TurnCount,
		TotalCostUSD: m.TotalCostUSD, ExitReason: m.ExitReason, AgentName: m.AgentName}
}

// checkpoint is one checkpoints/<dir>/ the runtime saved.
type checkpoint struct {
	dir, id string
	goat    bool // Goat's shape, else the seed's
	at      time.Time
	files   []cpFile
	cut     bool // its manifest is half-written
}

// cpFile is one file a checkpoint saved.
type cpFile struct {
	path    string
	exists  bool
	content string
}

// newSession starts a session at at: store.Create writes metadata.json
// with both times a moment before the first message.
func newSession(x *rng, scenario string, model string, at time.Time) *session {
	th := &themes[x.Intn(len(themes))]
	s := &session{x: x, id: x.UUIDv4(), scenario: scenario, th: th, model: model, agent: pick(x, th.agents), clock: at}
	s.loc = []*time.Location{time.UTC, zonePlusOne, zoneMinusFive}[x.Weighted(50, 35, 15)]
	s.openAI, s.toolName, s.nullContent, s.parts = x.Chance(0.3), x.Chance(0.5), x.Chance(0.5), x.Chance(0.25)
	s.shape = x.Intn(2)
	created := at.Add(-x.span(40*time.Millisecond, 900*time.Millisecond)).In(s.loc)
	s.meta = metaDoc{SessionID: s.id, CreatedAt: created, UpdatedAt: created, Model: model, CWD: th.cwd, AgentName: s.agent}
	return s
}

// task returns the theme's task i (0 or 1).
func (s *session) task(i int) *task { return &s.th.tasks[i%len(s.th.tasks)] }

// tick moves the clock by between lo and hi.
func (s *session) tick(lo, hi time.Duration) { s.clock = s.clock.Add(s.x.span(lo, hi)) }

// startRun begins a run of the loop: the SDK's init message. In Goat's
// shape every run's start rewrites metadata.json as Create does: the
// run's start as both times, no figures, no exit_reason.
func (s *session) startRun() {
	s.runTurns, s.runMicros = s.turns, s.micros
	if s.runs++; s.nested && s.runs > 1 {
		created := s.clock.Add(-s.x.span(40*time.Millisecond, 900*time.Millisecond)).In(s.loc)
		s.meta = metaDoc{SessionID: s.id, CreatedAt: created, UpdatedAt: created, Model: s.model, CWD: s.th.cwd, AgentName: s.agent}
	}
	s.sdk(obj{{"type", "system"}, {"subtype", "init"}, {"uuid", s.x.UUIDv4()}, {"session_id", s.id},
		{"model", s.model}, {"cwd", s.th.cwd}, {"tools", []string{"Bash", "Read", "Edit", "Glob", "Grep"}}, {"permissionMode", "default"}})
}

// finish ends the run: finalizeSession rewrites metadata.json with the
// turn count and cost (the run's in Goat's shape, cumulative in the
// spec's) and the exit reason; the SDK's result message closes the
// transcript.
func (s *session) finish(exit string) {
	s.tick(150*time.Millisecond, 1500*time.Millisecond)
	s.meta.UpdatedAt = s.clock.In(s.loc)
	s.meta.TurnCount, s.meta.TotalCostUSD, s.meta.ExitReason = s.turns, float64(s.micros)/1e6, exit
	if s.nested {
		s.meta.TurnCount, s.meta.TotalCostUSD = s.turns-s.runTurns, float64(s.micros-s.runMicros)/1e6
		s.meta.MessageCount = len(s.recs)
	}
	sub := map[string]string{"end_turn": "success", "max_turns": "error_max_turns", "error_max_budget_usd": "error_max_budget_usd"}[exit]
	if sub == "" {
		sub = "error_during_execution"
	}
	n := s.turns - s.runTurns
	s.sdk(obj{{"type", "result"}, {"subtype", sub}, {"uuid", s.x.UUIDv4()}, {"session_id", s.id}, {"is_error", sub != "success"},
		{"num_turns", n}, {"total_cost_usd", float64(s.micros-s.runMicros) / 1e6},
		{"usage", obj{{"input_tokens", n * s.x.Between(2000, 9000)}, {"output_tokens", n * s.x.Between(80, 600)}}}})
}

// prompt appends the user's message after they typed it.
func (s *session) prompt(text string) *rec {
	s.tick(5*time.Millisecond, 400*time.Millisecond)
	r := s.user(text)
	s.promptID = r.uuid
	return r
}

// pause is the user reading the answer before the next prompt.
func (s *session) pause() { s.tick(20*time.Second, 150*time.Second) }

// issue appends a model response calling tools (the model's latency
// before it), often saying nothing else, and saves a checkpoint before
// any edit it asks for.
func (s *session) issue(calls ...call) *rec {
	s.tick(1800*time.Millisecond, 9*time.Second)
	text := ""
	if s.x.Chance(0.5) {
		text = thoughts[calls[0].name]
	}
	a := s.assistant(text, calls)
	for _, c := range calls {
		if c.edit != nil {
			s.checkpoint(c.edit)
		}
	}
	return a
}

// answer appends the tool message of c once its tool has run.
func (s *session) answer(c call) *rec {
	s.tick(c.run[0], c.run[1])
	return s.tool(c)
}

// act is one round: a response calling tools, then each tool's message in
// order.
func (s *session) act(calls ...call) *rec {
	a := s.issue(calls...)
	for _, c := range calls {
		s.answer(c)
	}
	return a
}

// reply appends the model's answer, without tools.
func (s *session) reply(text string) *rec {
	s.tick(2*time.Second, 12*time.Second)
	return s.assistant(text, nil)
}

// work runs a task from its prompt to the answer: search, read, and for
// a fix the edit and the tests (sometimes run first to see them fail).
func (s *session) work(t *task, fix bool) {
	s.prompt(t.prompt)
	if s.x.Chance(0.4) {
		s.act(s.grep(t), s.glob())
	} else {
		s.act(s.grep(t))
	}
	s.act(s.read(t))
	if fix {
		if s.x.Chance(0.5) {
			s.act(s.bash(s.th.test, s.th.fail))
		}
		s.act(s.edit(t))
		s.act(s.bash(s.th.test, s.th.pass))
	}
	s.reply(t.done)
}

// chat is a follow-up question answered without tools.
func (s *session) chat(i int) {
	s.prompt(s.th.follows[i%len(s.th.follows)])
	s.reply(s.th.answers[i%len(s.th.answers)])
}

// checkpoint saves the file t edits (and sometimes its test) before the
// edit: one per prompt in Goat's shape (its id is the prompt's uuid),
// numbered in the seed's.
func (s *session) checkpoint(t *task) {
	goat := s.shape == shapeGoat || s.shape == shapeMixed && len(s.cps)%2 == 1
	cp := &checkpoint{goat: goat, at: s.clock.Add(s.x.span(2*time.Millisecond, 15*time.Millisecond)).In(s.loc)}
	if goat {
		for _, c := range s.cps {
			if c.id == s.promptID {
				return
			}
		}
		cp.dir, cp.id = s.promptID, s.promptID
	} else {
		cp.dir = fmt.Sprintf("cp-%03d", len(s.cps)+1)
		cp.id = cp.dir
	}
	cp.files = []cpFile{{path: t.file, exists: true, content: t.source(s.th)}}
	if goat && s.x.Chance(0.4) {
		cp.files = append(cp.files, cpFile{path: path.Join(path.Dir(t.file), "regression_test.go")})
	}
	s.cps = append(s.cps, cp)
}
