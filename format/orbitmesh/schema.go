package orbitmesh

import (
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"slices"
)

// kind is a record kind (docs/formats/orbitmesh.md, Records).
type kind uint8

const (
	kUnknown      kind = iota
	kMessageOther      // a message.<x> not listed
	kMessageUser
	kMessageAssistant
	kMessageTool
	kMessageSystem
	kRunStarted
	kRunWaiting
	kRunResumed
	kRunCompleted
	kRunFailed
	kRunCancelled
	kRunInterrupted
	kStatusDerived
	kTokenMinted
	kTokenConsumed
	kTokenRevoked
	kTokenExpired
	// The kinds the runtime's message log writes (current.go).
	kUser
	kOutput
	kThought
	kToolUse
	kError
	kSystem
	kPlan
	kMetric
	kindCount
)

var kindNames = [kindCount]string{
	"", "",
	"message.user", "message.assistant", "message.tool", "message.system",
	"run.started", "run.waiting", "run.resumed", "run.completed", "run.failed", "run.cancelled", "run.interrupted",
	"status.derived",
	"token.minted", "token.consumed", "token.revoked", "token.expired",
	"user", "output", "thought", "tool_use", typeRuntimeError, "system", "plan", "metric",
}

var eventTypes = kindNames[kMessageUser:]

// typeRuntimeError is the event_type of the log's kind "error" (an error
// the runtime reports): "error" alone is a word the rest of journalship
// uses for other things.
const typeRuntimeError = "runtime_error"

// roles maps kinds to neutral roles (docs/formats/orbitmesh.md, event_type
// values).
var roles = [kindCount]format.Role{
	kUnknown:          format.RoleOther,
	kMessageOther:     format.RoleMessage,
	kMessageUser:      format.RoleMessage,
	kMessageAssistant: format.RoleMessage,
	kMessageTool:      format.RoleMessage,
	kMessageSystem:    format.RoleMessage,
	kRunStarted:       format.RoleStatus,
	kRunWaiting:       format.RoleStatus,
	kRunResumed:       format.RoleStatus,
	kRunCompleted:     format.RoleSessionEnd,
	kRunFailed:        format.RoleSessionEnd,
	kRunCancelled:     format.RoleSessionEnd,
	kRunInterrupted:   format.RoleSessionEnd,
	kStatusDerived:    format.RoleStatus,
	kTokenMinted:      format.RoleOther,
	kTokenConsumed:    format.RoleOther,
	kTokenRevoked:     format.RoleOther,
	kTokenExpired:     format.RoleOther,
	kUser:             format.RoleMessage,
	kOutput:           format.RoleMessage,
	kThought:          format.RoleMessage,
	kToolUse:          format.RoleToolCall,
	kError:            format.RoleError,
	kSystem:           format.RoleMessage,
	kPlan:             format.RoleOther,
	kMetric:           format.RoleOther, // a provider's usage event: llm_response (current.go)
}

func kindOf(b []byte) kind {
	if string(b) == "error" {
		return kError
	}
	for k := kMessageUser; k < kindCount; k++ {
		if k != kError && string(b) == kindNames[k] {
			return k
		}
	}
	if len(b) > len("message.") && string(b[:len("message.")]) == "message." {
		return kMessageOther
	}
	return kUnknown
}

func (k kind) message() bool  { return k >= kMessageOther && k <= kMessageSystem }
func (k kind) run() bool      { return k >= kRunStarted && k <= kRunInterrupted }
func (k kind) terminal() bool { return k >= kRunCompleted && k <= kRunInterrupted }
func (k kind) token() bool    { return k >= kTokenMinted && k <= kTokenExpired }
func (k kind) current() bool  { return k >= kUser && k <= kMetric }

// The captured paths, by id.
var paths = integrity.MustPaths(slices.Concat([]string{"kind", "seq", "ts", "run_id", "message_id",
	"wait_kind", "resume_token_id", "reason", "status", "token_id",
	// The runtime's message log (current.go).
	"timestamp", "projection", "contents", "raw", "raw.type", "raw.model",
	"raw.message", "raw.message.id", "raw.message.model"},
	format.AnthropicUsagePaths("raw.message.usage"), format.AnthropicUsagePaths("raw.usage"))...)

const (
	pKind = iota
	pSeq
	pTS
	pRunID
	pMessageID
	pWaitKind
	pResumeToken
	pReason
	pStatus
	pTokenID
	pTimestamp
	pProjection
	pContents
	pRaw
	pRawType
	pRawModel
	pRawMessage
	pRawMessageID
	pRawMessageModel
	pStartUsage // raw.message.usage (message_start), then its counters in usageOffsets order
)

// pDeltaUsage is raw.usage (message_delta), then its counters in
// usageOffsets order.
const pDeltaUsage = pStartUsage + usageFields

