// Package claudecode generates deterministic, realistic Claude Code
// session transcripts (docs/formats/claude-code.md) with their ground
// truth, as a [sample.Corpus] shared with the other generators.
//
// The truth is computed by construction, from what the generator decided
// to write (which lines it lost, tore, duplicated, cut by a crash or made
// invalid), following the rules of docs/formats/claude-code.md and the
// token rule below; never by parsing with the product's code (package
// format/claudecode is neither imported nor read). ccusage_test.go runs
// the community cost tool ccusage on a corpus and explains every
// difference from the truth.
//
// # Layout
//
// The corpus root is Claude Code's projects directory. Per session:
//
//	<project>/<session>.jsonl                                main transcript
//	<project>/<session>/subagents/agent-<agent>.jsonl        a subagent (Task tool, /btw side question)
//	<project>/<session>/subagents/agent-<agent>.meta.json    its sidecar ([sample.Corpus.Side]): {"agentType","description"}
//	<project>/agent-<agent>.jsonl                            a subagent of a 2.0 CLI (legacy layout)
//	<project>/<session>.jsonl                                a captured headless run (stream-json)
//
// <project> is the working directory with every character outside
// [A-Za-z0-9] replaced by '-' (/home/priya/src/ingest_worker →
// -home-priya-src-ingest-worker); sessions are lowercase UUIDv4, agent
// ids "a" and 7 hex digits. [sample.File]: Format "claude-code";
// SessionID the path's session (a legacy agent file: the session its
// lines name); AgentID the file name's agent for subagent and legacy
// files, "" for a main transcript; RunID, JobID, Pod and EndReason ""
// (Claude Code writes no end record; a capture's: its result's subtype).
// Files come session by session: the main transcript, then its
// subagents in the order they started.
//
// About one clean session in five is a headless run (claude -p
// --output-format stream-json --verbose --include-partial-messages, a
// CLI before 2.1.97) whose runner saved its output where its transcript
// would be (the run keeps none): one file, the main agent's lines and
// its subagents' (parent_tool_use_id: their Task call's id, their
// streams interleaved when two run at once).
//
// # Lines
//
// One JSON object per line, keys in the order Claude Code writes them
// (the conversation envelope parentUuid, isSidechain, userType, cwd,
// sessionId, version, gitBranch, agentId on subagent lines, type, then
// the type's fields, uuid, timestamp, then toolUseResult and
// sourceToolAssistantUUID on tool results). Conversation lines (user,
// assistant, system, progress, attachment) are chained: each names the
// previous one as parentUuid, a subagent's first line and a
// compact_boundary are roots (the boundary names the line before in
// logicalParentUuid), a /btw transcript's first line names the main
// transcript's last. Times are RFC 3339 UTC with milliseconds and never
// decrease within a file (a fork's copied lines keep their original
// times, all before the fork's own).
//
// A response is written one line per content block (thinking, text, each
// tool_use), all with its message.id and requestId and each with the
// response's usage: input_tokens (a few), cache_read_input_tokens (the
// prefix cached by the previous request while the cache is warm: 5
// minutes, or 1 hour for sessions writing the 1-hour cache; else the
// cross-session system-prompt part), cache_creation_input_tokens (the
// rest) with its cache_creation split (ephemeral_5m/ephemeral_1h; some
// sessions write 1 h, some a mix; the 2.0 line writes no split) and
// output_tokens. CLI versions come in three eras: 2.0.x (subagents in
// legacy files, no progress lines), 2.1.x before 2.1.97 (output_tokens
// a growing streaming snapshot, the last line still below the real
// count — the truth is what the lines say) and 2.1.97+ (every line
// carries the final usage, so later lines ship nothing; attachment
// lines; stop_reason sometimes written on the last line). Prompts stay
// under 160 000 tokens (auto-compaction), so no prompt reaches ccusage's
// 200k tier.
//
// Sessions work on a theme (a repository with tasks): prompts, Grep,
// Glob, Read (parallel reads), Edit (with file-history snapshots and
// PostToolUse hook progress), Bash (bash_progress), TodoWrite, Task
// subagents run in parallel (their transcripts beside the main one, the
// main one recording agent_progress lines that embed each subagent
// message with its usage, then the tool_result with toolUseResult),
// follow-ups, /model and /compact (caveat isMeta line, command line,
// <local-command-stdout>), compaction (compact_boundary and an
// isCompactSummary user line), interruptions ("[Request interrupted by
// user]", or "… for tool use]" after a refused edit), overloaded APIs
// (system api_error lines, then a <synthetic> isApiErrorMessage line),
// queued prompts (queue-operation enqueue/dequeue), custom titles,
// resumes after a break appending to the same file (sometimes with an
// upgraded CLI), and new-era fields the format does not list
// (message.context_management).
//
// # Captures
//
// A capture starts with the system init line (session_id, model,
// claude_code_version). Per response: a stream_event message_start (the
// response's id, model and usage with output_tokens 1 to 3), per content
// block its content_block_start, one to four content_block_deltas, the
// assistant line holding the block and the message_start's usage, its
// content_block_stop; then message_delta (stop_reason, the final usage:
// input, cache and output counts, no 5m/1h split) and message_stop.
// Tool results are user lines with tool_use_result. The result line
// closes the run: usage (what the lines' responses used), modelUsage (per
// model, in the order first used, plus HelperModel's calls, which no
// other line shows; merged with the same model's responses), and
// total_cost_usd, the sum of modelUsage's costUSD at Anthropic's list
// prices (a model outside that list adds nothing). Capture lines have no
// timestamp, uuid links or parentUuid.
//
// # Truth
//
// Per [sample.Line]: Type the type written ("" when corrupt); Seq -1
// (Claude Code numbers nothing); Corrupt for a line that is not JSON,
// not an object or has no string type; Valid for a known type with its
// required fields (an unknown type is readable but not Valid, as
// sample.Line documents; it expects unknown_type). Model is an assistant
// line's message.model as written ("" for <synthetic> and when absent;
// a schema-invalid line keeps what it states). State is the derived
// state after the line, per the document's table: a line that is not
// meaningful (system, progress, attachment, bookkeeping, unknown and
// corrupt lines, isMeta, isCompactSummary and command user lines, and in
// a main transcript every isSidechain line) keeps the state, "idle"
// before any; a subagent file derives its own.
//
// Tokens follow the token rule: per file, responses are keyed by
// message.id; the first valid assistant line of a response ships its
// whole usage, later lines the growth of each counter (a counter below
// the counted one ships 0 and the line expects usage_regression); a line
// shipping nothing is not Counted. PromptTokens is the whole prompt
// (input + cache writes + cache reads), CompletionTokens the output,
// CacheReadTokens, CacheWriteTokens and CacheWrite1hTokens the cache
// counters. Never counted: <synthetic> lines, schema-invalid lines
// (which do not advance the counted usage either), lines of a main
// transcript whose sessionId is another session's (a fork's copies),
// subagent-file lines whose message.id is on an assistant line of the
// session's main transcript (a replay) or that repeat a message.id of
// the file under another requestId (both response_replayed), and usage
// nested in progress lines.
//
// In a capture, message_start and message_delta count under the
// response (the delta under its stream's last message_start), with its
// model, by the same rule: message_start ships the snapshot, the
// assistant lines nothing, message_delta the rest of the output (the
// split it does not state is no regression). The result line is Counted
// under the first model of its modelUsage that reports more than the
// run's lines shipped under it: the difference of each counter that
// falls short (normally HelperModel's calls); its one-hour cache writes
// are what its usage states beyond the lines', at most its cache
// writes. State: a result is idle; a subagent's line (parent_tool_use_id)
// keeps the state, as a sidechain line does.
//
// # Annotations
//
// [sample.Line.Expect] lists kinds, without details, in this order:
// corrupt, schema_invalid, unknown_type, then the format's:
//
//   - parent_missing: parentUuid (or a compact boundary's
//     logicalParentUuid) names no earlier line of the file; for a
//     subagent or legacy agent file any line of the session's main
//     transcript counts as earlier. Corrupt lines name nothing;
//     schema-invalid lines do.
//   - uuid_repeat: the uuid was seen before in the file.
//   - tool_result_without_call: a tool_result answers an id no earlier
//     line of the file issued (for a subagent file, nor the main
//     transcript).
//   - session_id_mismatch: a main-transcript line of another session.
//   - agent_id_mismatch: a subagent-file line naming another agent.
//   - usage_regression, response_replayed: see Truth.
//   - counted_elsewhere (the pipeline's, across journals): see session 7.
//   - unknown_stop_reason: a non-null stop_reason other than end_turn,
//     tool_use, stop_sequence, max_tokens, refusal and pause_turn.
//
// Transport annotations (timestamp_fallback, path_mismatch,
// price_unknown…) are not expected.
//
// # Scenarios
//
// With Faults, sessions 0 to 7 have fixed shapes (whatever the seed);
// every other session is clean: no annotation, every line valid.
//
//   - Session 0, legacy: a 2.0 CLI; two summary lines open the file; a
//     Task subagent in <project>/agent-<agent>.jsonl; a response whose
//     last snapshot falls below the one before (usage_regression); a side
//     question written into the main file as isSidechain lines, replaying
//     the last response under a new requestId (response_replayed) before
//     its own answer (counted, state unchanged); an interrupted turn
//     answered "No response requested." (<synthetic>).
//   - Session 1, subagents: a 2.1.97+ CLI; queue-operation lines and a
//     hook attachment open the file; two Task subagents in parallel, one
//     resumed for its report under a new agent id (agent_id_mismatch);
//     an answer with stop_reason end_turn replayed by a /btw subagent
//     file (response_replayed; its first line's parent is in the main
//     transcript); a custom title; /compact; a last answer with
//     stop_reason "budget_exhausted" (unknown_stop_reason).
//   - Session 2, original: a clean session of a CLI before 2.1.97,
//     resumed 18 to 25 minutes later in the same file by an upgraded CLI.
//     Its id starts with 8 to f.
//   - Session 3, fork: claude --fork-session of session 2 after its first
//     part: a byte-identical copy of its conversation lines
//     (session_id_mismatch, not counted), then new turns. Its id sorts
//     before session 2's, so ccusage, which keeps the first copy in path
//     order, counts the copied responses under the fork.
//   - Session 4, damaged: a CLI before 2.1.97; a bash_progress line torn
//     by the next one (corrupt; the result then names a swallowed parent:
//     parent_missing); a lost tool_use line (its result: parent_missing,
//     tool_result_without_call); a line written twice (uuid_repeat, ships
//     nothing); a line that is a JSON string and one without a type
//     (corrupt); /model; an unknown line type (context-meter); API errors
//     ending in a <synthetic> error line; responses without
//     message.model, without message.id, and with a string output_tokens
//     (schema_invalid, not counted); an MCP call whose input holds
//     "model":null (counted; ccusage drops it); a refused edit; a last
//     Bash call never answered, the process dying while appending its
//     result ([sample.File.PartialTail]).
//   - Session 5, capture with a lost line: a captured headless run whose
//     two subagents stream at the same time; the line of a tool_use block
//     is lost (its result: tool_result_without_call); the result tops up
//     HelperModel.
//   - Session 6, cut capture: a captured headless run cut while its
//     result line was written ([sample.File.PartialTail]): the helper's
//     usage never ships.
//   - Session 7, continued: session 2's conversation resumed in a new
//     session by a CLI that writes the history again under the new
//     session's id (message.id and requestId kept), then new turns. Each
//     copied response is one bill on the node (sample.Line.Bill): the
//     original, whose path sorts first, counts it; the copy's lines
//     expect counted_elsewhere and hold the tokens they ship when their
//     journal is shipped first (sample.Corpus.Settled).
//
// A corpus spans less than 100 minutes from Start, so the default start
// (two hours ago) keeps every line in the past.
package claudecode
