package claudecode

import (
	"path/filepath"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// maxOpenTools bounds the unanswered tool_use ids a State lists (with
// their ids and tool names) for Open; past it they are only counted.
const maxOpenTools = 1024

// State is what a file's lines so far tell (docs/formats/claude-code.md,
// The rules journalship applies): the file's dialect and session, the
// uuids seen (continuity), the tool_use ids issued and those still open
// (pairing), the usage counted per response (tokens) and the derived agent
// state. Its memory is bounded: every set of ids holds at most
// Config.MaxTrackedIDs 64-bit hashes, the open tool_use list at most 1024
// entries. Fed every line in file order by Judge; a subagent file's State
// also reads its session's main transcript (Load).
type State struct {
	max     int
	maxScan int64
	agentF  bool   // a subagent or legacy agent file
	session []byte // the path's session ("" when it names none)
	agent   []byte // the file name's agent id
	project string

	decided bool // the dialect is known (from the first readable line)
	stream  bool // the stream-json dialect
	// fileSession is the first session id the lines named, for lines
	// without one when the path names none.
	fileSession []byte

	// uuids holds the uuids seen, by hash: uuidFile for this file's lines,
	// uuidMain for the main transcript's (Load).
	uuids     map[uint64]uint8
	uuidsFull bool // a uuid could not be added
	// tools holds the tool_use ids issued, by hash: true once answered.
	tools     map[uint64]bool
	toolsFull bool
	open      format.OpenCalls // unanswered tool_use ids, at most maxOpenTools listed

	responses map[uint64]counted // usage counted per message.id hash
	// last is what the last judged line counted, for Withdraw: its
	// response and the response's counted usage before it (had: the
	// response was counted before), and the usage it shipped under the
	// run's model model (-1: none).
	last struct {
		h        uint64
		before   counted
		had, set bool
		model    int
		usage    counters
	}
	// streams are the responses the streams' last message_start opened
	// (partial messages), at most maxStreams; streamNext is the slot
	// reused next past it.
	streams    []openResponse
	streamNext int
	// models is the usage the current run's lines shipped, by model, at
	// most maxModels (modelsLost: a model could not be added).
	models        []modelCount
	modelsLost    bool
	mainResponses map[uint64]struct{} // message.id hashes of the main transcript (Load)
	lostNoted     bool                // continuity_unverified was annotated

	derived string
}

// The bits of State.uuids.
const (
	uuidFile uint8 = 1 << iota
	uuidMain
)

func newState(cfg *Config, p format.Path) *State {
	s := &State{max: cfg.MaxTrackedIDs, maxScan: cfg.MaxMainScan, agentF: p.AgentID != "",
		session: []byte(p.SessionID), agent: []byte(p.AgentID), derived: StateIdle}
	s.last.model = -1
	if p.Group != "" {
		// The Group is the main transcript (or the file itself) in its
		// project directory.
		s.project = filepath.Base(filepath.Dir(p.Group))
	}
	return s
}

// Project returns the project directory the file is in (the working
// directory of the session, every character outside [A-Za-z0-9] replaced
// by '-'), "" when unknown.
func (s *State) Project() string { return s.project }

// Open implements format.State: the tool_use ids never answered, in the
// order they were issued.
func (s *State) Open() []string { return s.open.Sentences("tool_use", "tool_use ids") }

// Over implements format.State: Claude Code writes no end record, the
// session counts as over while its derived state is idle (the finalizer
// and retention add how long the file must have been quiet).
func (s *State) Over() (over, terminal bool) {
	idle := s.derived == StateIdle
	return idle, idle
}

// Derived implements format.State: idle, acting or thinking, from the last
// meaningful line.
func (s *State) Derived() string { return s.derived }

// derive advances the derived state by a line (docs/formats/claude-code.md,
// Derived agent state). Lines that are not meaningful leave it: every type
// but user, assistant and result, a main file's sidechain lines, user lines
// that are no prompt.
func (s *State) derive(f *facts) {
	if f.sidechain && !s.agentF {
		return // a subagent's line in the session's file
	}
	switch f.t {
	case tResult:
		s.derived = StateIdle
	case tAssistant:
		switch {
		case f.toolUse || f.stop == "tool_use":
			s.derived = StateActing
		case f.stop == "pause_turn":
			s.derived = StateThinking
		case f.stop != "", f.text:
			s.derived = StateIdle
		default: // only thinking so far: the response is being written
			s.derived = StateThinking
		}
	case tUser:
		switch {
		case f.meta:
		case f.interrupted:
			s.derived = StateIdle
		case f.toolResult:
			s.derived = StateThinking
		case f.command:
		default:
			s.derived = StateThinking
		}
	}
}

// lost notes, once per file, that an id could not be tracked: continuity
// is no longer judged in full.
func (s *State) lost(ev *format.Event) {
	if !s.lostNoted {
		s.lostNoted = true
		ev.Note(NoteContinuityUnverified, nil)
	}
}

// knownUUID tells whether a uuid was seen (in the file or, for a subagent
// file, the main transcript); verified is false once a uuid could not be
// tracked (a miss then proves nothing).
func (s *State) knownUUID(h uint64) (known, verified bool) {
	_, known = s.uuids[h]
	return known, !s.uuidsFull
}

// sawUUID records a line's uuid; repeat tells whether the file had it
// already, lost that it could not be recorded.
func (s *State) sawUUID(h uint64) (repeat, lost bool) {
	return s.addUUID(h, uuidFile)
}

func (s *State) addUUID(h uint64, bit uint8) (repeat, lost bool) {
	v, ok := s.uuids[h]
	switch {
	case ok:
		s.uuids[h] = v | bit
		return v&bit != 0, false
	case len(s.uuids) >= s.max:
		s.uuidsFull = true
		return false, true
	case s.uuids == nil:
		s.uuids = make(map[uint64]uint8)
	}
	s.uuids[h] = bit
	return false, false
}

// issue records a tool_use; lost tells that its id could not be tracked.
func (s *State) issue(h uint64, id, name []byte) (lost bool) {
	_, seen := s.tools[h]
	switch {
	case seen:
		return false
	case len(s.tools) >= s.max:
		s.toolsFull, lost = true, true
		if s.open.Find(h) >= 0 {
			return lost
		}
	default:
		if s.tools == nil {
			s.tools = make(map[uint64]bool)
		}
		s.tools[h] = false
	}
	s.open.Issue(h, id, name, 0, min(maxOpenTools, s.max))
	return lost
}

// answer pairs a tool_result with its tool_use: the tool's name (copied
// into a, nil when unknown), whether the id was issued, and whether a miss
// proves anything (every id could be tracked).
func (s *State) answer(h uint64, a *integrity.Arena) (name []byte, issued, verified bool) {
	answered, inSet := s.tools[h]
	i := s.open.Find(h)
	if i >= 0 {
		name = a.Copy(s.open.Answer(i).Name)
	} else if inSet && !answered {
		s.open.AnswerUntracked() // one of those past the list's bound
	}
	if inSet && !answered {
		s.tools[h] = true
	}
	return name, inSet || i >= 0, !s.toolsFull
}

// Withdraw implements format.Withdrawer: the last judged line will not be
// shipped (too long to send), so what it counted of its response's usage
// is forgotten, and the response's next line ships it (or, with none, the
// run's result line: topUp).
func (s *State) Withdraw() {
	l := s.last
	s.last.set, s.last.model = false, -1
	if !l.set {
		return
	}
	if l.model >= 0 && l.model < len(s.models) {
		m := &s.models[l.model]
		for i := range m.c {
			m.c[i] = max(0, m.c[i]-l.usage[i])
		}
		add(&m.withdrawn, &l.usage)
	}
	if l.had {
		s.responses[l.h] = l.before
	} else {
		delete(s.responses, l.h)
	}
}

// hash is FNV-1a: ids are remembered by hash, without allocating.
func hash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}
