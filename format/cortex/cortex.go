// Package cortex is the Cortex Plane session buffer format
// (docs/formats/cortex-plane.md): <root>/<job_id>/session_<ts>_<pod>.jsonl,
// events SESSION_START … SESSION_END numbered by seq from 0.
//
// The line schema (schema.go) is judged by this package's Validator
// (validator.go, judge.go), built on integrity's strict one-pass scan of a
// flat object (integrity.Members, integrity.Keys); the format's Judge maps
// the validator's Event onto the format-neutral format.Event.
package cortex

import (
	"path/filepath"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Name is the format label value.
const Name = "cortex"

// Format is the Cortex Plane buffer.
type Format struct{ cfg Config }

// New returns the format with buffer schema version 1 judged strictly.
func New() *Format { return &Format{cfg: DefaultConfig()} }

// NewWith returns the format judging cfg's schema versions strictly.
func NewWith(cfg Config) (*Format, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Format{cfg: cfg}, nil
}

// Name implements format.Format.
func (*Format) Name() string { return Name }

// eventTypes are the event_type values: the buffer's event types.
var eventTypes = func() []string {
	var out []string
	for k := KindSessionStart; k.String() != ""; k++ {
		out = append(out, k.String())
	}
	return out
}()

// EventTypes implements format.Format.
func (*Format) EventTypes() []string { return eventTypes }

// Annotations implements format.Format: the buffer's own annotations are
// the neutral ones (seq, schema, path); none more.
func (*Format) Annotations() []string { return nil }

// Layouts implements format.Format.
func (*Format) Layouts() []string {
	return []string{"<root>/<job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl (root /data/sessions)"}
}

// Claim implements format.Format: a file named session_*.jsonl. The parts
// the name or directory get wrong are the Path's Problem; a path that is
// not claimed still says what it can (for a file found by its content).
func (*Format) Claim(path string) (format.Path, bool) {
	base := filepath.Base(path)
	pi := parsePath(path)
	p := format.Path{Format: Name, JobID: pi.JobID, Pod: pi.Pod, Started: pi.SessionStart,
		Group: filepath.Dir(path), Problem: pi.Problem}
	return p, IsSessionFile(base)
}

var sniffPaths = integrity.MustPaths("type", "job_id")

// Sniff implements format.Format: a JSON object whose type is one of the
// buffer's and which has a string job_id.
func (f *Format) Sniff(first []byte) bool {
	var c integrity.Capture
	if c.Scan(first, sniffPaths) != "" {
		return false
	}
	t, ok := c.Str(0)
	_, job := c.Str(1)
	return ok && job && KindOf(t) != KindUnknown
}

// Seq implements format.Format: 0 for SESSION_START, then one more per
// event.
func (*Format) Seq() format.SeqRule {
	return format.SeqRule{Used: true, Start: 0, HasStart: true, Gaps: true}
}

// Scope implements format.Format: the state is the SESSION_START's.
func (*Format) Scope() format.Scope { return format.ScopeFirstLine }

// NewState implements format.Format.
func (*Format) NewState(format.Path) format.State { return &State{} }

// State is what a file's SESSION_START says, and whether it ended.
type State struct {
	Version         int64
	HasVersion      bool
	SessionID       string
	AgentID         string
	Pod             string
	ended, terminal bool
}

// Open implements format.State: the buffer pairs nothing that must close.
func (*State) Open() []string { return nil }

// Over implements format.State.
func (s *State) Over() (bool, bool) { return s.ended, s.terminal }

// Derived implements format.State: the buffer derives no state.
func (*State) Derived() string { return "" }

// NewJudge implements format.Format.
func (f *Format) NewJudge() format.Judge {
	v, _ := NewValidator(f.cfg) // cfg was validated
	return &judge{v: v}
}

// judge is the format's format.Judge: the validator, and its Event to map.
type judge struct {
	v  *Validator
	ev Event
}

var roles = [...]format.Role{
	KindUnknown:           format.RoleOther,
	KindSessionStart:      format.RoleSessionStart,
	KindCheckpointLoaded:  format.RoleCheckpoint,
	KindLLMRequest:        format.RoleLLMRequest,
	KindLLMResponse:       format.RoleLLMResponse,
	KindToolStart:         format.RoleToolCall,
	KindToolResult:        format.RoleToolResult,
	KindCheckpointWritten: format.RoleCheckpoint,
	KindApprovalRequested: format.RoleStatus,
	KindStateTransition:   format.RoleStatus,
	KindError:             format.RoleError,
	KindSessionEnd:        format.RoleSessionEnd,
}

// Judge implements format.Judge.
func (j *judge) Judge(line []byte, st format.State, a *integrity.Arena, out *format.Event) {
	s, _ := st.(*State)
	bestEffort := s != nil && s.HasVersion && !j.v.KnownVersion(s.Version)
	ev := &j.ev
	j.v.Validate(line, bestEffort, a, ev)
	if ev.Kind == KindSessionStart && s != nil {
		s.learn(ev)
		if s.HasVersion && !j.v.KnownVersion(s.Version) && !bestEffort {
			j.v.Validate(line, true, a, ev)
		}
	}
	if ev.Kind == KindSessionEnd && ev.Outcome != integrity.Corrupt && s != nil {
		s.ended = true
		s.terminal = terminalReason(ev.EndReason)
	}
	convert(ev, out)
}

func (s *State) learn(ev *Event) {
	if ev.HasSchemaVersion {
		s.Version, s.HasVersion = ev.SchemaVersion, true
	}
}

// convert maps the validator's verdict onto the neutral event.
func convert(ev *Event, out *format.Event) {
	out.Reset()
	out.Outcome, out.CorruptReason = ev.Outcome, ev.CorruptReason
	out.Violations = append(out.Violations, ev.Violations...)
	if ev.Flags&UnknownType != 0 {
		out.Flags |= format.UnknownType
	}
	if ev.Flags&BestEffort != 0 {
		out.Flags |= format.BestEffort
	}
	if ev.Flags&DuplicateKey != 0 {
		out.Flags |= format.DuplicateKey
	}
	out.EventType, out.TypeName, out.Role = ev.Kind.String(), ev.TypeName, roles[ev.Kind]
	out.Time, out.HasTime = ev.Timestamp, ev.HasTimestamp
	out.Seq, out.HasSeq = ev.Seq, ev.HasSeq
	out.Pair, out.HasPair = ev.StepIndex, ev.HasStepIndex
	out.SessionID, out.JobID, out.AgentID, out.Pod = ev.SessionID, ev.JobID, ev.AgentID, ev.PodName
	out.Model, out.ToolName, out.ToolCallID = ev.Model, ev.ToolName, ev.InvocationID
	if ev.HasTokens {
		out.Usage = format.Usage{Input: ev.PromptTokens, Output: ev.CompletionTokens, Has: true}
	}
	if ev.Kind == KindSessionEnd && ev.Outcome != integrity.Corrupt {
		out.Ends, out.Terminal = true, terminalReason(ev.EndReason)
		out.EndReason = ev.EndReason
	}
	if ev.Kind == KindCheckpointWritten {
		out.Flags |= format.SavesCheckpoint
		out.CheckpointID = ev.CheckpointID
	}
	if ev.SideEffect {
		out.Flags |= format.SideEffect
	}
	out.SchemaVersion, out.HasSchemaVersion = ev.SchemaVersion, ev.HasSchemaVersion
}

// terminalReason tells whether a SESSION_END reason ends the job's session
// for good: completed, failed or cancelled. approval_pause resumes later;
// a reason outside the enum (schema-invalid) is not known to be final.
func terminalReason(r []byte) bool {
	switch string(r) {
	case "completed", "failed", "cancelled":
		return true
	}
	return false
}
