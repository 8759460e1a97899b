package codelia

import "time"

// The record types of the session store spec.
const (
	typeHeader      = "header"
	typeRunStart    = "run.start"
	typeRunContext  = "run.context"
	typeAgentEvent  = "agent.event"
	typeToolOutput  = "tool.output"
	typeLLMRequest  = "llm.request"
	typeLLMResponse = "llm.response"
	typeRunStatus   = "run.status"
	typeRunError    = "run.error"
	typeRunEnd      = "run.end"
)

// tsLayout is how Codelia writes ts and started_at (Date.toISOString).
const tsLayout = "2006-01-02T15:04:05.000Z"

// fate is what happened to a record's bytes.
type fate uint8

const (
	kept fate = iota
	// dropped: the writer lost it; it is not in the file.
	dropped
	// tornWithNext: its write was interleaved with the next record's: the
	// file holds a prefix of it followed by the whole next record, one
	// corrupt line.
	tornWithNext
	// crashed: the process died while appending it: its first bytes are the
	// file's partial last line and nothing follows.
	crashed
)

// rec is one record the runtime appends, with what the generator knows of
// it: the truth is computed from these facts, never from the bytes.
type rec struct {
	typ   string
	body  obj
	ts    time.Time
	seq   int64  // seq of an llm.request, llm.response or agent.event; -1 otherwise
	runID string // the run_id written ("" when none)
	fate  fate

	invalid   bool   // breaks the v1 schema (judged only when the file is v1)
	unknown   bool   // a type no version knows, not namespaced x.<org>.<name>
	version   int64  // header: schema_version
	sessionID string // header, run.start: session_id ("" when none)
	status    string // run.status: status; run.end: outcome
	inputType string // run.start: input.type
	// model is a header's model.name, an llm.request's model.name and an
	// llm.response's usage.model ("" when none).
	model string
	usage *usage // llm.response: its usage object (nil when null or absent)
}

// Known values of the spec's enums.
var (
	knownStatuses   = []string{"running", "awaiting_ui", "completed", "error", "cancelled"}
	knownOutcomes   = []string{"completed", "cancelled", "error"}
	knownInputTypes = []string{"text"}
)

func known(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}
