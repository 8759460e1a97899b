package gosession

import (
	"hash/maphash"
	"os"
	"path/filepath"
	"time"

	"github.com/journalship/journalship/format"
)

// State is what a journal's lines so far say, with the session's
// metadata.json (docs/formats/go-session.md, The rules journalship
// applies): for messages.jsonl the uuids and tool call ids seen (as
// hashes, at most Config.MaxTrackedIDs each), the calls not yet answered
// (at most Config.MaxOpenCalls with their id and name), the previous and
// newest timestamps and the derived state; for transcript.jsonl nothing
// but the session's end. Fed every line in file order by Judge.
type State struct {
	cfg       *Config
	sessionID []byte // the session directory's name
	journal   Journal

	meta      Metadata
	model     []byte // meta.Model
	msgMod    time.Time
	hasMsgMod bool // messages.jsonl's modification time, at Load
	// tail is the newest timestamp of messages.jsonl's last lines, at Load
	// (for transcript.jsonl, which has none of its own).
	tail    time.Time
	hasTail bool

	seed  maphash.Seed
	uuids idSet // message uuids seen
	calls idSet // tool call ids issued by assistant messages
	// answered holds the ids of calls answered, so that a call answered
	// twice is not taken for one of those past the list's bound.
	answered idSet
	open     format.OpenCalls // unanswered calls, at most MaxOpenCalls listed

	prev      time.Time // the previous message's timestamp
	prevText  []byte    // as written
	hasPrev   bool
	newest    time.Time // the newest message timestamp
	hasNewest bool

	sawMessage, sawTranscript bool
	table                     string // the state the last message gives
}

func newState(cfg *Config, p format.Path) *State {
	return &State{cfg: cfg, sessionID: []byte(p.SessionID), seed: maphash.MakeSeed(), table: StateIdle,
		uuids: idSet{max: cfg.MaxTrackedIDs}, calls: idSet{max: cfg.MaxTrackedIDs}, answered: idSet{max: cfg.MaxTrackedIDs}}
}

// Load implements format.SideFiles: journalPath tells which journal the
// state is for, and the metadata.json of its session directory is read
// (ReadMetadata, with Config.MaxMetadataBytes) with the modification time
// of messages.jsonl and, for transcript.jsonl, the newest timestamp of
// messages.jsonl's last lines. Calling it again reads them again. A path
// that is no journal (JournalOf) reads nothing.
func (s *State) Load(journalPath string) {
	if s.journal = JournalOf(journalPath); s.journal == NotAJournal {
		return
	}
	dir := SessionDir(journalPath)
	if len(s.sessionID) == 0 {
		s.sessionID = []byte(filepath.Base(dir))
	}
	m, _ := ReadMetadata(dir, s.cfg.MaxMetadataBytes)
	s.UseMetadata(m)
	s.hasMsgMod, s.hasTail = false, false
	messages := filepath.Join(dir, MessagesFile)
	if fi, err := os.Stat(messages); err == nil && fi.Mode().IsRegular() {
		s.msgMod, s.hasMsgMod = fi.ModTime(), true
		if s.journal == Transcript {
			s.tail, s.hasTail = newestInTail(messages)
		}
	}
}

// UseMetadata gives the state the session's metadata (the last one given
// counts): its model goes on assistant lines, and it decides whether the
// session is over.
func (s *State) UseMetadata(m Metadata) {
	s.meta = m
	s.model = append(s.model[:0], m.Model...)
}

// Metadata returns the metadata the state has (Load, UseMetadata), and
// whether it was read (Metadata.Read).
func (s *State) Metadata() (Metadata, bool) { return s.meta, s.meta.Read }

// Journal returns the journal Load named (NotAJournal before, or for a
// path in no session directory).
func (s *State) Journal() Journal { return s.journal }

// derives tells whether the state derives a state: a messages.jsonl, or a
// journal of unknown name whose lines so far are messages (or none).
func (s *State) derives() bool {
	switch s.journal {
	case Messages:
		return true
	case Transcript:
		return false
	}
	return s.sawMessage || !s.sawTranscript
}

// Derived implements format.State: acting, thinking or idle by the last
// message (docs/formats/go-session.md, Derived state), idle once the
// session is over; "" for transcript.jsonl.
func (s *State) Derived() string {
	switch {
	case !s.derives():
		return ""
	case s.over():
		return StateIdle
	}
	return s.table
}

