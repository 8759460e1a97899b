package codex

import (
	"bytes"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// judge judges lines; one per goroutine. It does not allocate per line
// once its buffers and the state's have grown.
type judge struct {
	c   integrity.Capture
	k   format.Checker
	num []byte // a detail being formatted
}

// facts is what the judge read of a line for the state.
type facts struct {
	k      kind
	e      eventType
	legacy bool // a line of the legacy dialect
	// role of a message item ("user", "assistant", …); phase its phase.
	role, phase []byte
	callHash    uint64 // the call_id's hash of a call or an output, 0: none
	copied      bool   // a session_meta of another session
}

// Judge implements format.Judge (docs/formats/codex.md, The rules
// journalship applies). st is advanced by the line when it is this
// format's *State.
func (j *judge) Judge(line []byte, st format.State, a *integrity.Arena, ev *format.Event) {
	ev.Reset()
	s, _ := st.(*State)
	if s != nil {
		s.last.set = false // before any return: Withdraw undoes this line alone
	}
	c := &j.c
	if reason := c.Scan(line, envelopePaths); reason != "" {
		ev.Corrupt(reason)
		return
	}
	f, ok := j.classify(line, s, a, ev)
	if !ok {
		return
	}
	ev.EventType, ev.Role = eventNames[f.e], roles[f.e]
	j.check(&f, a, ev)
	if ev.HasTime && ev.Time.IsZero() {
		// 0001-01-01T00:00:00Z is no time anyone wrote (Go's zero time,
		// an unset field): the line has none, the pipeline falls back.
		ev.Time, ev.HasTime = time.Time{}, false
	}
	j.ids(s, &f, a, ev)
	j.read(s, &f, a, ev)
	j.usage(s, &f, a, ev)
	if s != nil {
		s.derive(&f)
		ev.State = s.derived
	}
}

// classify tells a line's kind and event type, rescanning a legacy line
// with the legacy paths; false for a corrupt line (ev marked).
func (j *judge) classify(line []byte, s *State, a *integrity.Arena, ev *format.Event) (facts, bool) {
	c := &j.c
	var f facts
	if !c.Has(pType) {
		// The legacy dialect's header and state lines have no type.
		switch {
		case c.Get(pRecordType).Kind == integrity.JSONString:
			f.k, f.e, f.legacy = kState, eState, true
		case c.Get(pTopID).Kind == integrity.JSONString:
			f.k, f.e, f.legacy = kSessionMeta, eSessionMeta, true
		default:
			ev.Corrupt(reasonNoType)
			return f, false
		}
		s.decide(true)
		j.c.Scan(line, legacyPaths)
		return f, true
	}
	name, ok := c.Str(pType)
	if !ok {
		ev.Corrupt(reasonNoType)
		return f, false
	}
	if f.k = kindOf(name); f.k != kUnknown {
		s.decide(false)
		switch f.k {
		case kSessionMeta:
			f.e = eSessionMeta
		case kTurnContext:
			f.e = eTurnContext
		case kCompacted:
			f.e = eCompacted
		}
		return f, true
	}
	// Not an envelope type: a legacy bare item in a legacy file (or, before
	// the dialect is known, a line with neither payload nor timestamp).
	if s.legacy() || !s.hasDialect() && !c.Has(pPayload) && !c.Has(pTimestamp) {
		f.k, f.legacy = kResponseItem, true
		s.decide(true)
		if f.e = payloadType(kResponseItem, name); f.e == eNone {
			// The legacy dialect is frozen: an unknown item is unknown.
			ev.TypeName = a.Copy(name)
			ev.Flags |= format.UnknownType
		}
		j.c.Scan(line, legacyPaths)
		return f, true
	}
	ev.TypeName = a.Copy(name)
	ev.Flags |= format.UnknownType
	return f, true
}

// check applies the schema of the line's kind and payload type; an
// unknown payload type of a known kind passes, annotated.
func (j *judge) check(f *facts, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	j.k = format.Checker{Capture: c, Paths: envelopePaths, Event: ev}
	if f.legacy {
		j.k.Paths = legacyPaths
	}
	k := &j.k
	if c.Has(pType) {
		k.Dup(pType)
	}
	switch f.k {
	case kUnknown:
		if ev.HasTime = false; c.Get(pTimestamp).Kind == integrity.JSONString {
			ev.Time, ev.HasTime = c.Time(pTimestamp) // read, not judged
		}
		return
	case kState:
		k.ReqStr(pRecordType)
		return
	case kSessionMeta:
		if f.legacy {
			checkSessionMeta(k, true)
			return
		}
	}
	if !f.legacy && !checkEnvelope(k) {
		return
	}
	switch f.k {
	case kSessionMeta:
		checkSessionMeta(k, false)
	case kTurnContext:
		checkTurnContext(k)
	case kCompacted:
		checkCompacted(k)
	case kResponseItem, kEventMsg:
		if f.legacy {
			checkItem(k, f.e)
			return
		}
		k.ReqStr(fType)
		name, ok := c.Str(fType)
		if !ok {
			return
		}
		if f.e = payloadType(f.k, name); f.e == eNone {
			ev.TypeName = a.Copy(name)
			ev.Note(NotePayloadTypeUnknown, format.Clip(ev.TypeName))
			return
		}
		ev.EventType, ev.Role = eventNames[f.e], roles[f.e]
		if f.k == kResponseItem {
			checkItem(k, f.e)
		} else {
			checkEvent(k, f.e)
		}
	}
}

// ids sets the line's session: the path's when it names one, else the
// file's first session_meta's; without a state, a session_meta's own.
// A session_meta of another session marks the history a fork copied.
func (j *judge) ids(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	id, ok := []byte(nil), false
	if f.k == kSessionMeta {
		id, ok = format.NonEmptyStr(&j.c, fID)
	}
	switch {
	case s == nil:
		if ok {
			ev.SessionID = a.Copy(id)
		}
		return
	case ok && len(s.session) == 0:
		s.session = append(s.session, id...)
	}
	ev.SessionID = a.Copy(s.session)
	if ok {
		s.origin = hash(id)
		if !bytes.Equal(id, s.session) {
			f.copied = true
			ev.Note(NoteSessionIDMismatch, a.Copy(format.Clip(id)))
		}
	}
}

// read reads what each type tells besides its schema: the model, the
// tools and their pairing, a message's role and phase.
func (j *judge) read(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	switch {
	case f.e == eTurnContext:
		if m, ok := format.NonEmptyStr(c, fModel); ok {
			ev.Model = a.Copy(m)
			if s != nil {
				s.model = append(s.model[:0], m...)
			}
		}
	case f.e == eMessage:
		f.role, _ = c.Str(fRole)
		f.role = a.Copy(f.role)
		f.phase, _ = c.Str(fPhase)
		f.phase = a.Copy(f.phase)
	case f.e.isCall():
		j.call(s, f, a, ev)
	case f.e.isOutput():
		j.output(s, f, a, ev)
	case f.e == eWebSearchCall:
		ev.ToolName = toolWebSearch
	case f.e >= ePatchApplyEnd && f.e <= eViewImageToolCall:
		if id, ok := format.NonEmptyStr(c, fCallID); ok {
			ev.ToolCallID = a.Copy(id)
		}
	}
}

// The tool names of the calls that state none.
var (
	toolLocalShell = []byte("local_shell")
	toolWebSearch  = []byte("web_search")
	toolSearch     = []byte("tool_search")
)

// call reads a tool call: its name and call_id, issued in the state.
func (j *judge) call(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	switch f.e {
	case eLocalShellCall:
		ev.ToolName = toolLocalShell
	case eToolSearchCall:
		ev.ToolName = toolSearch
	default:
		if n, ok := format.NonEmptyStr(c, fName); ok {
			ev.ToolName = a.Copy(n)
		}
	}
	id, ok := format.NonEmptyStr(c, fCallID)
	if !ok {
		return
	}
	ev.ToolCallID = a.Copy(id)
	if s == nil {
		return
	}
	f.callHash = hash(id) | 1
	if s.issue(f.callHash, ev.ToolCallID, ev.ToolName) {
		ev.Note(NoteCallIDRepeat, a.Copy(format.Clip(id)))
	}
}

// output reads a tool output: its call_id, answered in the state, which
// names its tool.
func (j *judge) output(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	id, ok := format.NonEmptyStr(&j.c, fCallID)
	if !ok {
		return
	}
	ev.ToolCallID = a.Copy(id)
	if s == nil {
		return
	}
	f.callHash = hash(id) | 1
	name, issued, verified := s.answer(f.callHash, a)
	ev.ToolName = name
	if !issued && verified {
		ev.Note(NoteToolResultWithoutCall, a.Copy(format.Clip(id)))
	}
}
