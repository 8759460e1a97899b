package gosession

import (
	"math"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// judge judges lines; one per goroutine. It does not allocate per line
// once its buffers and the state's have grown.
type judge struct {
	c    integrity.Capture // the line
	tc   integrity.Capture // one tool_calls entry
	el   elements
	name []byte // a tool call's name, while its id is read
	ts   []byte // a timestamp rewritten in UTC form
}

// Judge implements format.Judge (docs/formats/go-session.md, The rules
// journalship applies). A line of messages.jsonl is a message, one of
// transcript.jsonl an SDK message; when st does not know its journal (no
// Load, or no state), a line with a string role is a message and any
// other with a type a transcript line. st is advanced by the line when it
// is this format's *State.
func (j *judge) Judge(line []byte, st format.State, a *integrity.Arena, ev *format.Event) {
	ev.Reset()
	s, _ := st.(*State)
	c := &j.c
	if reason := c.Scan(line, linePaths); reason != "" {
		ev.Corrupt(reason)
		return
	}
	journal := NotAJournal
	if s != nil {
		journal = s.journal
	}
	if journal == NotAJournal {
		journal = Messages
		if c.Get(pRole).Kind != integrity.JSONString && c.Has(pType) {
			journal = Transcript
		}
	}
	if journal == Transcript {
		j.transcript(s, a, ev)
		return
	}
	j.message(s, a, ev)
}

// transcript judges an SDK message: a JSON object with a string type,
// nothing more (docs/formats/go-session.md, transcript.jsonl).
func (j *judge) transcript(s *State, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	ev.EventType, ev.Role = TypeTranscript, format.RoleOther
	switch v := j.dup(pType, ev); v.Kind {
	case integrity.JSONAbsent:
		ev.Violate("type", reasonRequired)
	case integrity.JSONString:
		t, _ := c.Str(pType)
		ev.TypeName = a.Copy(t)
		if string(t) == "result" {
			// The run's cost as the loop stated it: shipped, never added.
			if f, ok := c.Float(pTotalCost); ok && f >= 0 && !math.IsInf(f, 0) {
				ev.CostUSD, ev.HasCost = f, true
			}
		}
	default:
		ev.Violate("type", reasonString)
	}
	if s != nil {
		s.sawTranscript = true
		ev.SessionID = a.Copy(s.sessionID)
	}
}

// message judges a message (docs/formats/go-session.md, messages.jsonl),
// flat or nested in "message" as its content says (shapeOf), and advances
// the state by it.
func (j *judge) message(s *State, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	sh := shapeOf(c)
	name, ok := c.Str(sh.role)
	switch {
	case sh == &nestedShape && c.Get(pMessage).Count > 1:
		ev.Corrupt(reasonTwoMessages) // which message is the line's is ambiguous
		return
	case !ok:
		ev.Corrupt(sh.noRole)
		return
	}
	r := roleOf(name)
	ev.EventType, ev.Role = roleNames[r], roles[r]
	if r == rOther {
		ev.TypeName = a.Copy(name)
		ev.Flags |= format.UnknownType
	}
	j.dup(sh.role, ev)
	known := r != rOther // an unknown role's fields are read, not judged

	// uuid: its hash, for uuid_repeat.
	var uuidHash uint64
	uuid, hasUUID := j.nonEmpty(pUUID, known, true, ev)
	if hasUUID && s != nil {
		uuidHash = s.hash(uuid)
	}
	var tsKind integrity.JSONKind
	if known {
		tsKind = j.dup(pTimestamp, ev).Kind
	}
	if t, ok := j.time(pTimestamp); ok {
		ev.Time, ev.HasTime = t, true
	} else if known && tsKind == integrity.JSONAbsent {
		ev.Violate("timestamp", reasonRequired)
	} else if known {
		ev.Violate("timestamp", reasonDateTime)
	}
	calls := 0
	var callID []byte
	if known {
		switch j.dup(sh.content, ev).Kind {
		case integrity.JSONAbsent, integrity.JSONString, integrity.JSONArray, integrity.JSONNull:
		default:
			ev.Violate(linePaths.Name(sh.content), reasonContent)
		}
		switch j.dup(sh.toolCalls, ev).Kind {
		case integrity.JSONArray:
			calls = j.toolCalls(sh, r, s, a, ev)
		case integrity.JSONAbsent, integrity.JSONNull:
		default:
			ev.Violate(linePaths.Name(sh.toolCalls), reasonArrOrNull)
		}
		if r == rTool {
			if id, ok := j.nonEmpty(sh.toolCallID, true, true, ev); ok {
				callID = a.Copy(id)
				ev.ToolCallID = callID
			}
		} else {
			j.strOrNull(sh.toolCallID, ev)
		}
		j.strOrNull(sh.name, ev)
	}
	if s == nil {
		if r == rTool && len(callID) > 0 {
			j.ownName(sh, a, ev)
		}
		return
	}

	// Continuity and the derived state.
	if hasUUID && s.uuids.add(uuidHash) {
		ev.Note(NoteUUIDRepeat, nil)
	}
	if ev.HasTime {
		if s.regression(ev.Time) {
			ev.Note(NoteTimestampRegression, a.Copy(s.prevText))
		}
		raw, _ := c.Str(pTimestamp)
		s.advance(ev.Time, raw)
	}
	if r == rTool && len(callID) > 0 {
		callName, issued := s.answer(s.hash(callID))
		if !issued {
			ev.Note(NoteToolResultWithoutCall, clip(callID, maxDetail))
		}
		if len(callName) > 0 {
			ev.ToolName = a.Copy(callName)
		} else {
			j.ownName(sh, a, ev)
		}
	}
	switch r {
	case rAssistant:
		s.table = StateIdle
		if calls > 0 {
			s.table = StateActing
		}
		ev.Model = a.Copy(s.model)
	case rUser, rTool:
		s.table = StateThinking
	}
	s.sawMessage = true
	ev.State = s.table
	ev.SessionID = a.Copy(s.sessionID)
}

// ownName names a tool message's tool by its own name field, when the
// call it answers is unknown.
func (j *judge) ownName(sh *shape, a *integrity.Arena, ev *format.Event) {
	if n, ok := j.c.Str(sh.name); ok && len(n) > 0 {
		ev.ToolName = a.Copy(n)
	}
}

// toolCalls judges the entries of tool_calls, sets the first call's id and
// name on ev, makes an assistant message's calls open in s and returns the
// number of entries.
func (j *judge) toolCalls(sh *shape, r role, s *State, a *integrity.Arena, ev *format.Event) int {
	tc := &j.tc
	j.el.reset(j.c.Raw(sh.toolCalls))
	n := 0
	for entry, ok := j.el.next(); ok; entry, ok = j.el.next() {
		names := sh.callNamesOf(n)
		n++
		if entry[0] != '{' || tc.Scan(entry, callPaths) != "" {
			ev.Violate(names.entry, reasonObject)
			continue
		}
		// The name first: reading the id may reuse the scanner's scratch.
		j.name = j.name[:0]
		for _, f := range [2]struct {
			id    int
			field string
		}{{cFunctionName, names.functionName}, {cName, names.name}} {
			v := tc.Get(f.id)
			if v.Count > 1 {
				ev.Flags |= format.DuplicateKey
				ev.Violate(f.field, reasonDuplicate)
			}
			switch v.Kind {
			case integrity.JSONAbsent:
			case integrity.JSONString:
				if len(j.name) == 0 {
					name, _ := tc.Str(f.id)
					j.name = append(j.name, name...)
				}
			default:
				ev.Violate(f.field, reasonString)
			}
		}
		v := tc.Get(cID)
		if v.Count > 1 {
			ev.Flags |= format.DuplicateKey
			ev.Violate(names.id, reasonDuplicate)
		}
		id, ok := tc.Str(cID)
		switch {
		case v.Kind == integrity.JSONAbsent:
			ev.Violate(names.id, reasonRequired)
			continue
		case !ok || len(id) == 0:
			ev.Violate(names.id, reasonNonEmptyString)
			continue
		}
		if r != rAssistant {
			continue
		}
		if len(ev.ToolCallID) == 0 {
			ev.ToolCallID = a.Copy(id)
			ev.ToolName = a.Copy(j.name)
		}
		if s != nil {
			s.issue(s.hash(id), id, j.name)
		}
	}
	return n
}

// dup returns the value of id, judging a key written twice (the first
// occurrence is the value).
func (j *judge) dup(id int, ev *format.Event) *integrity.Value {
	v := j.c.Get(id)
	if v.Count > 1 {
		ev.Flags |= format.DuplicateKey
		ev.Violate(linePaths.Name(id), reasonDuplicate)
	}
	return v
}

// nonEmpty reads a non-empty string field, judged (when judged) as
// required or only when present; it returns the decoded value (valid
// until the next read of an escaped string).
func (j *judge) nonEmpty(id int, judged, required bool, ev *format.Event) ([]byte, bool) {
	var v *integrity.Value
	if judged {
		v = j.dup(id, ev)
	} else {
		v = j.c.Get(id)
	}
	s, ok := j.c.Str(id)
	switch {
	case ok && len(s) > 0:
		return s, true
	case !judged:
	case v.Kind == integrity.JSONAbsent:
		if required {
			ev.Violate(linePaths.Name(id), reasonRequired)
		}
	default:
		ev.Violate(linePaths.Name(id), reasonNonEmptyString)
	}
	return nil, false
}

// strOrNull judges an optional string field that may be null.
func (j *judge) strOrNull(id int, ev *format.Event) {
	switch j.dup(id, ev).Kind {
	case integrity.JSONAbsent, integrity.JSONString, integrity.JSONNull:
	default:
		ev.Violate(linePaths.Name(id), reasonStrOrNull)
	}
}

// time reads a string value of id as an RFC 3339 date-time, exactly as
// integrity.ParseTime does, without allocating for a numeric offset
// either: Go writes the local one ("+05:30"), and the time package builds
// a new Location for one that is no whole hour. The instant is the same;
// its location is UTC.
func (j *judge) time(id int) (time.Time, bool) {
	s, ok := j.c.Str(id)
	if !ok {
		return time.Time{}, false
	}
	return j.parseTime(s)
}

func (j *judge) parseTime(s []byte) (time.Time, bool) {
	n := len(s)
	if n < len("2006-01-02T15:04:05+00:00") || s[n-6] != '+' && s[n-6] != '-' || s[n-3] != ':' {
		return integrity.ParseTime(s)
	}
	hr, okH := twoDigits(s[n-5 : n-3])
	mm, okM := twoDigits(s[n-2:])
	if !okH || !okM || hr > 23 || mm > 59 {
		return integrity.ParseTime(s)
	}
	j.ts = append(append(j.ts[:0], s[:n-6]...), 'Z')
	t, ok := integrity.ParseTime(j.ts)
	if !ok {
		return integrity.ParseTime(s)
	}
	offset := time.Duration(hr*60+mm) * time.Minute
	if s[n-6] == '-' {
		offset = -offset
	}
	return t.Add(-offset), true
}

func twoDigits(b []byte) (int, bool) {
	if b[0] < '0' || b[0] > '9' || b[1] < '0' || b[1] > '9' {
		return 0, false
	}
	return int(b[0]-'0')*10 + int(b[1]-'0'), true
}