// Over implements format.State: the session is over when metadata.json
// has an exit_reason written after the newest message (docs/formats/
// go-session.md, When a session is over); the run ended on purpose, so the
// end is terminal.
func (s *State) Over() (over, terminal bool) {
	o := s.over()
	return o, o
}

// over applies the two conditions: an exit_reason, and metadata newer
// than the messages. With updated_at: it is after created_at (a fork's
// copy has both equal) and not before the newest message timestamp. Without
// it: the file's modification time is not before messages.jsonl's nor the
// newest message timestamp, and when created_at is known the newest
// message is not older than it (a fork whose messages are all copies).
// transcript.jsonl has no timestamps: the newest of messages.jsonl's last
// lines, read at Load, stands for its newest message.
func (s *State) over() bool {
	m := &s.meta
	if !m.Read || m.ExitReason == "" {
		return false
	}
	newest, has := s.newest, s.hasNewest
	if s.journal == Transcript {
		newest, has = s.tail, s.hasTail
	}
	if m.HasUpdatedAt {
		if m.HasCreatedAt && !m.UpdatedAt.After(m.CreatedAt) {
			return false
		}
		return !has || !m.UpdatedAt.Before(newest)
	}
	switch {
	case m.ModTime.IsZero():
		return false
	case s.hasMsgMod && m.ModTime.Before(s.msgMod), has && m.ModTime.Before(newest):
		return false
	case m.HasCreatedAt && s.hasNewest && s.newest.Before(m.CreatedAt):
		return false
	}
	return true
}

// EndReason implements format.EndReasoner: the exit_reason once the
// session is over, else "".
func (s *State) EndReason() string {
	if !s.over() {
		return ""
	}
	return s.meta.ExitReason
}

// Open implements format.State: the tool calls never answered, in the
// order they were issued.
func (s *State) Open() []string { return s.open.Sentences("tool call", "tool calls") }

func (s *State) hash(b []byte) uint64 { return maphash.Bytes(s.seed, b) }

// issue records a tool call an assistant message issues.
func (s *State) issue(h uint64, id, name []byte) {
	s.calls.add(h)
	if s.open.Find(h) >= 0 {
		return // issued again while open: still one call to answer
	}
	s.open.Issue(h, clip(id, maxKept), clip(name, maxKept), 0, s.cfg.MaxOpenCalls)
}

// answer closes the call a tool message answers. name is the call's
// (valid until the next issue); issued is false when no earlier assistant
// message issued it, as far as the state can tell.
func (s *State) answer(h uint64) (name []byte, issued bool) {
	if i := s.open.Find(h); i >= 0 {
		s.answered.add(h)
		return s.open.Answer(i).Name, true
	}
	if !s.calls.has(h) && !s.calls.full {
		return nil, false
	}
	// Issued (or perhaps, the ids having overflowed: not annotated), and
	// perhaps one of the calls kept without their name, unless it was
	// answered before.
	if !s.answered.add(h) {
		s.open.AnswerUntracked()
	}
	return nil, true
}

// regression tells whether a message timestamp t is before the previous
// message's.
func (s *State) regression(t time.Time) bool { return s.hasPrev && t.Before(s.prev) }

// advance makes t (written as text) the previous message timestamp.
func (s *State) advance(t time.Time, text []byte) {
	s.prev, s.hasPrev = t, true
	s.prevText = append(s.prevText[:0], clip(text, maxDetail)...)
	if !s.hasNewest || t.After(s.newest) {
		s.newest, s.hasNewest = t, true
	}
}

// idSet is a bounded set of 64-bit hashes (open addressing, linear
// probing, at most half full); 0 marks an empty slot. Past max entries it
// takes no more and is full.
type idSet struct {
	slots []uint64
	n     int
	max   int
	full  bool
}

// add inserts h and tells whether it was already there.
func (s *idSet) add(h uint64) (seen bool) {
	if h == 0 {
		h = 1
	}
	if s.has(h) {
		return true
	}
	if s.n >= s.max {
		s.full = true
		return false
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if s.slots[i] == 0 {
			s.slots[i] = h
			s.n++
			return false
		}
	}
}

func (s *idSet) has(h uint64) bool {
	if h == 0 {
		h = 1
	}
	if len(s.slots) == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

func (s *idSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(64, 2*len(old)))
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}
