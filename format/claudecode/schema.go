package claudecode

import (
	"slices"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// lineType is a line's type (docs/formats/claude-code.md, Line types and
// stream-json lines).
type lineType uint8

const (
	tUnknown lineType = iota
	// The conversation envelope's types.
	tUser
	tAssistant
	tSystem
	tProgress
	tAttachment
	// Bookkeeping.
	tSummary
	tFileHistorySnapshot
	tQueueOperation
	// Session metadata.
	tCustomTitle
	tAITitle
	tAgentName
	tLastPrompt
	tPRLink
	tPermissionMode
	tAgentSetting
	tBridgeSession
	tWorktreeState
	// stream-json only.
	tResult
	tStreamEvent
	typeCount
)

// typeNames are the event_type values, as written.
var typeNames = [typeCount]string{"", "user", "assistant", "system", "progress", "attachment",
	"summary", "file-history-snapshot", "queue-operation",
	"custom-title", "ai-title", "agent-name", "last-prompt", "pr-link", "permission-mode",
	"agent-setting", "bridge-session", "worktree-state",
	"result", "stream_event"}

// roles maps each type onto its neutral role; the judge refines user
// (tool_result) and system (by subtype) lines (docs/formats/claude-code.md,
// Roles).
var roles = [typeCount]format.Role{
	tUser:                format.RoleMessage,
	tAssistant:           format.RoleLLMResponse,
	tSystem:              format.RoleStatus,
	tFileHistorySnapshot: format.RoleCheckpoint,
	tResult:              format.RoleSessionEnd,
}

func typeOf(name []byte) lineType {
	for t := tUser; t < typeCount; t++ {
		if string(name) == typeNames[t] {
			return t
		}
	}
	return tUnknown
}

// envelope tells whether the type carries the conversation envelope
// (uuid, parentUuid, sessionId, timestamp).
func (t lineType) envelope() bool { return t >= tUser && t <= tAttachment }

func (t lineType) metadata() bool { return t >= tCustomTitle && t <= tWorktreeState }

// stopReasons are the stop_reason values journalship knows; another one
// passes, annotated unknown_stop_reason.
var stopReasons = []string{"end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn",
	"refusal", "model_context_window_exceeded"}

// syntheticModel is the model of the lines the CLI makes up itself: never
// priced, never shipped as a model.
const syntheticModel = "<synthetic>"

// reasonNoType is the corrupt reason of a JSON object without a string
// "type" (docs/formats/claude-code.md, Field rules); the field rules'
// reasons are format's Reason constants.
const reasonNoType = `no string "type"`

// paths are the fields the judge reads, compiled once; the ids are their
// indexes, the names the violations' field names.
var paths = integrity.MustPaths(slices.Concat([]string{
	"type", "sessionId", "session_id", "uuid", "parentUuid", "logicalParentUuid", "timestamp",
	"isSidechain", "agentId", "isMeta", "isCompactSummary", "requestId", "subtype",
	"message", "message.role", "message.content", "message.id", "message.model", "message.stop_reason"},
	usagePaths("message.usage"), []string{
		"data", "data.type", "attachment", "attachment.type",
		"summary", "leafUuid", "messageId", "snapshot", "snapshot.timestamp", "isSnapshotUpdate",
		"operation", "is_error", "total_cost_usd", "event", "parent_tool_use_id",
		"event.type", "event.message", "event.message.id", "event.message.model",
		"modelUsage", "usage.cache_creation.ephemeral_1h_input_tokens"},
	usagePaths("event.message.usage"), usagePaths("event.usage"))...)

// usagePaths are the members of a usage object the judge reads, under
// prefix, in the order of the offsets uObject … uCache1h.
var usagePaths = format.AnthropicUsagePaths

// Offsets of a usage object's members from its id (pUsage, pStartUsage,
// pDeltaUsage).
const (
	uObject        = format.UsageObject
	uInput         = format.UsageInput
	uOutput        = format.UsageOutput
	uCacheCreation = format.UsageCacheCreation
	uCacheRead     = format.UsageCacheRead
	uCacheSplit    = format.UsageCacheSplit
	uCache5m       = format.UsageCache5m
	uCache1h       = format.UsageCache1h
	usageFields    = format.UsageFields
)

// Ids of paths, in its order.
const (
	pType = iota
	pSessionID
	pSessionIDSnake
	pUUID
	pParentUUID
	pLogicalParentUUID
	pTimestamp
	pIsSidechain
	pAgentID
	pIsMeta
	pIsCompactSummary
	pRequestID
	pSubtype
	pMessage
	pMessageRole
	pMessageContent
	pMessageID
	pMessageModel
	pStopReason
	pUsage // message.usage, then its members in the order of the u offsets
	pUsageInput
	pUsageOutput
	pUsageCacheCreation
	pUsageCacheRead
	pCacheCreation
	pCacheCreation5m
	pCacheCreation1h
	pData
	pDataType
	pAttachment
	pAttachmentType
	pSummary
	pLeafUUID
	pSnapshotMessageID
	pSnapshot
	pSnapshotTimestamp
	pIsSnapshotUpdate
	pOperation
	pIsError
	pTotalCost
	pEvent
	pParentToolUseID
	pEventType
	pEventMessage
	pEventMessageID
	pEventMessageModel
	pModelUsage
	pResultCache1h
	pStartUsage // event.message.usage (message_start), then its members
)

// pDeltaUsage is event.usage (message_delta), then its members.
const pDeltaUsage = pStartUsage + usageFields

// checkLine applies the schema of a known type (docs/formats/claude-code.md,
// Records); stream tells the dialect of the file. Values the judge keeps
// are read by the judge.
func checkLine(k *format.Checker, t lineType, stream bool) {
	if t.envelope() {
		checkEnvelope(k, stream)
	}
	switch t {
	case tUser:
		if k.ReqObj(pMessage) {
			k.ReqStr(pMessageRole)
			k.ReqStrOrArr(pMessageContent)
		}
		k.OptBool(pIsMeta)
		k.OptBool(pIsCompactSummary)
	case tAssistant:
		if k.ReqObj(pMessage) {
			k.ReqStr(pMessageRole)
			k.ReqArr(pMessageContent)
			k.ReqNonEmpty(pMessageID)
			k.ReqStr(pMessageModel)
			k.OptStrOrNull(pStopReason)
			checkUsage(k, pUsage, true)
		}
		k.OptStr(pRequestID)
	case tSystem:
		k.ReqStr(pSubtype)
		k.OptStrOrNull(pLogicalParentUUID)
	case tProgress:
		if k.ReqObj(pData) {
			k.ReqStr(pDataType)
		}
	case tAttachment:
		if k.ReqObj(pAttachment) {
			k.ReqStr(pAttachmentType)
		}
	case tSummary:
		k.ReqStr(pSummary)
		k.ReqNonEmpty(pLeafUUID)
		k.OptStr(pSessionID)
	case tFileHistorySnapshot:
		k.ReqNonEmpty(pSnapshotMessageID)
		if k.ReqObj(pSnapshot) {
			k.OptTime(pSnapshotTimestamp)
		}
		k.OptBool(pIsSnapshotUpdate)
		k.OptStr(pSessionID)
	case tQueueOperation:
		k.ReqStr(pOperation)
		k.ReqNonEmpty(pSessionID)
		k.ReqTime(pTimestamp)
	case tResult:
		k.ReqStr(pSubtype)
		k.ReqBool(pIsError)
		k.ReqNonEmpty(pSessionIDSnake)
		k.OptNum(pTotalCost)
		k.OptObj(pModelUsage)
	case tStreamEvent:
		if k.ReqObj(pEvent) {
			checkStreamEvent(k)
		}
		k.OptStr(pSessionIDSnake)
		k.OptStrOrNull(pParentToolUseID)
	default:
		if t.metadata() {
			k.ReqNonEmpty(pSessionID)
		}
	}
}

// checkEnvelope applies the conversation envelope: in a transcript uuid,
// parentUuid, sessionId and timestamp; in stream-json session_id (and
// parent_tool_use_id, string or null).
func checkEnvelope(k *format.Checker, stream bool) {
	if stream {
		k.ReqNonEmpty(pSessionIDSnake)
		k.OptStr(pUUID)
		k.OptStrOrNull(pParentToolUseID)
		return
	}
	k.ReqNonEmpty(pUUID)
	k.ReqNonEmptyOrNull(pParentUUID)
	k.ReqNonEmpty(pSessionID)
	k.ReqTime(pTimestamp)
	k.OptBool(pIsSidechain)
	k.OptStr(pAgentID)
}

// checkUsage applies the rules of a usage object at id (optional): token
// counts are integers >= 0, output_tokens always there, input_tokens
// unless the object is a message_delta's (whole, the API once sent only
// output_tokens there).
func checkUsage(k *format.Checker, id int, whole bool) {
	if !k.OptObj(id + uObject) {
		return
	}
	if whole {
		k.ReqInt0(id + uInput)
	} else {
		k.OptInt0(id + uInput)
	}
	k.ReqInt0(id + uOutput)
	k.OptInt0(id + uCacheCreation)
	k.OptInt0(id + uCacheRead)
	if k.OptObj(id + uCacheSplit) {
		k.OptInt0(id + uCache5m)
		k.OptInt0(id + uCache1h)
	}
}

// checkStreamEvent applies the rules of the two streaming events that
// carry a response's usage (docs/formats/claude-code.md, stream-json
// lines): message_start's message (id, model, usage) and message_delta's
// usage. Other events pass unchecked.
func checkStreamEvent(k *format.Checker) {
	switch t, _ := k.Capture.Str(pEventType); string(t) {
	case eventMessageStart:
		if k.ReqObj(pEventMessage) {
			k.ReqNonEmpty(pEventMessageID)
			k.ReqStr(pEventMessageModel)
			checkUsage(k, pStartUsage, true)
		}
	case eventMessageDelta:
		checkUsage(k, pDeltaUsage, false)
	}
}

// The streaming events whose usage counts.
const (
	eventMessageStart = "message_start"
	eventMessageDelta = "message_delta"
)
