package claudecode

import (
	"strings"

	"github.com/journalship/journalship/internal/sample"
)

// The annotation kinds the truth expects (Line.Expect), in the order a
// line lists them: the neutral ones first, then the format's in the
// order of docs/formats/claude-code.md's table.
const (
	AnnCorrupt               = sample.AnnCorrupt
	AnnSchemaInvalid         = sample.AnnSchemaInvalid
	AnnUnknownType           = sample.AnnUnknownType
	AnnParentMissing         = "parent_missing"
	AnnUUIDRepeat            = "uuid_repeat"
	AnnToolResultWithoutCall = "tool_result_without_call"
	AnnSessionIDMismatch     = "session_id_mismatch"
	AnnAgentIDMismatch       = "agent_id_mismatch"
	AnnUsageRegression       = "usage_regression"
	AnnResponseReplayed      = "response_replayed"
	AnnUnknownStopReason     = "unknown_stop_reason"
)

// Derived states.
const (
	StateIdle     = "idle"
	StateActing   = "acting"
	StateThinking = "thinking"
)

// knownStopReasons are the stop_reason values the document's state
// table names; any other non-null value is annotated.
var knownStopReasons = []string{"end_turn", "tool_use", "stop_sequence", "max_tokens", "refusal", "pause_turn"}

// mainFacts is what a subagent file's truth knows of its session's main
// transcript: every line written to it.
type mainFacts struct {
	uuids  map[string]bool
	tools  map[string]bool
	msgIDs map[string]bool
}

// fileTruth follows a file's lines in order, as the rules of the format
// (docs/formats/claude-code.md, and the token rule of package doc) say
// a reader must, from the facts the generator recorded of each line it
// wrote.
type fileTruth struct {
	kind    fileKind
	session string // the file's session
	agent   string // the file name's agent id
	main    *mainFacts

	seen   map[string]bool // uuids of the lines so far
	issued map[string]bool // tool_use ids of the lines so far
	ledger map[string]*entry
	state  string
	facts  mainFacts // what the file holds, for its subagents

	// open is, per stream of a capture (parent_tool_use_id, "" for the
	// main agent), the response its last message_start opened.
	open map[string]*streamUsage
	// run is what the run's lines shipped so far, by model: whole
	// prompt, output, cache read, cache write, one-hour cache write.
	run map[string][5]int64
}

// entry is one response's counted usage in the file.
type entry struct {
	reqID string
	u     usage
}

func newFileTruth(kind fileKind, session, agent string, main *mainFacts) *fileTruth {
	return &fileTruth{kind: kind, session: session, agent: agent, main: main,
		seen: map[string]bool{}, issued: map[string]bool{}, ledger: map[string]*entry{}, state: StateIdle,
		open: map[string]*streamUsage{}, run: map[string][5]int64{},
		facts: mainFacts{uuids: map[string]bool{}, tools: map[string]bool{}, msgIDs: map[string]bool{}}}
}

// corrupt is the truth of a line nothing can be read of: not
// meaningful, it keeps the derived state.
func (t *fileTruth) corrupt(off int64, text string) sample.Line {
	// No state: nothing was learned of the line (as every format ships a
	// corrupt line); the state goes on from the line before it.
	return sample.Line{Offset: off, Text: text, Seq: -1, Corrupt: true, Expect: []string{AnnCorrupt}}
}

// line is the truth of a readable line.
func (t *fileTruth) line(off int64, text string, r *rec) sample.Line {
	l := sample.Line{Offset: off, Text: text, Type: r.typ, Seq: -1, Valid: !r.invalid && !r.unknown}
	if r.invalid {
		l.Expect = append(l.Expect, AnnSchemaInvalid)
	}
	if r.unknown {
		l.Expect = append(l.Expect, AnnUnknownType)
	}
	l.Expect = append(l.Expect, t.continuity(r)...)
	switch {
	case r.ev != nil:
		l.Expect = append(l.Expect, t.streamTokens(r, &l)...)
	case r.res != nil:
		t.topUp(r.res, &l)
	}
	if r.a != nil {
		if !r.a.synthetic {
			l.Model = r.a.model
		}
		l.Expect = append(l.Expect, t.tokens(r, &l)...)
		if r.a.stop != "" && !contains(knownStopReasons, r.a.stop) {
			l.Expect = append(l.Expect, AnnUnknownStopReason)
		}
		if r.a.msgID != "" {
			t.facts.msgIDs[r.a.msgID] = true
		}
	}
	t.derive(r)
	l.State = t.state
	return l
}

