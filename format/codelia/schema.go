package codelia

import "github.com/journalship/journalship/format"

// The record types (docs/formats/codelia.md, Records).
const (
	tUnknown = iota
	tHeader
	tRunStart
	tRunContext
	tAgentEvent
	tToolOutput
	tLLMRequest
	tLLMResponse
	tRunStatus
	tRunError
	tRunEnd
	typeCount
)

// typeNames are the event_type values, as written in the journal.
var typeNames = [typeCount]string{"", "header", "run.start", "run.context", "agent.event",
	"tool.output", "llm.request", "llm.response", "run.status", "run.error", "run.end"}

// roles maps each type onto the neutral role; agent.event is a tool call
// when its event.type is "tool_call" (docs/formats/codelia.md, Roles).
var roles = [typeCount]format.Role{
	tUnknown:     format.RoleOther,
	tHeader:      format.RoleSessionStart,
	tRunStart:    format.RoleMessage,
	tRunContext:  format.RoleOther,
	tAgentEvent:  format.RoleOther,
	tToolOutput:  format.RoleToolResult,
	tLLMRequest:  format.RoleLLMRequest,
	tLLMResponse: format.RoleLLMResponse,
	tRunStatus:   format.RoleStatus,
	tRunError:    format.RoleError,
	tRunEnd:      format.RoleSessionEnd,
}

func typeOf(name []byte) int {
	for t := tHeader; t < typeCount; t++ {
		if string(name) == typeNames[t] {
			return t
		}
	}
	return tUnknown
}

// namespaced tells whether an unknown type is an extension named
// x.<org>.<name>, which passes without the unknown_type annotation.
func namespaced(name []byte) bool {
	if len(name) < 2 || name[0] != 'x' || name[1] != '.' {
		return false
	}
	rest := name[2:]
	for i, c := range rest {
		if c == '.' {
			return i > 0 && i < len(rest)-1
		}
	}
	return false
}

// The enums (docs/formats/codelia.md, Field rules). A value outside them is
// tolerated and annotated.
var (
	statuses   = []string{"running", "awaiting_ui", "completed", "error", "cancelled"}
	outcomes   = []string{"completed", "cancelled", "error"}
	inputTypes = []string{"text"}
)

// enumValue returns the constant of list equal to v, or "".
func enumValue(list []string, v []byte) string {
	for _, s := range list {
		if string(v) == s {
			return s
		}
	}
	return ""
}

// terminalStatus tells whether a run.status value ends the run.
func terminalStatus(s string) bool {
	return s == "completed" || s == "error" || s == "cancelled"
}

// checkHeader applies the header's schema. The version was read by the
// caller.
func checkHeader(k *checker) {
	k.reqNonEmpty(hRunID)
	k.optStr(hSessionID)
	k.reqTime(hStartedAt)
	k.optObj(hMeta)
	for _, part := range [2][3]int{{hClient, hClientName, hClientVersion}, {hServer, hServerName, hServerVersion}} {
		if k.optObj(part[0]) {
			k.reqStr(part[1])
			k.reqStr(part[2])
		}
	}
	if k.optObj(hModel) {
		k.optStr(hModelProvider)
		k.optStr(hModelName)
		k.optStr(hModelReasoning)
	}
	if k.optObj(hPrompts) {
		k.optStr(hPromptsSystem)
	}
	if k.optObj(hTools) {
		k.optArr(hToolsDefinitions)
		k.optStr(hToolsSource)
	}
	if k.optObj(hRuntime) {
		for id := hRuntimeCwd; id <= hRuntimeVersion; id++ {
			k.optStr(id)
		}
	}
}

// checkRecord applies the schema of a known type other than the header:
// the common fields, then the type's own (docs/formats/codelia.md,
// Records). Values the judge keeps are read by the judge.
func checkRecord(k *checker, t int) {
	k.reqNonEmpty(rRunID)
	k.reqTime(rTS)
	k.optObj(rMeta)
	switch t {
	case tRunStart:
		k.optStr(rSessionID)
		if k.reqObj(rInput) {
			if k.reqEnum(rInputType, inputTypes, NoteUnknownInputType) == "text" {
				k.reqStr(rInputText)
			}
		}
	case tRunContext:
		k.reqNum(rContextLeft)
	case tAgentEvent:
		k.reqInt0(rSeq)
		if k.reqObj(rEvent) {
			k.reqStr(rEventType)
		}
	case tToolOutput:
		k.reqNonEmpty(rTool)
		k.reqNonEmpty(rToolCallID)
		k.reqStr(rResultRaw)
		k.optBool(rIsError)
		if k.optObj(rOutputRef) {
			k.reqStr(rOutputRefID)
			k.optInt0(rOutputRefBytes, false)
			k.optInt0(rOutputRefLines, false)
		}
	case tLLMRequest:
		k.reqInt0(rSeq)
		if k.optObj(rModel) {
			k.optStr(rModelProvider)
			k.optStr(rModelName)
			k.optStr(rModelReasoning)
		}
		if k.reqObj(rInput) {
			k.reqArr(rInputMessages)
			k.optArrOrNull(rInputTools)
			k.dup(rInputToolChoice)
			k.optStr(rInputModel)
		}
	case tLLMResponse:
		k.reqInt0(rSeq)
		if k.reqObj(rOutput) {
			k.reqArr(rOutputMessages)
			k.optStrOrNull(rStopReason)
			if k.optObjOrNull(rUsage) {
				k.reqStr(rUsageModel)
				k.reqInt0(rUsageInput)
				k.reqInt0(rUsageOutput)
				k.reqInt0(rUsageTotal)
				k.optInt0(rUsageCached, true)
				k.optInt0(rUsageCacheCreation, true)
				k.optInt0(rUsageImage, true)
			}
		}
	case tRunStatus:
		k.reqEnum(rStatus, statuses, NoteUnknownStatus)
		k.optStr(rMessage)
	case tRunError:
		if k.reqObj(rError) {
			k.reqStr(rErrorName)
			k.reqStr(rErrorMessage)
			k.optStr(rErrorStack)
		}
	case tRunEnd:
		k.reqEnum(rOutcome, outcomes, NoteUnknownOutcome)
		k.optStr(rFinal)
	}
}
