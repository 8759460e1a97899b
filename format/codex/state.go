package codex

import (
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// maxOpenCalls bounds the unanswered calls a State lists (with their ids
// and tool names) for Open; past it they are only counted.
const maxOpenCalls = 1024

// State is what a file's lines so far tell (docs/formats/codex.md, The
// rules journalship applies): the file's dialect and session, the model
// of the latest turn_context, the calls issued and those still open
// (pairing), the token totals counted so far and the derived agent
// state. Its memory is bounded: the call ids are at most
// Config.MaxTrackedIDs 64-bit hashes, the open call list at most 1024
// entries. Fed every line in file order by Judge.
type State struct {
	max int
	// session is the path's session, else the file's first session_meta's
	// id; origin the hash of the latest session_meta's id (0: none yet),
	// whose history the lines that follow belong to.
	session []byte
	origin  uint64

	decided, legacyDialect bool
	model                  []byte // the latest turn_context's

	// calls holds the call ids issued, by hash: callAnswered once
	// answered, else the turn they were issued in (callDead: issued in a
	// turn already aborted).
	calls     map[uint64]uint32
	callsFull bool
	turn      uint32           // the turn number, from 1; advanced when a turn ends
	live      int              // calls of the current turn not answered yet
	open      format.OpenCalls // unanswered calls, at most maxOpenCalls listed; Extra is the turn

	aborted bool // a turn was aborted and no new one began

	base    counters // the totals of the file's previous token_count
	hasBase bool
	// last is what the last judged line shipped (set: it shipped usage),
	// for Withdraw.
	last struct {
		set     bool
		shipped counters
	}

	derived string
}

// Values of State.calls besides a turn number.
const (
	callAnswered uint32 = 0
	callDead     uint32 = 1<<32 - 1
)

func newState(cfg *Config, p format.Path) *State {
	return &State{max: cfg.MaxTrackedIDs, session: []byte(p.SessionID), turn: 1, derived: StateIdle}
}

// Model returns the model of the latest turn_context ("" before any).
func (s *State) Model() string { return string(s.model) }

// Open implements format.State: the calls never answered, in the order
// they were issued.
func (s *State) Open() []string { return s.open.Sentences("call", "calls") }

// Over implements format.State: Codex writes no end record; the session
// counts as over while its derived state is idle (the finalizer and
// retention add how long the file must have been quiet).
func (s *State) Over() (over, terminal bool) {
	idle := s.derived == StateIdle
	return idle, idle
}

// Derived implements format.State: idle, acting or thinking, from the last
// meaningful line.
func (s *State) Derived() string { return s.derived }

// decide fixes the file's dialect by its first readable line.
func (s *State) decide(legacy bool) {
	if s != nil && !s.decided {
		s.decided, s.legacyDialect = true, legacy
	}
}

// hasDialect tells whether the file's dialect is known.
func (s *State) hasDialect() bool { return s != nil && s.decided }

// legacy tells whether the file is of the legacy dialect.
func (s *State) legacy() bool { return s != nil && s.legacyDialect }

// derive advances the derived state by a line (docs/formats/codex.md,
// Derived agent state). After an aborted turn the rest of that turn's
// items (written after the abort) leave it idle until a new turn begins.
func (s *State) derive(f *facts) {
	switch f.e {
	case eTaskComplete, eTurnAborted, eThreadRolledBack:
		s.endTurn()
		s.aborted = f.e == eTurnAborted
		s.derived = StateIdle
	case eTaskStarted, eTurnContext, eUserMessage:
		s.aborted = false
		s.derived = StateThinking
	case eMessage:
		switch {
		case string(f.role) != "assistant":
			s.aborted = false
			s.derived = StateThinking
		case !s.aborted:
			s.answered(f.phase)
		}
	case eAgentMessage:
		if !s.aborted {
			s.answered(f.phase)
		}
	case eReasoning, eAgentReasoning, eAgentReasoningRaw, eCompacted, eContextCompacted, eCompaction, eContextCompaction:
		if !s.aborted {
			s.derived = StateThinking
		}
	default:
		switch {
		case s.aborted:
		case f.e.isCall():
			s.derived = StateActing
		case f.e.isOutput():
			s.derived = StateThinking
			if s.live > 0 {
				s.derived = StateActing
			}
		}
	}
}

// answered moves the state after the model's message to the user: idle
// unless it is commentary or a call is still running.
func (s *State) answered(phase []byte) {
	switch {
	case string(phase) == "commentary":
		s.derived = StateThinking
	case s.live > 0:
		s.derived = StateActing
	default:
		s.derived = StateIdle
	}
}

// endTurn ends the current turn: its unanswered calls will never be
// answered (Codex writes no output for them); they stay listed by Open
// but no longer keep the session acting.
func (s *State) endTurn() {
	s.turn++
	if s.turn == callDead {
		s.turn = 1
	}
	s.live = 0
}

// issue records a call; repeat tells whether its id was issued before.
func (s *State) issue(h uint64, id, name []byte) (repeat bool) {
	if _, ok := s.calls[h]; ok {
		return true
	}
	v := s.turn
	if s.aborted {
		v = callDead
	} else {
		s.live++
	}
	if len(s.calls) >= s.max {
		s.callsFull = true
	} else {
		if s.calls == nil {
			s.calls = make(map[uint64]uint32)
		}
		s.calls[h] = v
	}
	s.open.Issue(h, id, name, v, maxOpenCalls)
	return false
}

// answer records an output of call h and returns the call's tool name
// (copied into a); issued tells whether the call was issued, verified
// whether a miss proves it was not (no id was lost past the bound).
func (s *State) answer(h uint64, a *integrity.Arena) (name []byte, issued, verified bool) {
	v, inMap := s.calls[h]
	i := -1
	if !inMap || v != callAnswered {
		i = s.open.Find(h)
	}
	if !inMap && i < 0 {
		return nil, false, !s.callsFull
	}
	if inMap {
		s.calls[h] = callAnswered
	} else {
		v = s.open.At(i).Extra
	}
	if v == s.turn && s.live > 0 {
		s.live--
	}
	switch {
	case i >= 0:
		name = a.Copy(s.open.Answer(i).Name)
	case v != callAnswered:
		s.open.AnswerUntracked() // one of those past the list's bound
	}
	return name, true, true
}

// hash is FNV-1a: ids are remembered by hash, without allocating.
func hash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}