// Violation reasons, constants so that violating does not allocate.
const (
	reasonRequired  = "required field missing"
	reasonDuplicate = "duplicate key"
	reasonNotString = "must be a string"
	reasonNotInt    = "must be an integer"
	reasonMin0      = "must be >= 0"
	reasonEmpty     = "must not be empty"
	reasonDateTime  = "must be an RFC 3339 date-time"
	reasonStatus    = "must be one of idle, running, waiting, interrupted_waiting, interrupted_startup"
	reasonTokenID   = "required field missing (token_id or resume_token_id)"
)

// interruption is how a run.interrupted's reason classes the interruption.
type interruption uint8

const (
	intrNone    interruption = iota
	intrOther                // any other reason (or none)
	intrRestart              // process_restart
	intrTimeout              // wait_timeout
)

func interruptionOf(b []byte) interruption {
	switch string(b) {
	case "process_restart":
		return intrRestart
	case "wait_timeout":
		return intrTimeout
	}
	return intrOther
}

// fields is what the schema check kept of a line for the state.
type fields struct {
	runID, tokenID []byte // arena copies, nil when absent or invalid
	reason         interruption
	status         string // a known status, "" when absent or invalid

	// The provider's usage on a metric record of the runtime's log
	// (current.go): start for message_start, whose response is the hash of
	// its message id (never 0).
	usage    format.Usage
	hasUsage bool
	start    bool
	response uint64
}

// schema checks line's fields for kind k (docs/formats/orbitmesh.md,
// Records) into ev and returns what the state needs.
func (j *judge) schema(k kind, a *integrity.Arena, ev *format.Event) (f fields) {
	c := &j.c
	j.seqField(0, reasonMin0, ev)
	j.timeField(pTS, "ts", ev)
	if s, ok := j.optString(pRunID, "run_id", k.run(), ev); ok {
		f.runID = a.Copy(s)
		ev.RunID = f.runID
	}
	switch {
	case k.message():
		j.optString(pMessageID, "message_id", true, ev)
	case k == kRunWaiting:
		j.optString(pWaitKind, "wait_kind", true, ev)
		if s, ok := j.optString(pResumeToken, "resume_token_id", true, ev); ok {
			f.tokenID = a.Copy(s)
		}
	case k == kRunInterrupted:
		if s, ok := j.optString(pReason, "reason", true, ev); ok {
			f.reason = interruptionOf(s)
		} else {
			f.reason = intrOther
		}
	case k == kStatusDerived:
		if s, ok := j.optString(pStatus, "status", true, ev); ok {
			if f.status = statusOf(s); f.status == "" {
				ev.Violate("status", reasonStatus)
			}
		}
	case k.token():
		tok, hasTok := j.optString(pTokenID, "token_id", false, ev)
		if hasTok {
			f.tokenID = a.Copy(tok)
		}
		if s, ok := j.optString(pResumeToken, "resume_token_id", false, ev); ok && !hasTok {
			f.tokenID = a.Copy(s)
		}
		if !c.Has(pTokenID) && !c.Has(pResumeToken) {
			ev.Violate("token_id", reasonTokenID)
		}
	}
	return f
}

// seqField checks seq: an integer >= least.
func (j *judge) seqField(least int64, reason string, ev *format.Event) {
	c := &j.c
	j.dup(pSeq, ev)
	switch n, ok := c.Int(pSeq); {
	case !c.Has(pSeq):
		ev.Violate("seq", reasonRequired)
	case !ok:
		ev.Violate("seq", reasonNotInt)
	case n < least:
		ev.Violate("seq", reason)
	default:
		ev.Seq, ev.HasSeq = n, true
	}
}

// timeField checks the record's time at id: an RFC 3339 date-time.
func (j *judge) timeField(id int, name string, ev *format.Event) {
	c := &j.c
	j.dup(id, ev)
	switch t, ok := c.Time(id); {
	case !c.Has(id):
		ev.Violate(name, reasonRequired)
	case c.Get(id).Kind != integrity.JSONString:
		ev.Violate(name, reasonNotString)
	case !ok:
		ev.Violate(name, reasonDateTime)
	default:
		ev.Time, ev.HasTime = t, true
	}
}

// dup flags a field written twice (the first occurrence is judged).
func (j *judge) dup(id int, ev *format.Event) {
	if j.c.Get(id).Count > 1 {
		ev.Flags |= format.DuplicateKey
		ev.Violate(paths.Name(id), reasonDuplicate)
	}
}

// optString checks a non-empty string field, required or checked only
// when present, and returns its value when valid. The value may point to
// the capture's scratch: copy it before the next one.
func (j *judge) optString(id int, name string, required bool, ev *format.Event) ([]byte, bool) {
	c := &j.c
	if !c.Has(id) {
		if required {
			ev.Violate(name, reasonRequired)
		}
		return nil, false
	}
	j.dup(id, ev)
	s, ok := c.Str(id)
	switch {
	case !ok:
		ev.Violate(name, reasonNotString)
	case len(s) == 0:
		ev.Violate(name, reasonEmpty)
	default:
		return s, true
	}
	return nil, false
}
