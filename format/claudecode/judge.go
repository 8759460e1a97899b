package claudecode

import (
	"bytes"
	"math"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// judge judges lines; one per goroutine. It does not allocate per line
// once its buffers and the state's have grown.
type judge struct {
	c    integrity.Capture
	k    format.Checker
	it   blockIter
	b    block
	buf  []byte // a block's string, decoded
	buf2 []byte // a second one (a tool_use's name beside its id)
	num  []byte // a detail being formatted
	// outer and inner read a result's modelUsage: its models, and each
	// model's counts.
	outer, inner integrity.Members
}

// facts is what the judge read of a line for the state and the usage.
type facts struct {
	t      lineType
	stream bool // the stream-json dialect
	// copy: the line's session is not the file's (history a fork copied).
	copy bool
	// sidechain: a subagent's line (isSidechain, or in stream-json a
	// parent_tool_use_id).
	sidechain bool
	synthetic bool // a <synthetic> model

	// stop is the stop_reason: a known value, stopUnknown for another
	// string, "" for null or none.
	stop string
	// The blocks of message.content.
	toolUse, text, thinking, toolResult bool
	// A user line that is no prompt (isMeta, isCompactSummary) or a slash
	// command and its output; interrupted: the interruption marker.
	meta, command, interrupted bool
	firstTool                  bool // the event's tool fields are set
}

const stopUnknown = "?"

// Markers at the start of a user line's text (docs/formats/claude-code.md,
// Derived agent state).
const markerInterrupted = "[Request interrupted by user"

var commandMarkers = [...]string{"<command-name>", "<command-message>", "<local-command-stdout>",
	"<local-command-stderr>", "<local-command-caveat>"}

// Judge implements format.Judge (docs/formats/claude-code.md, The rules
// journalship applies). st is advanced by the line when it is this
// format's *State.
func (j *judge) Judge(line []byte, st format.State, a *integrity.Arena, ev *format.Event) {
	ev.Reset()
	s, _ := st.(*State)
	if s != nil {
		s.last.set, s.last.model = false, -1 // before any return: Withdraw undoes this line alone
	}
	c := &j.c
	name, ok := format.Begin(c, line, paths, pType, reasonNoType, ev)
	if !ok {
		return
	}
	t := typeOf(name)
	f := facts{t: t, stream: dialect(c, s, t)}
	ev.EventType, ev.Role = typeNames[t], roles[t]
	if t == tUnknown {
		ev.TypeName = a.Copy(name)
		ev.Flags |= format.UnknownType
	}
	j.k = format.Checker{Capture: c, Paths: paths, Event: ev}
	j.k.Dup(pType)
	if t != tUnknown {
		checkLine(&j.k, t, f.stream)
	}
	if !ev.HasTime {
		// A timestamp the type does not require: read, not judged.
		ev.Time, ev.HasTime = c.Time(pTimestamp)
	}
	if ev.HasTime && ev.Time.IsZero() {
		// 0001-01-01T00:00:00Z is no time anyone wrote (Go's zero time,
		// an unset field): the line has none, the pipeline falls back.
		ev.Time, ev.HasTime = time.Time{}, false
	}
	j.ids(s, &f, a, ev)
	j.read(s, &f, a, ev)
	if s != nil {
		if t.envelope() && !f.stream {
			j.continuity(s, a, ev)
		}
		s.derive(&f)
		ev.State = s.derived
	}
	j.usage(s, &f, a, ev)
}

// dialect tells whether a line is judged as stream-json: the file's
// dialect, decided by its first readable line, or the line's own without
// a state. A line with session_id and no sessionId, or of a type only
// stream-json has, is stream-json.
func dialect(c *integrity.Capture, s *State, t lineType) bool {
	if s != nil && s.decided {
		return s.stream
	}
	stream := t == tResult || t == tStreamEvent ||
		c.Get(pSessionIDSnake).Kind == integrity.JSONString && !c.Has(pSessionID)
	if s != nil {
		s.decided, s.stream = true, stream
	}
	return stream
}

// ids sets the line's session and agent (docs/formats/claude-code.md,
// Model and ids): the path's session when it names one (a transcript), else
// the line's; the line's agentId, else the agent file's.
func (j *judge) ids(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	sid, ok := format.NonEmptyStr(c, pSessionID)
	if !ok {
		sid, ok = format.NonEmptyStr(c, pSessionIDSnake)
	}
	switch {
	case s == nil:
		if ok {
			ev.SessionID = a.Copy(sid)
		}
	case len(s.session) > 0 && !f.stream:
		ev.SessionID = a.Copy(s.session)
		if ok && !bytes.Equal(sid, s.session) {
			f.copy = true
			ev.Note(NoteSessionIDMismatch, a.Copy(format.Clip(sid)))
		}
	case ok:
		ev.SessionID = a.Copy(sid)
		if len(s.fileSession) == 0 {
			s.fileSession = append(s.fileSession, sid...)
		}
	case len(s.fileSession) > 0:
		ev.SessionID = a.Copy(s.fileSession)
	default:
		ev.SessionID = a.Copy(s.session)
	}
	if !f.t.envelope() {
		if s != nil {
			ev.AgentID = a.Copy(s.agent)
		}
		return
	}
	if f.stream {
		pt, _ := c.Str(pParentToolUseID)
		f.sidechain = len(pt) > 0
	} else {
		f.sidechain = c.Get(pIsSidechain).Kind == integrity.JSONTrue
		if aid, ok := format.NonEmptyStr(c, pAgentID); ok {
			ev.AgentID = a.Copy(aid)
			if s != nil && len(s.agent) > 0 && !bytes.Equal(ev.AgentID, s.agent) {
				ev.Note(NoteAgentIDMismatch, format.Clip(ev.AgentID))
			}
		}
	}
	if len(ev.AgentID) == 0 && s != nil {
		ev.AgentID = a.Copy(s.agent)
	}
}

// read reads what each type tells besides its schema: roles by subtype and
// blocks, model, tools, checkpoints and the end of a run.
func (j *judge) read(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	switch f.t {
	case tUser:
		j.user(s, f, a, ev)
	case tAssistant:
		j.assistant(s, f, a, ev)
	case tSystem:
		switch sub, _ := c.Str(pSubtype); string(sub) {
		case "api_error":
			ev.Role = format.RoleError
		case "compact_boundary", "microcompact_boundary":
			ev.Role = format.RoleCheckpoint
		case "init":
			if f.stream {
				ev.Role = format.RoleSessionStart
			}
		}
	case tFileHistorySnapshot:
		ev.Flags |= format.SavesCheckpoint
		if id, ok := format.NonEmptyStr(c, pSnapshotMessageID); ok {
			ev.CheckpointID = a.Copy(id)
		}
	case tResult:
		// The headless run ended; the session may be resumed.
		ev.Ends = true
		if sub, ok := c.Str(pSubtype); ok {
			ev.EndReason = a.Copy(sub)
		}
		if usd, ok := c.Float(pTotalCost); ok && usd >= 0 && !math.IsInf(usd, 0) {
			ev.CostUSD, ev.HasCost = usd, true
		}
	}
}

// user reads a user line: its tool results (role tool_result, paired with
// their tool_use), and whether its text is a prompt.
func (j *judge) user(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	f.meta = c.Get(pIsMeta).Kind == integrity.JSONTrue || c.Get(pIsCompactSummary).Kind == integrity.JSONTrue
	switch c.Get(pMessageContent).Kind {
	case integrity.JSONString:
		raw := c.Raw(pMessageContent)
		j.text(f, raw[1:len(raw)-1], true)
	case integrity.JSONArray:
		j.it.reset(c.Raw(pMessageContent))
		for j.nextBlock(ev) {
			switch j.blockType(ev) {
			case blockText:
				if !f.text {
					f.text = true
					if sl := &j.b.slot[bText]; j.b.has(bText) && sl.Kind == integrity.JSONString {
						j.text(f, sl.Str(j.b.elem), sl.Esc)
					}
				}
			case blockToolResult:
				f.toolResult = true
				j.toolResult(s, f, a, ev)
			}
		}
	}
	if f.toolResult {
		ev.Role = format.RoleToolResult
	}
}

// text reads the start of a user line's text (raw: as written, escaped
// when esc): the interruption marker, or a slash command and its output.
func (j *judge) text(f *facts, raw []byte, esc bool) {
	head := textHead(raw, esc, &j.buf)
	if bytes.HasPrefix(head, []byte(markerInterrupted)) {
		f.interrupted = true
		return
	}
	for _, m := range commandMarkers {
		if bytes.HasPrefix(head, []byte(m)) {
			f.command = true
			return
		}
	}
}

// toolResult pairs a tool_result block with the tool_use it answers; the
// first one names the line's tool.
func (j *judge) toolResult(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	id, ok := j.blockStr(ev, bToolUseID, fieldBlockToolUseID, true, &j.buf)
	if !ok {
		return
	}
	first := !f.firstTool
	if first {
		f.firstTool = true
		ev.ToolCallID = a.Copy(id)
	}
	if s == nil {
		return
	}
	name, issued, verified := s.answer(hash(id), a)
	if first {
		ev.ToolName = name
	}
	switch {
	case issued:
	case verified:
		ev.Note(NoteToolResultWithoutCall, a.Copy(format.Clip(id)))
	default:
		s.lost(ev)
	}
}

// assistant reads an assistant line: its model, stop_reason and blocks;
// the first tool_use names the line's tool.
func (j *judge) assistant(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	switch m, _ := c.Str(pMessageModel); {
	case string(m) == syntheticModel:
		f.synthetic = true
	case len(m) > 0:
		ev.Model = a.Copy(m)
	}
	if sr, ok := c.Str(pStopReason); ok {
		if f.stop = stopReason(sr); f.stop == stopUnknown {
			ev.Note(NoteUnknownStopReason, a.Copy(format.Clip(sr)))
		}
	}
	if c.Get(pMessageContent).Kind != integrity.JSONArray {
		return
	}
	j.it.reset(c.Raw(pMessageContent))
	for j.nextBlock(ev) {
		switch j.blockType(ev) {
		case blockText:
			f.text = true
		case blockThinking:
			f.thinking = true
		case blockToolUse:
			f.toolUse = true
			id, okID := j.blockStr(ev, bID, fieldBlockID, true, &j.buf)
			name, okName := j.blockStr(ev, bName, fieldBlockName, false, &j.buf2)
			if !f.firstTool {
				f.firstTool = true
				ev.ToolCallID, ev.ToolName = a.Copy(id), a.Copy(name)
			}
			if s != nil && okID {
				if !okName {
					name = nil
				}
				if s.issue(hash(id), id, name) {
					s.lost(ev)
				}
			}
		}
	}
}

// stopReason returns the known stop_reason v is, or stopUnknown.
func stopReason(v []byte) string {
	for _, r := range stopReasons {
		if string(v) == r {
			return r
		}
	}
	return stopUnknown
}

// nextBlock reads the next content block into j.b; false at the end (an
// element that is not an object ends the walk, a violation).
func (j *judge) nextBlock(ev *format.Event) bool {
	ok, notObject := j.it.next(&j.b)
	if notObject {
		violateOnce(ev, fieldBlock, format.ReasonObject)
	}
	return ok
}

// blockType judges the current block's type and returns its kind
// (blockOther when it has no string type).
func (j *judge) blockType(ev *format.Event) blockKind {
	t, ok := j.blockStr(ev, bType, fieldBlockType, false, &j.buf)
	if !ok {
		return blockOther
	}
	return blockKindOf(t)
}

// blockStr judges a string member of the current block (required, and
// non-empty when nonEmpty) and returns it when it is one.
func (j *judge) blockStr(ev *format.Event, id int, field string, nonEmpty bool, buf *[]byte) ([]byte, bool) {
	b := &j.b
	if b.count[id] > 1 {
		ev.Flags |= format.DuplicateKey
		violateOnce(ev, field, format.ReasonDuplicate)
	}
	if !b.has(id) {
		violateOnce(ev, field, format.ReasonRequired)
		return nil, false
	}
	s, ok := b.str(id, buf)
	switch {
	case !ok:
		violateOnce(ev, field, format.ReasonString)
	case nonEmpty && len(s) == 0:
		violateOnce(ev, field, format.ReasonEmpty)
	default:
		return s, true
	}
	return nil, false
}

// violateOnce records a violation unless the line has it already: a line
// of many bad blocks lists each rule once.
func violateOnce(ev *format.Event, field, reason string) {
	for _, v := range ev.Violations {
		if v.Field == field && v.Reason == reason {
			return
		}
	}
	ev.Violate(field, reason)
}

// continuity checks a transcript line's links (docs/formats/claude-code.md,
// Continuity): its parentUuid must name a line seen before, its uuid must
// be new. A compact_boundary's logicalParentUuid is not checked: it names
// the last message of the conversation as the runtime held it, which the
// runtime need not have written.
func (j *judge) continuity(s *State, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	if p, ok := format.NonEmptyStr(c, pParentUUID); ok {
		switch known, verified := s.knownUUID(hash(p)); {
		case known:
		case verified:
			ev.Note(NoteParentMissing, a.Copy(format.Clip(p)))
		default:
			s.lost(ev)
		}
	}
	if u, ok := format.NonEmptyStr(c, pUUID); ok {
		switch repeat, lost := s.sawUUID(hash(u)); {
		case repeat:
			ev.Note(NoteUUIDRepeat, nil)
		case lost:
			s.lost(ev)
		}
	}
}