// continuity checks a line's links: its parent (and a compact
// boundary's logical parent) seen before, its uuid not seen, its
// tool_results answering calls seen, its session and agent the file's.
func (t *fileTruth) continuity(r *rec) []string {
	var notes []string
	if r.conv {
		if r.parent != "" && !t.known(r.parent) || r.logical != "" && !t.known(r.logical) {
			notes = append(notes, AnnParentMissing)
		}
		if t.seen[r.uuid] {
			notes = append(notes, AnnUUIDRepeat)
		}
		t.seen[r.uuid], t.facts.uuids[r.uuid] = true, true
	}
	for _, id := range r.results {
		if !t.issued[id] && (t.main == nil || !t.main.tools[id]) {
			notes = append(notes, AnnToolResultWithoutCall)
			break
		}
	}
	if r.a != nil {
		for _, id := range r.a.toolIDs {
			t.issued[id], t.facts.tools[id] = true, true
		}
	}
	if t.kind == kindMain && r.session != "" && r.session != t.session {
		notes = append(notes, AnnSessionIDMismatch)
	}
	if t.kind != kindMain && r.agent != "" && r.agent != t.agent {
		notes = append(notes, AnnAgentIDMismatch)
	}
	return notes
}

// known reports whether uuid names a line seen before in the file or,
// for a subagent file, a line of the session's main transcript.
func (t *fileTruth) known(uuid string) bool {
	return t.seen[uuid] || t.main != nil && t.main.uuids[uuid]
}

// tokens applies the token rule to an assistant line: never a
// synthetic line, a schema-invalid one (which does not advance the
// counted usage), a fork's copy, or a subagent's replay of a
// main-transcript response; else count.
func (t *fileTruth) tokens(r *rec, l *sample.Line) []string {
	a := r.a
	switch {
	case a.synthetic, r.invalid:
		return nil
	case t.kind == kindMain && r.session != t.session:
		return nil
	case t.kind != kindMain && t.main != nil && t.main.msgIDs[a.msgID]:
		return []string{AnnResponseReplayed}
	}
	notes := t.count(a.msgID, a.reqID, a.u, false, l)
	if a.billed && a.reqID != "" && l.Counted {
		l.Bill = a.msgID + ":" + a.reqID
		if r.resumed { // the original's path sorts first: it counts
			l.Counted = false
			notes = append(notes, sample.AnnCountedElsewhere)
		}
	}
	return notes
}

// streamTokens applies the token rule to a capture's message_start
// (which opens its response in its stream) and message_delta (which
// counts under its stream's open response, nothing without one): both
// are the response's lines, of its model.
func (t *fileTruth) streamTokens(r *rec, l *sample.Line) []string {
	e := r.ev
	if e.start {
		t.open[e.stream] = e
	}
	open := t.open[e.stream]
	if open == nil {
		return nil
	}
	l.Model = open.model
	return t.count(open.msgID, "", e.u, e.no1h, l)
}

