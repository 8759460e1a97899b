package codelia

import (
	"bytes"
	"strconv"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// judge judges lines; one per goroutine. It does not allocate per line
// once its buffers and the state's have grown.
type judge struct {
	cfg *Config
	c   integrity.Capture
	k   checker
	num []byte // a detail being formatted
}

// Judge implements format.Judge (docs/formats/codelia.md, The rules
// journalship applies). st is advanced by the line when it is this
// format's *State.
func (j *judge) Judge(line []byte, st format.State, a *integrity.Arena, ev *format.Event) {
	ev.Reset()
	s, _ := st.(*State)
	j.judge(line, s, a, ev)
	if s == nil {
		return
	}
	s.lines++
	if ev.Outcome != integrity.Corrupt {
		s.readable = true
		ev.State = s.derived
		if len(ev.SessionID) == 0 && len(s.sessionID) > 0 {
			ev.SessionID = a.Copy(s.sessionID)
		}
	}
}

func (j *judge) judge(line []byte, s *State, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	name, ok := format.Begin(c, line, recordPaths, rType, reasonNoType, ev)
	if !ok {
		return
	}
	t := typeOf(name)
	ev.EventType, ev.Role = typeNames[t], roles[t]
	if t == tUnknown {
		ev.TypeName = a.Copy(name)
		if !namespaced(name) {
			ev.Flags |= format.UnknownType
		}
	}
	j.k = checker{Checker: format.Checker{Capture: c, Paths: recordPaths, Event: ev}, a: a}
	if t == tHeader {
		c.Scan(line, headerPaths) // the same line: the same verdict
		j.k.Paths = headerPaths
		j.header(s, a, ev)
		return
	}
	k := &j.k
	k.BestEffort = s != nil && s.bestEffort
	if k.BestEffort {
		ev.Flags |= format.BestEffort
	}
	if s != nil && !s.readable && !s.headerSeen {
		ev.Note(NoteHeaderMissing, nil)
	}
	k.Dup(rType)
	if t == tUnknown {
		ev.Time, ev.HasTime = c.Time(rTS) // read, not judged
	} else {
		checkRecord(k, t)
	}
	j.record(t, s, a, ev)
}

// header judges a header with the schema of the version it declares and
// makes the first header the file's (docs/formats/codelia.md, Header and
// schema versions).
func (j *judge) header(s *State, a *integrity.Arena, ev *format.Event) {
	c, k := &j.c, &j.k
	if s != nil && s.lines > 0 {
		ev.Note(NoteHeaderMisplaced, nil)
	}
	version, hasVersion := c.Int(hSchemaVersion)
	unknown := hasVersion && version >= 1 && !j.cfg.known(version)
	if unknown {
		k.BestEffort = true
		ev.Flags |= format.BestEffort
		j.num = strconv.AppendInt(j.num[:0], version, 10)
		ev.Note(NoteSchemaVersionUnknown, a.Copy(j.num))
	}
	k.Dup(hType)
	switch kind := k.Present(hSchemaVersion, true); {
	case kind == integrity.JSONAbsent:
	case !hasVersion:
		k.Bad(hSchemaVersion, format.ReasonInteger)
	case version < 1:
		k.Bad(hSchemaVersion, reasonMin1)
	}
	ev.SchemaVersion, ev.HasSchemaVersion = version, hasVersion
	checkHeader(k)
	if sid, ok := format.NonEmptyStr(c, hSessionID); ok {
		ev.SessionID = a.Copy(sid)
	}
	if m, ok := format.NonEmptyStr(c, hModelName); ok {
		ev.Model = a.Copy(m)
	}
	if rid, ok := format.NonEmptyStr(c, hRunID); ok {
		ev.RunID = a.Copy(rid)
	}
	if s == nil {
		return
	}
	if s.headerSeen {
		j.checkRunID(s, ev.RunID, a, ev)
		return
	}
	s.headerSeen, s.bestEffort = true, unknown
	if len(ev.SessionID) > 0 {
		s.sessionID = append(s.sessionID[:0], ev.SessionID...)
	}
	s.headerModel = append(s.headerModel[:0], ev.Model...)
	if prov, ok := format.NonEmptyStr(c, hModelProvider); ok {
		s.headerStyle = styleOf(prov)
	}
	if len(ev.RunID) > 0 {
		s.runID = append(s.runID[:0], ev.RunID...)
		if len(s.pathRunID) > 0 && !bytes.Equal(s.pathRunID, ev.RunID) {
			ev.Note(NoteFileNameMismatch, a.Copy(s.pathRunID))
		}
	}
	if !s.pathDate.IsZero() && ev.HasTime {
		y, m, d := ev.Time.UTC().Date()
		if day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC); !day.Equal(s.pathDate) {
			j.num = day.AppendFormat(j.num[:0], time.DateOnly)
			ev.Note(NoteDateMismatch, a.Copy(j.num))
		}
	}
}

