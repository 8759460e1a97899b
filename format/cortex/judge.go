package cortex

import "github.com/journalship/journalship/integrity"

// lineJudge applies an event type's schema to the known fields of one line,
// member by member as integrity's scan hands them out (see
// Validator.judgeLine).
type lineJudge struct {
	verdict
	v       *Validator
	line    []byte
	badType bool // the type is not a string: the line is corrupt
}

// verdict is what applying the schema to one line builds, whichever
// reader hands the fields over (the scan here, fastjson in the test
// oracle of legacy_test.go): the event, the violations, the fields seen.
type verdict struct {
	ev         *Event
	a          *integrity.Arena
	spec       *kindSpec // nil until the type is known
	bestEffort bool
	seen       mask
}

// member takes the next top-level member of the line, whose key names f.
func (j *lineJudge) member(f field, m *integrity.Member) {
	switch {
	case f == fNone || j.badType:
	case j.spec != nil:
		if f == fTimestamp {
			j.v.set.add(f, m) // for the corrupt check at the end
		}
		j.visit(f, &m.Slot)
	default:
		set := &j.v.set
		set.add(f, m)
		if f == fType && !m.KeyEsc {
			// The first "type" written plainly is the type (see
			// fieldSet.typeAndTimestamp): judge what waited, go on as the
			// members come.
			if m.Kind != integrity.JSONString {
				j.badType = true
				return
			}
			j.begin(&m.Slot)
		}
	}
}

// begin sets the event type from the type's value and judges the members
// that came before it.
func (j *lineJudge) begin(t *integrity.Slot) {
	name := t.Str(j.line)
	if t.Esc {
		name = j.v.unescape(name)
	}
	ev := j.ev
	ev.TypeName = j.a.Copy(name)
	ev.Kind = KindOf(name)
	if ev.Kind == KindUnknown {
		ev.Flags |= UnknownType
	}
	j.spec = &kinds[ev.Kind]
	set := &j.v.set
	for _, f := range set.order {
		j.visit(f, &set.first[f])
	}
}

// end applies the seed's minimal structure rule once the whole line is
// read: a string type and a string timestamp, else the line is corrupt (as
// the runtime's reader refuses it, see reread.go). It returns the reason,
// or "".
func (j *lineJudge) end() string {
	if j.badType {
		return reasonNoType
	}
	t, ts := j.v.set.typeAndTimestamp()
	if t == nil || t.Kind != integrity.JSONString {
		return reasonNoType
	}
	if ts == nil || ts.Kind != integrity.JSONString {
		return reasonNoTime
	}
	if j.spec == nil {
		j.begin(t) // the type's key has escapes: it is known only now
	}
	return ""
}

// visit judges one occurrence of a known field, in the order of the line;
// val is the field's first value.
func (j *lineJudge) visit(f field, val *integrity.Slot) {
	if !j.spec.known.has(f) {
		return // fields of other event types pass, like unknown ones
	}
	if j.seen.has(f) {
		j.ev.Flags |= DuplicateKey
		j.report(f, reasonDuplicate)
		return
	}
	j.seen |= 1 << f
	switch c := fields[f].check; {
	case val.Kind == integrity.JSONNull:
		if !j.spec.nullable.has(f) {
			j.report(f, reasonNull)
		}
	case c == cInt || c == cInt0 || c == cInt1:
		j.checkInt(f, c, val)
	case c == cBool:
		if val.Kind != integrity.JSONTrue && val.Kind != integrity.JSONFalse {
			j.report(f, reasonNotBool)
		}
		if f == fIsSideEffect && val.Kind == integrity.JSONTrue {
			j.ev.SideEffect = true
		}
	case val.Kind != integrity.JSONString:
		j.report(f, reasonNotString)
	case val.Shaped:
		j.keepString(f, val.Str(j.line)) // a uuid or hash, already checked
	default:
		j.checkString(f, c, val)
	}
}

// report records a violation, unless best-effort mode ignores the field.
func (j *verdict) report(f field, reason string) {
	if j.bestEffort && !bestEffortRequired.has(f) && f != fSeq {
		return
	}
	j.ev.violate(fields[f].name, reason)
}

