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
	k.ReqNonEmpty(hRunID)
	k.OptStr(hSessionID)
	k.ReqTime(hStartedAt)
	k.OptObj(hMeta)
	for _, part := range [2][3]int{{hClient, hClientName, hClientVersion}, {hServer, hServerName, hServerVersion}} {
		if k.OptObj(part[0]) {
			k.ReqStr(part[1])
			k.ReqStr(part[2])
		}
	}
	if k.OptObj(hModel) {
		k.OptStr(hModelProvider)
		k.OptStr(hModelName)
		k.OptStr(hModelReasoning)
	}
	if k.OptObj(hPrompts) {
		k.OptStr(hPromptsSystem)
	}
	if k.OptObj(hTools) {
		k.OptArr(hToolsDefinitions)
		k.OptStr(hToolsSource)
	}
	if k.OptObj(hRuntime) {
		for id := hRuntimeCwd; id <= hRuntimeVersion; id++ {
			k.OptStr(id)
		}
	}
}

// checkRecord applies the schema of a known type other than the header:
// the common fields, then the type's own (docs/formats/codelia.md,
// Records). Values the judge keeps are read by the judge.
func checkRecord(k *checker, t int) {
	k.ReqNonEmpty(rRunID)
	k.ReqTime(rTS)
	k.OptObj(rMeta)
	switch t {
	case tRunStart:
		k.OptStr(rSessionID)
		if k.ReqObj(rInput) {
			if k.reqEnum(rInputType, inputTypes, NoteUnknownInputType) == "text" {
				k.ReqStr(rInputText)
			}
		}
	case tRunContext:
		k.ReqNum(rContextLeft)
	case tAgentEvent:
		k.ReqInt0(rSeq)
		if k.ReqObj(rEvent) {
			k.ReqStr(rEventType)
		}
	case tToolOutput:
		k.ReqNonEmpty(rTool)
		k.ReqNonEmpty(rToolCallID)
		k.ReqStr(rResultRaw)
		k.OptBool(rIsError)
		if k.OptObj(rOutputRef) {
			k.ReqStr(rOutputRefID)
			k.OptInt0(rOutputRefBytes)
			k.OptInt0(rOutputRefLines)
		}
	case tLLMRequest:
		k.ReqInt0(rSeq)
		if k.OptObj(rModel) {
			k.OptStr(rModelProvider)
			k.OptStr(rModelName)
			k.OptStr(rModelReasoning)
		}
		if k.ReqObj(rInput) {
			k.ReqArr(rInputMessages)
			k.OptArrOrNull(rInputTools)
			k.Dup(rInputToolChoice)
			k.OptStr(rInputModel)
		}
	case tLLMResponse:
		k.ReqInt0(rSeq)
		if k.ReqObj(rOutput) {
			k.ReqArr(rOutputMessages)
			k.OptStrOrNull(rStopReason)
			if k.OptObjOrNull(rUsage) {
				k.ReqStr(rUsageModel)
				k.ReqInt0(rUsageInput)
				k.ReqInt0(rUsageOutput)
				k.ReqInt0(rUsageTotal)
				k.OptInt0OrNull(rUsageCached)
				k.OptInt0OrNull(rUsageCacheCreation)
				k.OptInt0OrNull(rUsageImage)
			}
		}
	case tRunStatus:
		k.reqEnum(rStatus, statuses, NoteUnknownStatus)
		k.OptStr(rMessage)
	case tRunError:
		if k.ReqObj(rError) {
			k.ReqStr(rErrorName)
			k.ReqStr(rErrorMessage)
			k.OptStr(rErrorStack)
		}
	case tRunEnd:
		k.reqEnum(rOutcome, outcomes, NoteUnknownOutcome)
		k.OptStr(rFinal)
	}
}
