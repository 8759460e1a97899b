package codelia

import (
	"fmt"
	"slices"
	"time"

	"github.com/journalship/journalship/format"
)

// State is what a file's lines so far tell: its header, the invocations
// still unanswered, the order of its agent events and whether the run is
// over (docs/formats/codelia.md, Continuity). Its memory is bounded by
// Config.MaxOpenRequests. Fed every line in file order by Judge.
type State struct {
	maxOpen   int
	pathRunID []byte    // the file name's run_id
	pathDate  time.Time // the directories' date, zero when unknown

	lines      int64 // lines judged, corrupt ones included
	readable   bool  // a line was not corrupt
	headerSeen bool
	bestEffort bool
	// runID is the file's run_id: the first header's, else (no header yet,
	// no file name) the first one seen.
	runID       []byte
	sessionID   []byte
	headerModel []byte
	// headerStyle is how the header's model.provider counts input_tokens
	// (see styleOf); styleUnknown without one.
	headerStyle inputStyle

	lastReq   int64
	hasReq    bool
	open      []pending // unanswered llm.requests, at most maxOpen
	untracked int64     // unanswered llm.requests past maxOpen

	lastEvent int64
	hasEvent  bool

	over    bool
	derived string
}

// pending is an unanswered llm.request. Its model buffer is reused by later
// requests.
type pending struct {
	seq   int64
	model []byte
	style inputStyle // how its provider counts input_tokens
}

func newState(cfg *Config, p format.Path) *State {
	s := &State{maxOpen: cfg.MaxOpenRequests, pathRunID: []byte(p.RunID)}
	if p.Problem == "" {
		s.pathDate = p.Started
	}
	return s
}

// Open implements format.State: the llm.requests never answered, by seq.
func (s *State) Open() []string {
	if len(s.open) == 0 && s.untracked == 0 {
		return nil
	}
	seqs := make([]int64, len(s.open))
	for i, p := range s.open {
		seqs[i] = p.seq
	}
	slices.Sort(seqs)
	out := make([]string, 0, len(seqs)+1)
	for _, q := range seqs {
		out = append(out, fmt.Sprintf("llm.request seq %d was never answered", q))
	}
	if s.untracked > 0 {
		out = append(out, fmt.Sprintf("%d more llm.requests were never answered", s.untracked))
	}
	return out
}

// Over implements format.State: a run.end or a terminal run.status ends
// the run for good (docs/formats/codelia.md, When a run is over).
func (s *State) Over() (over, terminal bool) { return s.over, s.over }

// Derived implements format.State: the run's last status, from run.status
// and run.end ("other" for a value outside the enum, "" before any).
func (s *State) Derived() string { return s.derived }

// reference is the run_id the file's records must carry.
func (s *State) reference() []byte {
	if len(s.runID) > 0 {
		return s.runID
	}
	return s.pathRunID
}

// Order verdicts of a seq.
const (
	orderOK = iota
	orderGap
	orderRepeat
	orderRegression
)

// verdict is a seq's place after the previous one, last.
type verdict struct {
	kind int
	last int64
}

func judgeOrder(seq, last int64, has, gaps bool) verdict {
	switch {
	case !has || seq == last+1:
		return verdict{orderOK, last}
	case seq == last:
		return verdict{orderRepeat, last}
	case seq < last:
		return verdict{orderRegression, last}
	case gaps:
		return verdict{orderGap, last}
	}
	return verdict{orderOK, last}
}

// event advances the agent.event order: strictly increasing, gaps allowed.
func (s *State) event(seq int64) verdict {
	v := judgeOrder(seq, s.lastEvent, s.hasEvent, false)
	s.lastEvent, s.hasEvent = seq, true
	return v
}

// request advances the invocation sequence and opens seq with its model
// and how its provider counts input_tokens.
func (s *State) request(seq int64, model []byte, style inputStyle) verdict {
	v := judgeOrder(seq, s.lastReq, s.hasReq, true)
	s.lastReq, s.hasReq = seq, true
	i := s.find(seq)
	switch {
	case i >= 0:
	case len(s.open) < s.maxOpen:
		if len(s.open) < cap(s.open) {
			s.open = s.open[:len(s.open)+1] // reuse the entry's buffer
		} else {
			s.open = append(s.open, pending{})
		}
		i = len(s.open) - 1
		s.open[i].seq = seq
	default:
		s.untracked++
		return v
	}
	s.open[i].model = append(s.open[i].model[:0], model...)
	s.open[i].style = style
	return v
}

func (s *State) find(seq int64) int {
	for i := range s.open {
		if s.open[i].seq == seq {
			return i
		}
	}
	return -1
}

// response closes seq; found is false when no request of that seq is
// open. req is the request's (its model valid until the next request);
// without one, the header's provider decides the style.
func (s *State) response(seq int64) (req pending, found bool) {
	i := s.find(seq)
	if i < 0 {
		req.style = s.headerStyle
		if s.untracked > 0 {
			s.untracked-- // perhaps one not tracked: not annotated
			return req, true
		}
		return req, false
	}
	last := len(s.open) - 1
	s.open[i], s.open[last] = s.open[last], s.open[i]
	s.open = s.open[:last]
	return s.open[:last+1][last], true
}

// status takes a run.status value ("" when outside the enum).
func (s *State) status(v string, terminal bool) {
	s.derived = derivedOf(v)
	s.over = s.over || terminal
}

// end takes a run.end: the run is over.
func (s *State) end(outcome string, set bool) {
	if set {
		s.derived = derivedOf(outcome)
	}
	s.over = true
}

func derivedOf(v string) string {
	if v == "" {
		return "other"
	}
	return v
}
