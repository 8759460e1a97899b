// Package codelia generates deterministic, realistic Codelia run record
// journals (the session store of Codelia's "Session Store Spec (run
// persistence)", docs/formats/codelia.md) together with their ground
// truth, as a [sample.Corpus] shared with the other generators and
// their consumers.
//
// The truth is computed by construction, from what the generator decided
// to write (which records it dropped, tore, cut, made invalid, numbered
// out of order), following the rules docs/formats/codelia.md states;
// never by parsing with the product's code. The package's tests then feed
// every line to the product's judge (format/registry, format/codelia) and
// require the two to agree.
//
// # Layout
//
// One file per run, sessions/YYYY/MM/DD/<run_id>.jsonl ([sample.File.Rel]),
// dated by the header's started_at in UTC; run and session ids are UUIDv4
// from the seeded stream. A run with a session (the TUI) writes the
// session's state snapshot sessions/state/<session_id>.json
// ([sample.Corpus.Side]): rewritten in place after each run, indented
// JSON, never tailed and never shipped. A run without a session (prompt
// mode, the "cli" client) has none; its [sample.File.SessionID] is "".
// Codelia's paths carry no job, pod or agent, and its records none either:
// JobID, Pod and AgentID are "". [sample.File.RunID] is the run_id the
// records carry (the header's). [sample.File.EndReason] is how the
// last line ending the run says it ended: run.end's outcome or a terminal
// run.status's status; "" when no line ends it.
//
// # A run
//
// header (schema_version 1, run_id, session_id when there is a session,
// started_at, client, server, model, prompts.system, tools, runtime),
// run.start (the user's text, ui_context.cwd), run.status "running", then
// per model invocation an llm.request (seq, model, the whole conversation,
// the tool definitions) and its llm.response (the same seq, the assistant
// message, usage, stop_reason), and per tool call an agent.event
// {"type":"tool_call"} and a tool.output; a text agent.event when the
// model said something besides its calls; run.context now and then; and
// at the end the final agent.event, run.status "completed" and run.end
// "completed" with the final answer. Invocation seqs continue from run to
// run of a session (the snapshot's invoke_seq); agent.event seqs start at
// 0 in every run and increase by one. Clean runs may wait for an approval
// (run.status "awaiting_ui" then "running"), fail on a provider error
// (an llm.request never answered, run.error, run.status and run.end
// "error") or be cancelled (run.status and run.end "cancelled").
//
// Keys come in a fixed order: type, run_id (then session_id on run.start),
// ts, seq where the type has one, then the record's own fields in the
// order of the spec's types; the header has schema_version after type and
// started_at instead of ts. Times are RFC 3339 UTC with milliseconds and
// never decrease within a file. A corpus spans less than 75 minutes from
// Start, so the default start (two hours ago) keeps every line in the
// past.
//
// Usage follows the model's provider: an Anthropic model ("claude…")
// reports few uncached input_tokens with input_cached_tokens and
// input_cache_creation_tokens on top; an OpenAI model counts cached tokens
// inside input_tokens, reports them in input_cached_tokens and writes
// input_cache_creation_tokens as null; a Google model ("gemini…") is
// inclusive too, input_cached_tokens null when its implicit cache was not
// hit, and no input_cache_creation_tokens. total_tokens is input plus
// output, as Codelia computes it. usage.model is the configured model.
//
// # Truth
//
// Per [sample.Line]: Type is the record's type as written ("" when
// corrupt); Seq is the seq of an llm.request, llm.response or agent.event
// (-1 for any other line, as the product ships no seq for them); Valid is
// the product's integrity "valid" — unknown and x.<org>. types included,
// and lines a newer schema version makes unreadable for v1 (judged
// best-effort) — Corrupt a line that is no JSON object with a string type.
// Model is the model shipped in `model`: a header's model; a request's
// model.name; a response's usage.model, else its request's model; ""
// on every other line. RunID is set on a record stating another run's
// run_id than the file name's (it ships what it states). Tokens
// are what the product ships in tokens_in, tokens_out, tokens_cache_read
// and tokens_cache_write (input_tokens, output_tokens, input_cached_tokens
// and input_cache_creation_tokens, null as 0; for an Anthropic model,
// whose input_tokens leave the cache out, PromptTokens adds the cache
// reads and writes back: tokens_in is the whole prompt), on Counted lines only: a
// valid llm.response with a usage object. State is the derived run state
// shipped in `state`: the last run.status value or run.end outcome,
// "other" for a value outside the spec's enums, "" before any and on
// corrupt lines.
//
// # Annotations
//
// [sample.Line.Expect] lists what the product ships in `annotations`, in
// its order: the neutral kinds first ("corrupt", "schema_invalid",
// "unknown_type", "best_effort"), then the format's notes in the order the
// judge takes them. A note with a detail is written "kind:detail", the
// detail being exactly what is shipped under the metadata key kind:
//
//   - "corrupt": a torn (interleaved) line.
//   - "schema_invalid": a known type breaking the v1 rules in a v1 file.
//   - "unknown_type": a type that is none of the ten and not namespaced
//     x.<org>.<name> (the namespaced ones get nothing).
//   - "best_effort": every line of a file whose header declares a schema
//     version other than 1.
//   - "schema_version_unknown:<v>": that header.
//   - "header_missing": the first non-corrupt line, not a header, of a file
//     whose header was lost.
//   - "header_misplaced": a header that is not the file's first line.
//   - "file_name_mismatch:<file name's run_id>",
//     "date_mismatch:<YYYY-MM-DD of started_at>": the first header, when
//     the path disagrees with it.
//   - "run_id_mismatch:<the file's run_id>": a record of another run.
//   - "request_seq_gap:<a>" or "<a>-<b>": an llm.request after lost ones;
//     "request_seq_repeat:after <n>", "request_seq_regression:after <n>":
//     one whose seq equals or is below the previous request's.
//   - "response_without_request": an llm.response with no unanswered
//     request of its seq (a second response to one request included).
//   - "event_seq_repeat:after <n>", "event_seq_regression:after <n>": an
//     agent.event whose seq does not increase.
//   - "unknown_status:<v>", "unknown_outcome:<v>",
//     "unknown_input_type:<v>": an enum value the spec does not list
//     (valid: readers must tolerate them).
//
// Transport annotations (timestamp_fallback on a corrupt line,
// timestamp_rewritten, price_unknown) depend on the shipper's settings and
// are not expected.
//
// # Scenarios
//
// With Faults, runs 0 to 5 have fixed shapes and carry the faults:
//
//   - Run 0, crashed: the test run's agent.event tool_call is torn by the
//     tool.output written at the same time (corrupt); the provider
//     rate-limits and the runtime reports run.status "rate_limited"
//     (unknown_status); the process dies while appending the next
//     llm.response: its first bytes are [sample.File.PartialTail], its
//     request stays unanswered, there is no run.end.
//   - Run 1, the same session after the crash (its seqs go on from run
//     0's): an x.acme.policy_check record (no annotation); a lost
//     llm.request/llm.response pair (request_seq_gap on the next request);
//     an overloaded provider: llm.retry (unknown_type) and the request
//     written again with its seq (request_seq_repeat); its llm.response
//     lacks usage.total_tokens (schema_invalid, not counted); the final
//     answer stops at max_tokens and its continuation is a second
//     llm.response to the same request (response_without_request, counted:
//     it was billed). Completed.
//   - Run 2, prompt mode without a session: the header is torn by run.start
//     (corrupt; header_missing on the next line); a run.context of another
//     run (run_id_mismatch); the user interrupts it and a newer runtime
//     writes run.end "interrupted" (unknown_outcome).
//   - Run 3, a newer runtime: schema_version 2 (schema_version_unknown on
//     the header, best_effort on every line); its tool.output carries a
//     result object instead of result_raw, invalid in v1 but not
//     annotated. Completed, its tokens counted.
//   - Run 4, misfiled under another run_id in the previous day's directory
//     (file_name_mismatch and date_mismatch on the header); an agent.event
//     written twice (event_seq_repeat); cancelled while the model streams:
//     an llm.response with usage null (not counted), run.status
//     "cancelled" and no run.end.
//   - Run 5, started with text and a screenshot (input.type "parts",
//     unknown_input_type); while it waits for an approval
//     (run.status "awaiting_ui") the runtime restarts, appends a second
//     header (header_misplaced) and numbers invocations and agent events
//     from the start again (request_seq_regression,
//     event_seq_regression). Completed.
//
// Runs from 6 on, and every run without Faults, are clean: no annotation,
// every line valid, ended by run.end. Corrupt lines are not counted in
// [sample.Corpus.TokensByModel]; the lost pair and the partial response
// are not in the files at all.
package codelia