// count counts usage u of response msgID (requested under reqID) on the
// line l: the response's first line ships its whole usage, later ones
// the growth of each counter; a counter below the counted one ships 0
// and expects usage_regression, unless the line does not state it
// (no1h: the one-hour part); the response under another requestId is a
// replay and ships nothing.
func (t *fileTruth) count(msgID, reqID string, u usage, no1h bool, l *sample.Line) []string {
	e := t.ledger[msgID]
	if e == nil {
		t.ledger[msgID] = &entry{reqID: reqID, u: u}
		t.ship(l, u)
		return nil
	}
	if e.reqID != reqID {
		return []string{AnnResponseReplayed}
	}
	var notes []string
	grow := func(now int64, counted *int64, stated bool) int64 {
		d := now - *counted
		if d < 0 {
			if stated {
				notes = []string{AnnUsageRegression}
			}
			return 0
		}
		*counted = now
		return d
	}
	d := usage{in: grow(u.in, &e.u.in, true), out: grow(u.out, &e.u.out, true), cw: grow(u.cw, &e.u.cw, true),
		cr: grow(u.cr, &e.u.cr, true), cw1h: grow(u.cw1h, &e.u.cw1h, !no1h)}
	t.ship(l, d)
	return notes
}

// ship sets the tokens line l ships and adds them to the run's usage
// of its model.
func (t *fileTruth) ship(l *sample.Line, d usage) {
	ship(l, d)
	if !l.Counted {
		return
	}
	m := t.run[l.Model]
	for i, n := range [5]int64{l.PromptTokens, l.CompletionTokens, l.CacheReadTokens, l.CacheWriteTokens, l.CacheWrite1hTokens} {
		m[i] += n
	}
	t.run[l.Model] = m
}

// topUp is a result line's usage: the first model of its modelUsage
// (in the line's order) that reports more than the run's lines shipped
// under it, in any counter, ships the difference of each counter that
// falls short, under that model; its one-hour cache writes are those the
// result's usage states beyond what the run's lines shipped, at most its
// cache writes. The run then starts over.
func (t *fileTruth) topUp(rep *runReport, l *sample.Line) {
	defer func() { t.run = map[string][5]int64{} }()
	var shipped1h int64
	for _, m := range t.run {
		shipped1h += m[4]
	}
	for _, m := range rep.models {
		want := [4]int64{m.u.in + m.u.cr + m.u.cw, m.u.out, m.u.cr, m.u.cw}
		have := t.run[m.model]
		var short [4]int64
		var any bool
		for i := range want {
			if want[i] > have[i] {
				short[i], any = want[i]-have[i], true
			}
		}
		if !any {
			continue
		}
		l.Model = m.model
		l.Counted = true
		l.PromptTokens, l.CompletionTokens, l.CacheReadTokens, l.CacheWriteTokens = short[0], short[1], short[2], short[3]
		l.CacheWrite1hTokens = min(short[3], max(0, rep.cw1h-shipped1h))
		return
	}
}

// ship sets the tokens a line ships: tokens_in is the whole prompt.
func ship(l *sample.Line, d usage) {
	if d == (usage{}) {
		return
	}
	l.Counted = true
	l.PromptTokens = d.in + d.cw + d.cr
	l.CompletionTokens = d.out
	l.CacheReadTokens, l.CacheWriteTokens, l.CacheWrite1hTokens = d.cr, d.cw, d.cw1h
}

// derive moves the derived state after a meaningful line (the
// document's table); other lines leave it.
func (t *fileTruth) derive(r *rec) {
	if t.kind == kindMain && r.sidechain {
		return
	}
	switch {
	case r.typ == TypeResult:
		t.state = StateIdle
	case r.typ == TypeUser:
		switch r.user {
		case userToolResult:
			t.state = StateThinking
		case userInterrupt:
			t.state = StateIdle
		case userPrompt:
			t.state = StateThinking
		}
	case r.typ == TypeAssistant && r.a != nil:
		a := r.a
		switch {
		case a.toolUse || a.stop == "tool_use":
			t.state = StateActing
		case a.stop == "pause_turn":
			t.state = StateThinking
		case a.stop != "":
			t.state = StateIdle
		case a.text:
			t.state = StateIdle
		default:
			t.state = StateThinking
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// lineText is a line's bytes without the newline.
func lineText(b []byte) string { return strings.TrimSuffix(string(b), "\n") }