// finish flags best effort, reports the missing required fields and sets
// the outcome.
func (j *verdict) finish() {
	if j.bestEffort {
		j.ev.Flags |= BestEffort
	}
	required := j.spec.required
	if j.bestEffort {
		required = bestEffortRequired
	}
	if missing := required &^ j.seen; missing != 0 {
		for f := field(0); f < fieldCount; f++ {
			if missing.has(f) {
				j.ev.violate(fields[f].name, reasonRequired)
			}
		}
	}
	if len(j.ev.Violations) > 0 {
		j.ev.Outcome = integrity.SchemaInvalid
	}
}

func (j *lineJudge) checkInt(f field, c check, val *integrity.Slot) {
	n, ok := val.Int(j.line)
	switch {
	case !ok && val.IntOutOfRange(j.line):
		j.report(f, reasonOutOfRange)
		return
	case !ok:
		j.report(f, reasonNotInteger)
		return
	case c == cInt0 && n < 0:
		j.report(f, reasonMin0)
		return
	case c == cInt1 && n < 1:
		j.report(f, reasonMin1)
		return
	}
	j.keepInt(f, n)
}

// checkString judges a string value and keeps it when the Event wants it.
// Escapes are decoded only when the decoded text matters.
func (j *lineJudge) checkString(f field, c check, val *integrity.Slot) {
	s := val.Str(j.line)
	switch c {
	case cTypeName, cString:
		if !keeps(f) {
			return // any string passes
		}
	case cMax1024:
		if integrity.Longer(s, val.Esc, 1024) {
			j.report(f, reasonMax1024)
		}
		return
	case cMax4096:
		if integrity.Longer(s, val.Esc, 4096) {
			j.report(f, reasonMax4096)
		}
		return
	}
	if val.Esc {
		s = j.v.unescape(s)
	}
	if c == cDateTime {
		t, ok := integrity.ParseTime(s)
		if !ok {
			j.report(f, reasonDateTime)
			return
		}
		j.ev.Timestamp, j.ev.HasTimestamp = t, true
		return
	}
	if reason := checkText(c, s); reason != "" {
		j.report(f, reason)
		if f == fReason {
			j.keepString(f, s) // verify shows the reason the session gave
		}
		return
	}
	j.keepString(f, s)
}

// checkText judges decoded text against its rule.
func checkText(c check, s []byte) string {
	switch c {
	case cNonEmpty:
		if len(s) == 0 {
			return reasonEmpty
		}
	case cUUID:
		if !integrity.IsUUID(s) {
			return reasonUUID
		}
	case cHex64:
		if !integrity.IsHex64(s) {
			return reasonHex64
		}
	case cFinishReason:
		switch string(s) {
		case "end_turn", "tool_use", "max_tokens", "stop_sequence":
		default:
			return reasonFinish
		}
	case cEndReason:
		switch string(s) {
		case "completed", "failed", "approval_pause", "cancelled":
		default:
			return reasonEndReason
		}
	}
	return ""
}

// keeps tells whether the Event keeps a string field's value.
func keeps(f field) bool {
	switch f {
	case fJobID, fSessionID, fAgentID, fPodName, fModel, fFinishReason,
		fCheckpointID, fInvocationID, fToolName, fReason:
		return true
	}
	return false
}

// keepString stores a kept string field's value in the event (copied
// into the arena).
func (j *verdict) keepString(f field, s []byte) {
	ev, a := j.ev, j.a
	switch f {
	case fJobID:
		ev.JobID = a.Copy(s)
	case fSessionID:
		ev.SessionID = a.Copy(s)
	case fAgentID:
		ev.AgentID = a.Copy(s)
	case fPodName:
		ev.PodName = a.Copy(s)
	case fModel:
		ev.Model = a.Copy(s)
	case fFinishReason:
		ev.FinishReason = a.Copy(s)
	case fCheckpointID:
		ev.CheckpointID = a.Copy(s)
	case fInvocationID:
		ev.InvocationID = a.Copy(s)
	case fToolName:
		ev.ToolName = a.Copy(s)
	case fReason:
		ev.EndReason = a.Copy(s)
	}
}

// keepInt stores a kept integer field's value in the event.
func (j *verdict) keepInt(f field, n int64) {
	ev := j.ev
	switch f {
	case fSeq:
		ev.Seq, ev.HasSeq = n, true
	case fBufferSchemaVersion:
		ev.SchemaVersion, ev.HasSchemaVersion = n, true
	case fStepIndex:
		ev.StepIndex, ev.HasStepIndex = n, true
	case fPromptTokens:
		ev.PromptTokens = n
		ev.HasTokens = true
	case fCompletionTokens:
		ev.CompletionTokens = n
		ev.HasTokens = true
	}
}
