package claudecode

import "time"

// Line types (the `type` field) the generator writes, as Claude Code
// names them, plus the unknown one it uses to exercise forward
// compatibility.
const (
	TypeUser                = "user"
	TypeAssistant           = "assistant"
	TypeSystem              = "system"
	TypeProgress            = "progress"
	TypeAttachment          = "attachment"
	TypeSummary             = "summary"
	TypeFileHistorySnapshot = "file-history-snapshot"
	TypeQueueOperation      = "queue-operation"
	TypeCustomTitle         = "custom-title"
	// TypeStreamEvent and TypeResult are written only in stream-json
	// captures (with system, assistant and user lines).
	TypeStreamEvent = "stream_event"
	TypeResult      = "result"
	// TypeUnknown is no type of the format: its lines expect
	// unknown_type.
	TypeUnknown = "context-meter"
)

// SyntheticModel is the model of the lines Claude Code makes up itself
// (API errors, "No response requested."): never counted, never shipped
// as a model.
const SyntheticModel = "<synthetic>"

// InterruptMarker starts the user line Claude Code writes when the user
// interrupts a turn ("[Request interrupted by user]", or "… for tool
// use]" after a refused tool).
const InterruptMarker = "[Request interrupted by user"

// fileKind is where a transcript lives.
type fileKind uint8

const (
	kindMain     fileKind = iota // <project>/<session>.jsonl
	kindSubagent                 // <project>/<session>/subagents/agent-<agent>.jsonl
	kindLegacy                   // <project>/agent-<agent>.jsonl (CLI ≤ 2.0)
)

// userKind is what a user line is to the derived state.
type userKind uint8

const (
	userPrompt         userKind = iota // a prompt to the model
	userToolResult                     // carries a tool_result block
	userInterrupt                      // [Request interrupted by user…]
	userMeta                           // isMeta: true
	userCompactSummary                 // isCompactSummary: true
	userCommand                        // <command-name>, <local-command-stdout>, …
)

// usage is a message.usage as written: the four counters and the
// one-hour part of the cache writes.
type usage struct {
	in, out, cw, cr, cw1h int64
}

// asst is what the truth needs of an assistant line, as written.
type asst struct {
	msgID, reqID, model string // "" when absent
	synthetic           bool   // model <synthetic>
	toolUse, text       bool   // the line's block kinds (thinking otherwise)
	stop                string // stop_reason, "" when null
	u                   usage
	badUsage            bool // output_tokens written as a string (schema-invalid)
	toolIDs             []string
	billed              bool // written again into another session's journal (rec.resumed)
}

// rec is one line a transcript holds, with what the generator decided
// happens to its bytes and what the truth needs of it.
type rec struct {
	b   obj    // the line's object (nil when raw)
	raw string // the exact text of a line that is no encoded object
	typ string // the type written, "" when none
	at  time.Time

	conv                  bool   // a conversation line: uuid and parentUuid
	uuid, parent, logical string // parent "" = null; logical: a compact_boundary's logicalParentUuid
	session, agent        string // sessionId and agentId written ("" when absent)
	sidechain             bool
	user                  userKind
	results               []string // the tool_use ids its tool_result blocks answer
	a                     *asst
	ev                    *streamUsage // a stream_event stating a response's usage
	res                   *runReport   // a result line

	invalid bool // breaks the record schema (schema_invalid)
	unknown bool // a type the format does not know
	corrupt bool // not JSON, not an object, or no string type

	// resumed: a copy of another session's line, written again under
	// this session's id (a resumed conversation); its response is billed
	// once on the node, with the original.
	resumed bool

	lost  bool // never reached the file
	torn  bool // interleaved with the next line: one corrupt line holding both
	crash bool // the process died while appending it: the file's partial tail
}

// resumedAs returns a copy of r written again under session id: the
// same line but for its sessionId.
func (r *rec) resumedAs(id string) *rec {
	c := r.clone()
	c.session, c.resumed = id, true
	c.b = append(obj(nil), r.b...)
	for i := range c.b {
		if c.b[i].K == "sessionId" {
			c.b[i].V = id
		}
	}
	return c
}

// clone returns a shallow copy of r with its fates cleared (a copy
// written by another process: a fork's history).
func (r *rec) clone() *rec {
	c := *r
	c.lost, c.torn, c.crash = false, false, false
	return &c
}
