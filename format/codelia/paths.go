package codelia

import "github.com/journalship/journalship/integrity"

// The key paths the judge reads, compiled once. The ids are the paths'
// indexes; the names are the violations' field names.

// recordPaths are the fields of every record but the header; the header is
// read again with headerPaths (a header is one line per file).
var recordPaths = integrity.MustPaths(
	"type", "ts", "run_id", "session_id", "meta", "seq",
	"input", "input.type", "input.text", "input.messages", "input.tools", "input.tool_choice", "input.model",
	"context_left_percent",
	"event", "event.type", "event.tool", "event.tool_call_id",
	"tool", "tool_call_id", "result_raw", "is_error",
	"output_ref", "output_ref.id", "output_ref.byte_size", "output_ref.line_count",
	"model", "model.provider", "model.name", "model.reasoning",
	"output", "output.messages", "output.usage", "output.stop_reason",
	"output.usage.model", "output.usage.input_tokens", "output.usage.input_cached_tokens",
	"output.usage.input_cache_creation_tokens", "output.usage.input_image_tokens",
	"output.usage.output_tokens", "output.usage.total_tokens",
	"status", "message", "error", "error.name", "error.message", "error.stack",
	"outcome", "final",
)

// Ids of recordPaths, in its order.
const (
	rType = iota
	rTS
	rRunID
	rSessionID
	rMeta
	rSeq
	rInput
	rInputType
	rInputText
	rInputMessages
	rInputTools
	rInputToolChoice
	rInputModel
	rContextLeft
	rEvent
	rEventType
	rEventTool
	rEventToolCallID
	rTool
	rToolCallID
	rResultRaw
	rIsError
	rOutputRef
	rOutputRefID
	rOutputRefBytes
	rOutputRefLines
	rModel
	rModelProvider
	rModelName
	rModelReasoning
	rOutput
	rOutputMessages
	rUsage
	rStopReason
	rUsageModel
	rUsageInput
	rUsageCached
	rUsageCacheCreation
	rUsageImage
	rUsageOutput
	rUsageTotal
	rStatus
	rMessage
	rError
	rErrorName
	rErrorMessage
	rErrorStack
	rOutcome
	rFinal
)

// headerPaths are the header's fields.
var headerPaths = integrity.MustPaths(
	"type", "schema_version", "run_id", "session_id", "started_at", "meta",
	"client", "client.name", "client.version", "server", "server.name", "server.version",
	"model", "model.provider", "model.name", "model.reasoning",
	"prompts", "prompts.system", "tools", "tools.definitions", "tools.source",
	"runtime", "runtime.cwd", "runtime.os", "runtime.arch", "runtime.version",
)

// Ids of headerPaths, in its order.
const (
	hType = iota
	hSchemaVersion
	hRunID
	hSessionID
	hStartedAt
	hMeta
	hClient
	hClientName
	hClientVersion
	hServer
	hServerName
	hServerVersion
	hModel
	hModelProvider
	hModelName
	hModelReasoning
	hPrompts
	hPromptsSystem
	hTools
	hToolsDefinitions
	hToolsSource
	hRuntime
	hRuntimeCwd
	hRuntimeOS
	hRuntimeArch
	hRuntimeVersion
)
