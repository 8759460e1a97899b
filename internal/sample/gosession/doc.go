// Package gosession generates deterministic, realistic stores of Goat's
// Go pkg/session (docs/formats/go-session.md) with their ground truth, as
// a [sample.Corpus] shared with the other generators, and the truth about
// each session directory ([Session], from [GenerateWithTruth]).
//
// The truth is computed by construction, from what the generator decided
// to write (which messages it lost, doubled, tore, cut by a crash or made
// invalid, what metadata.json says and whether it is whole), following
// the rules of docs/formats/go-session.md; never by parsing with the
// product's code (package format/gosession is not imported outside the
// tests, which compare the two).
//
// # Layout
//
// The corpus root is the store's base directory. Per session (a UUIDv4):
//
//	<id>/messages.jsonl                          conversation (a corpus File)
//	<id>/transcript.jsonl                        SDK messages, some sessions only (a corpus File)
//	<id>/metadata.json                           Goat's SessionMetadata, json.MarshalIndent (Side)
//	<id>/messages.jsonl.lock, transcript.jsonl.lock   empty flock files (Side)
//	<id>/checkpoints/<cp>/manifest.json          a checkpoint (Side)
//	<id>/checkpoints/<cp>/blobs/<sha256>         seed-shaped checkpoints' file copies (Side)
//	<id>/checkpoints/<cp>/files/<sha256>         Goat-shaped checkpoints' file copies (Side)
//
// [sample.File]: Format "go-session", SessionID the directory's name,
// EndReason the metadata's exit_reason when the session is over (else
// ""), JobID, RunID, Pod and AgentID "". Files come session by session,
// messages.jsonl first.
//
// # Lines
//
// messages.jsonl holds one MessageEntry per line in the OpenAI shape:
// uuid, timestamp (RFC 3339 as Go writes a time.Time: nanoseconds and the
// machine's offset, Z, +01:00 or -05:00 by session), then, nested in
// "message" as Goat's store writes it ([Session.Nested]) or flat beside
// them as seed 002 shows it, role, then content
// (a string, sometimes an array of text parts; "" or null for a response
// that only calls tools), tool_calls ({id, type "function", function
// {name, arguments}}), a tool message's tool_call_id (and, for some
// runtimes, the tool's name). Tool call ids are toolu_01… or call_….
// The loop persists the user's prompt, each response, each tool's
// message in order, and follow-ups; a system prompt opens some sessions.
// transcript.jsonl holds the SDK messages of the same run (system init
// with session_id, user, assistant, tool results as user messages, and a
// result with total_cost_usd when the run ends). metadata.json's
// turn_count is the number of responses and total_cost_usd their cost: in
// Goat's shape (named by id, with message_count) the latest run's own,
// every run's start rewriting the file as Create does (created_at the
// run's start, no figures, no exit_reason); in the spec's shape (named by
// session_id) cumulative over the session's runs. Nested sessions: fault
// sessions running, resumed, lost, damaged, crash and unanswered, and
// three clean sessions in four; the others are flat. Checkpoints are saved before each
// edit: checkpoint_id cp-NNN (seed 002's shape: files{path, hash}) or the
// prompt's uuid (Goat's: user_message_uuid, files{path, exists, hash,
// size}), by session, some sessions mixing both.
//
// # Truth
//
// Per [sample.Line]: Seq -1 (the store numbers nothing); Corrupt for a
// line that is not JSON or has no string role (Type "", State "", Expect
// corrupt: a corrupt line is no message and leaves the state as it was);
// Type the role (user, assistant, tool, system), TypeOther for another
// role, TypeTranscript for every transcript.jsonl line; Valid for a known
// role with every rule of section 3 kept (an unknown role is readable but
// not Valid, as sample.Line documents); Model the metadata's model on
// every readable assistant line (schema-invalid ones too, as the
// document's Model table says), "" when metadata.json is absent or
// unreadable; Counted false, no tokens (the format has none). State is
// the derived state after the line (the document's table: an assistant
// message with a non-empty tool_calls acting, without idle, user and
// tool thinking; system and unknown roles keep it; idle before any), ""
// on transcript lines. The per-line state is the table's even once the
// session is over; [Session.State] is idle then.
//
// Expect lists kinds, without details, in this order: corrupt,
// schema_invalid, unknown_type, duplicate_key, then uuid_repeat (a uuid
// seen before in the file), timestamp_regression (before the previous
// readable message's timestamp, as instants), tool_result_without_call (a
// tool message's tool_call_id no earlier assistant message issued).
// Every readable message counts for continuity, schema-invalid and
// unknown roles too; corrupt lines do not.
//
// A session is over when metadata.json is readable, has an exit_reason,
// and its updated_at is after created_at and not before the newest
// message timestamp (transcript.jsonl takes messages.jsonl's newest).
// [Session.Unanswered] lists the calls issued and never answered, in the
// order issued.
//
// # Scenarios
//
// With Faults, sessions 0 to MinFaultSessions-1 have fixed shapes
// (whatever the seed); every other session is clean: no annotation,
// every line valid, metadata whole; most end (end_turn, some max_turns
// or error_max_budget_usd), some are still running.
//
//   - 0 finished: system prompt, two fixes (a seed-shaped then a
//     Goat-shaped checkpoint), a follow-up; end_turn, over; transcript.
//   - 1 running: metadata.json as Create wrote it (no exit_reason); the
//     last response's Bash call still running: acting, one call open,
//     not over; transcript.
//   - 2 resumed: a run ended end_turn, then resumed 10 to 30 minutes
//     later in the same files: the second run's Create rewrote
//     metadata.json (no exit_reason, created_at its start), new messages
//     after it, not over (thinking); the transcript has two init messages
//     and one result.
//   - 3 fork: Fork of session 0 a few minutes after it ended: its
//     messages copied (same uuids, times and bytes), its metadata copied
//     (exit_reason, turn_count, total_cost_usd) with a new session_id,
//     parent_session_id and created_at = updated_at; a new run still
//     going: not over.
//   - 4 lost: a tool message written twice (uuid_repeat), a response
//     lost (its tool message: tool_result_without_call), the clock
//     stepped back before the follow-up (timestamp_regression); end_turn,
//     over.
//   - 5 damaged: NUL bytes (corrupt); an answer cut short with the next
//     prompt written onto it (corrupt, the prompt swallowed); "role":null
//     (corrupt); content written twice (schema_invalid, duplicate_key); a
//     tool_calls entry without id (schema_invalid); a "developer" message
//     (unknown_type); a tool message without tool_call_id (schema_invalid,
//     its call left open); a numeric uuid (schema_invalid); max_turns,
//     over, one call unanswered.
//   - 6 crash: the process died appending a tool message
//     ([sample.File.PartialTail]); no metadata.json: no model, not over,
//     acting, one call open.
//   - 7 half-written: two fixes, end_turn, but metadata.json is caught
//     half-rewritten (unknown: not over, no model) and the last
//     checkpoint's manifest is half-written (not in Session.Checkpoints).
//   - 8 unanswered: a response calls three tools in parallel, one
//     answers, the user interrupts: interrupted, over, two calls never
//     answered.
//
// A corpus spans less than 100 minutes from Start, so the default start
// (two hours ago) keeps every time in the past.
package gosession