// record reads what a record other than the header tells and advances the
// file's state by it.
func (j *judge) record(t int, s *State, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	if rid, ok := format.NonEmptyStr(c, rRunID); ok {
		ev.RunID = a.Copy(rid)
		j.checkRunID(s, ev.RunID, a, ev)
	} else if s != nil {
		ev.RunID = a.Copy(s.reference())
	}
	if t == tUnknown {
		return
	}
	if seq, ok := c.Int(rSeq); ok && seq >= 0 && (t == tAgentEvent || t == tLLMRequest || t == tLLMResponse) {
		ev.Seq, ev.HasSeq = seq, true
	}
	switch t {
	case tRunStart:
		if sid, ok := format.NonEmptyStr(c, rSessionID); ok {
			ev.SessionID = a.Copy(sid)
			if s != nil && len(s.sessionID) == 0 {
				s.sessionID = append(s.sessionID, ev.SessionID...)
			}
		}
	case tAgentEvent:
		if et, _ := c.Str(rEventType); string(et) == "tool_call" {
			ev.Role = format.RoleToolCall
		}
		j.tool(rEventTool, rEventToolCallID, a, ev)
		if ev.HasSeq && s != nil {
			j.order(s.event(ev.Seq), NoteEventSeqRepeat, NoteEventSeqRegression, a, ev)
		}
	case tToolOutput:
		j.tool(rTool, rToolCallID, a, ev)
	case tLLMRequest:
		j.request(s, a, ev)
	case tLLMResponse:
		j.response(s, a, ev)
	case tRunStatus:
		if j.k.enumSet {
			ev.Ends = terminalStatus(j.k.enum)
			ev.Terminal = ev.Ends
			if st, ok := c.Str(rStatus); ok && ev.Ends {
				ev.EndReason = a.Copy(st)
			}
			if s != nil {
				s.status(j.k.enum, ev.Ends)
			}
		}
	case tRunEnd:
		ev.Ends, ev.Terminal = true, true
		if out, ok := c.Str(rOutcome); ok {
			ev.EndReason = a.Copy(out) // as written, an unknown outcome too
		}
		if s != nil {
			s.end(j.k.enum, j.k.enumSet)
		}
	}
}

// checkRunID annotates a run_id other than the file's.
func (j *judge) checkRunID(s *State, rid []byte, a *integrity.Arena, ev *format.Event) {
	if s == nil || len(rid) == 0 {
		return
	}
	ref := s.reference()
	if len(ref) == 0 {
		s.runID = append(s.runID, rid...)
		return
	}
	if !bytes.Equal(ref, rid) {
		ev.Note(NoteRunIDMismatch, a.Copy(ref))
	}
}

func (j *judge) tool(name, callID int, a *integrity.Arena, ev *format.Event) {
	if s, ok := format.NonEmptyStr(&j.c, name); ok {
		ev.ToolName = a.Copy(s)
	}
	if s, ok := format.NonEmptyStr(&j.c, callID); ok {
		ev.ToolCallID = a.Copy(s)
	}
}
