package orbitmesh

import (
	"bytes"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// judge judges lines with one Capture; no allocation per line.
type judge struct{ c integrity.Capture }

// reasonNoKind is the corrupt reason of a JSON object without a string
// kind.
const reasonNoKind = `no string "kind"`

// Judge implements format.Judge: the line schema of
// docs/formats/orbitmesh.md, Records, then, when st is the file's *State,
// the line's effect on the derived status and its annotations.
func (j *judge) Judge(line []byte, st format.State, a *integrity.Arena, ev *format.Event) {
	ev.Reset()
	if s, _ := st.(*State); s != nil {
		s.undone = false // before any return: Withdraw undoes this line alone
	}
	c := &j.c
	name, ok := format.Begin(c, line, paths, pKind, reasonNoKind, ev)
	if !ok {
		return
	}
	k := kindOf(name)
	switch k {
	case kUnknown:
		ev.Flags |= format.UnknownType
		ev.TypeName = a.Copy(name)
	case kMessageOther:
		ev.TypeName = a.Copy(name)
	}
	ev.EventType, ev.Role = kindNames[k], roles[k]
	j.dup(pKind, ev)
	if j.currentShape(k) {
		f := j.currentSchema(k, a, ev)
		s, _ := st.(*State)
		s.judgeCurrent(&f, a, ev) // s nil: without a state
		return
	}
	f := j.schema(k, a, ev)
	if s, _ := st.(*State); s != nil {
		s.judge(k, &f, a, ev)
	}
}

// judge advances the state by one judged line and sets the line's
// derived status, end and notes.
func (s *State) judge(k kind, f *fields, a *integrity.Arena, ev *format.Event) {
	if ev.HasSeq && (!s.hasMaxSeq || ev.Seq > s.maxSeq) {
		s.maxSeq, s.hasMaxSeq = ev.Seq, true
	}
	snap := s.snapApplies()
	switch {
	case k == kMessageAssistant && len(s.model) > 0:
		ev.Model = a.Copy(s.model)
	case k == kStatusDerived && f.status != "":
		if want := s.derive(snap, ev.Time, ev.HasTime); want != f.status {
			ev.Note(NoteStatusDisagrees, statusDetail[want])
		}
	case k.token() && k != kTokenMinted:
		if s.hasRun && !s.terminal && s.waiting && f.tokenID != nil && bytes.Equal(f.tokenID, s.token) {
			s.tokenGone = true
		}
	case k.run():
		s.runRecord(k, f, ev)
	}
	ev.State = s.derive(snap, ev.Time, ev.HasTime)
}

// runRecord applies a run.* record (docs/formats/orbitmesh.md, Derived
// status).
func (s *State) runRecord(k kind, f *fields, ev *format.Event) {
	latest := s.runFor(f.runID, k == kRunStarted)
	if k == kRunInterrupted {
		h := s.runHash
		if f.runID != nil {
			h = hash(f.runID)
		}
		if s.interrupted.has(h) {
			ev.Note(NoteDuplicateInterrupt, nil)
		} else {
			s.interrupted.add(h)
		}
	}
	if !latest || s.terminal {
		return // an earlier run's record, or one after the run ended
	}
	switch {
	case k == kRunWaiting:
		s.waiting, s.token, s.tokenGone = true, append(s.token[:0], f.tokenID...), false
	case k == kRunResumed:
		s.waiting = false
	case k == kRunInterrupted:
		s.intr, s.intrWait = f.reason, s.waiting || f.reason == intrTimeout
		fallthrough
	case k.terminal():
		s.terminal, s.waiting = true, false
		ev.Ends, ev.Terminal = true, true
		ev.EndReason = endReasons[k-kRunCompleted]
	}
}

// endReasons are how each terminal kind says the run ended, in the order
// of the kinds kRunCompleted to kRunInterrupted (shared, never written).
var endReasons = [...][]byte{[]byte("completed"), []byte("failed"), []byte("cancelled"), []byte("interrupted")}
