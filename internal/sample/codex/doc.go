// Package codex generates deterministic, realistic OpenAI Codex CLI
// rollouts (docs/formats/codex.md) with their ground truth, as a
// [sample.Corpus] shared with the other generators.
//
// The truth is computed by construction, from what the generator decided
// to write (which responses a token_count reports, which lines repeat the
// totals, which lines it tore, cut or made invalid), following the rules
// of docs/formats/codex.md; never by parsing with the product's code
// (package format/codex is not imported but by the tests that compare
// the two).
//
// # Layout
//
// The corpus root is a Codex home ($CODEX_HOME): one rollout per session,
// sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl, the date
// and time of the session's first line in UTC (Codex writes the local
// time; the generator's is UTC so that a corpus is the same everywhere),
// the id a UUIDv7 of that time. [sample.File]: Format "codex", SessionID
// the id; RunID, JobID, Pod, AgentID and EndReason "" (Codex writes no end
// record).
//
// # Lines
//
// Every line is {"timestamp","type","payload"}, the timestamp the write
// time (RFC 3339 UTC, milliseconds, never decreasing within a file). A
// session starts with session_meta; a turn with task_started (CLI 0.100
// and later), turn_context, the context and the prompt as user messages
// and the user_message event; per model response the era's turn_context
// and rate-limit repeat (a token_count with unchanged totals, or info
// null before the first response), agent_reasoning and reasoning, one or
// two exec_command function calls or an apply_patch custom tool call,
// the response's token_count, then the outputs; the last response the
// agent_message and the assistant message (phase final_answer from
// 0.104), its token_count, then task_complete. Three eras: 0.40.0 (no
// task events, flat rate limits, no repeats, a turn_context per request,
// the token_count before the reasoning item), 0.104.0-alpha.1 (repeats)
// and 0.135.0 (one turn_context per turn).
//
// A response's usage: input the context so far, most of it cached
// (cached_input_tokens, a multiple of 128), output 40 to 900 tokens of
// which some are reasoning; total_token_usage is the running sum,
// last_token_usage the response's.
//
// # Truth
//
// Per [sample.Line]: Type the event type (the payload's type for
// response_item and event_msg lines), "" for corrupt lines and unknown
// types; Seq -1; Valid for a known type with its schema. State the
// derived state after the line per the document's table. A token_count
// that reports a response is Counted under the model of the latest
// turn_context: PromptTokens its input (cached included),
// CacheReadTokens its cached input, CompletionTokens its output
// (reasoning included); repeats, info null and a compaction's estimate
// count nothing; after a schema-invalid token_count the next one counts
// both responses (usage_inconsistent); after a resume of a CLI before
// 0.78 (totals restarted) the next one counts its response
// (usage_reset). Bill names each counted response
// ("<session>:<totals>"), the same in a fork's copy.
//
// # Scenarios
//
// With Faults, sessions 0 to 4 have fixed shapes; every other session is
// clean (no annotation, every line valid).
//
//   - Session 0, CLI 0.40: two turns, an interrupted turn (turn_aborted
//     after the response's usage, then its reasoning, an apply_patch call
//     and "patch rejected by user"), then a resume after a break that
//     restarts the totals (usage_reset).
//   - Session 1, CLI 0.104: rate-limit repeats of every token_count, a
//     turn with a remote compaction (compacted, context_compacted, a
//     token_count with the new context's estimate), then a resume whose
//     totals continue.
//   - Session 2, a fork of session 1 after its compaction turn: its own
//     session_meta (forked_from_id), session 1's lines copied (timestamps
//     of the copy; session 1's session_meta: session_id_mismatch), then a
//     turn of its own whose totals continue session 1's. The copied
//     responses are session 1's bills: its path sorts first, so it counts
//     them, and the copies expect counted_elsewhere.
//   - Session 3, codex exec (0.135): a line torn by the next one and a
//     line without a type (corrupt), a top-level type journalship does not
//     know (token_usage_record, unknown_type), an unknown payload type
//     (payload_type_unknown), an output whose call is not in the file
//     (tool_result_without_call), a token_count with a counter written as
//     a string (schema_invalid; the next one usage_inconsistent).
//   - Session 4, CLI 0.104: the process died while writing a call's
//     output ([sample.File.PartialTail]): the call stays unanswered and
//     the session acting.
package codex
