// Package orbitmesh generates deterministic, realistic OrbitMesh session
// logs (sessions/<session_id>.messages.jsonl, docs/formats/orbitmesh.md)
// with the files the runtime keeps beside them and their ground truth, as
// a [sample.Corpus] shared with the other generators, and the truth about
// each session ([Session], from [GenerateWithTruth]).
//
// Most sessions are written as OrbitMesh's storage writes them today
// (part A of the document: the runtime shape); some as its resumable
// session recovery plan describes them (part B: the plan shape).
//
// The truth is computed by construction, from what the generator decided
// to write (which records it lost, tore, cut by a crash or made invalid,
// what it put in the side files), never by parsing with the product's
// code. The tests compare it line by line with the product's verdicts.
//
// # The runtime shape
//
// Each line is {"seq","timestamp","projection","kind","contents","raw"}
// as encoding/json writes the store's struct: seq from 1 up by one,
// timestamp Go's RFC 3339 with nanoseconds, projection append, append_raw
// or append_output_delta, kind one of user, output, thought, tool_use,
// error, system, plan, metric. A Claude provider's session (its model a
// Claude model, else the next Claude model configured, else
// DefaultClaudeModel) stores the CLI's stream-json events in raw: the
// system init (model), per response a metric message_start (model, id,
// initial usage with its cache_creation split), output deltas, system
// assistant snapshots (model, usage never counted), content block starts
// and stops, a metric message_delta (the final usage: the same prompt,
// more output) and message_stop, then the tool result; a Task call
// streams a subagent's response under HelperModel. An ACP agent's session
// (any other model) writes available_commands, thoughts, plans, output
// deltas, tool calls and a usage metric that names no model.
//
// Beside the log: the session document sessions/<id>.json (state,
// transitions), one attempt file per run attempt
// sessions/attempts/<id>/<attempt>.json and the resume tokens
// sessions/resume_tokens/<token>.json, indented as the store writes them.
// Every runtime-shaped session has at least one attempt; a clean one ends
// its last attempt completed (most), failed or cancelled at its last
// line.
//
// Truth per line: Type the kind (runtime_error for error), Seq, Valid,
// Model the model raw names (message_start, system init, assistant
// snapshot), a message_delta its response's; Counted on the usage lines
// that ship tokens: a response's message_start its usage (the prompt is
// input plus cache reads and writes), its message_delta how far each
// counter grew since (the output); State the attempts' and tokens' status
// at the line's timestamp. [Session.Ends] lists the lines that end an
// attempt (the first line at or after the end of the latest attempt
// started by its time) with the terminal reason; [Session.Over] holds when
// the latest attempt has a terminal reason and no line is newer than its
// end, and File.EndReason is then that reason; [Session.Final] is the
// status once everything written has happened.
//
// # The plan shape
//
// Each session is one log, sessions/<session_id>.messages.jsonl
// ([sample.File]; session ids, in both shapes, are sess_ and 12
// lower-case base-32 characters), and up to two side files
// ([sample.Corpus.Side]) rewritten in place by the runtime and only read
// by the product:
//
//   - sessions/<session_id>.json, the snapshot: id, title, working_dir,
//     provider {type, model}, created_at, updated_at, last_seq (the seq of
//     the log's last complete line), run {run_id, boot_id, started_at,
//     ended_at, wait {kind, since_seq, resume_token_id, deadline_at}} for
//     the latest run, recovery {last_boot_seen, interruption}.
//   - sessions/<session_id>.tokens.json, the token index:
//     {"version":1,"tokens":[{token_id, run_id, session_id, wait_kind,
//     state, secret_sha256, minted_at, expires_at}]}, every token the
//     session minted with its final state (active, consumed, revoked).
//
// A clean session has both (70%), the snapshot only (20%: the index is
// optional) or neither (10%: a session from before the snapshots). A
// session never has a token index without a whole snapshot. Clean
// sessions are plan-shaped one time in four.
//
// # Records of the plan shape
//
// One JSON object per line, keys seq, ts, kind first, then the kind's own
// fields in a fixed order; ts is RFC 3339 UTC with milliseconds and never
// decreases within a file; seq starts at 1 and rises by one per record
// (except where a fault says otherwise). A session optionally opens with
// message.system, then runs, each:
//
//	message.user                        the task, or a follow-up
//	run.started {run_id, boot_id, trigger_message_id}
//	status.derived running              (60%: the runtime publishes its status)
//	message.assistant {run_id, content, tool_calls} + message.tool {run_id, tool_call_id, tool_name, content}
//	                                    one to four steps; one may wait:
//	token.minted {token_id, run_id, wait_kind, expires_at}
//	run.waiting {run_id, wait_kind, resume_token_id, deadline_at}
//	                                    tool_result (CI, 10 min deadline) or approval (4 h)
//	token.consumed + run.resumed        in either order (the plan fixes none)
//	message.assistant                   the summary, when the run completes
//	run.completed|run.failed|run.cancelled {run_id, duration_ms, …}, status.derived idle
//
// The last run of a clean session may instead wait for CI past its
// deadline: the periodic sweep appends run.interrupted (wait_timeout),
// token.revoked and status.derived interrupted_waiting. Records carry no
// model and no token usage (token.* records are resume-token audit
// records): [sample.Line.Counted] is false on every plan-shaped line.
//
// # Truth of the plan shape
//
// Per line ([sample.Line]): Offset, Text, Type (the record's kind, also an
// unknown one; "" when corrupt), Seq (-1 when corrupt), Valid (a known
// kind with its required fields), Corrupt, Model (on message.assistant
// lines, the snapshot's provider.model when the snapshot is whole, as the
// format attributes it; "" otherwise), State and Expect. [sample.File]
// has Format "orbitmesh", SessionID, and EndReason: how the latest run
// ended ("completed", "failed", "cancelled", "interrupted"; "" when it
// goes on or was cut off by a crash). RunID, JobID, Pod and AgentID are
// empty: the product ships run_id per line, from each record's run_id
// (run.*, token.* and the run's messages carry one), which each line's
// [sample.Line.RunID] states.
//
// State is the derived status the product must ship with the line, after
// it: the rules of docs/formats/orbitmesh.md (Derived status), the plan's
// precedence interrupted_startup > interrupted_waiting > waiting >
// running > idle applied to the latest run, computed from the records the
// generator wrote (lost and torn ones excluded) and, from the line whose
// seq reaches the snapshot's last_seq, the facts of the side files it
// wrote: a stale boot (the snapshot's run not ended, run.boot_id unlike
// recovery.last_boot_seen), a wait token the index lacks or says is not
// active or expired, a passed deadline — each compared with the line's
// own ts, so the truth does not depend on a clock. A corrupt line has no
// State. A half-written snapshot is unknown and changes nothing.
//
// Expect lists, in the order the product ships them in the annotations
// metadata, each kind alone or as "kind:detail" when the product ships a
// detail under the metadata key named kind:
//
//   - "corrupt": not JSON (a torn, interleaved write).
//   - "schema_invalid": a known kind without a required field's value.
//   - "unknown_type": a kind the format does not know (memory.compacted);
//     such a line has Valid false.
//   - "seq_gap:A" or "seq_gap:A-B": seqs A to B are missing before this
//     line (the product's rendering: one number when A equals B).
//   - "seq_repeat:after H": this line's seq equals H, the highest seq
//     before it.
//   - "seq_regression:after H": this line's seq is below H, the highest
//     seq before it.
//   - "status_disagrees:S": a status.derived stating another status than
//     S, the one the rules derive before it.
//   - "duplicate_interrupt": a second run.interrupted for the same run.
//
// Seqs are judged on every readable line: the first may carry any seq;
// the highest seq seen only rises, so a torn line hides the seqs it
// swallowed and the next line reports them as a gap. A crash leaves bytes
// after the last newline: they are [sample.File.PartialTail], not a line.
//
// # Fault scenarios
//
// With Faults, sessions 0 to 8 have fixed shapes; every other session is
// clean (also all of them without Faults). Sessions 0 to 4 are
// plan-shaped, 5 to 8 runtime-shaped:
//
//   - Session 0, crashed: a completed run with a wait, then a run during
//     which the process dies appending a tool result (partial tail, no
//     end). A new process has booted and written recovery.last_boot_seen
//     but not yet appended run.interrupted: the snapshot shows the run in
//     progress under the previous boot_id, so the last line's State is
//     interrupted_startup (the lines before it, below last_seq, are not
//     affected).
//   - Session 1, interrupted: a completed run with an approval, then a
//     run cut off by a restart. The boot scan appends run.interrupted
//     (process_restart); the periodic sweep, racing it, appends a second
//     one with the same seq ("seq_repeat:after N", "duplicate_interrupt");
//     then status.derived interrupted_startup. EndReason "interrupted".
//   - Session 2, damaged: a lost tool result (the next line, a
//     memory.compacted record, has "unknown_type" and "seq_gap:N"); an
//     assistant message torn by its tool result written concurrently
//     ("corrupt"); a context notice (message.system) appended by a writer
//     three seqs behind ("seq_regression:after H"); the line after it
//     reports the torn line's two seqs ("seq_gap:A-B"). Its snapshot is
//     half-written (cut, invalid JSON) and there is no token index: no
//     model, no snapshot facts.
//   - Session 3, tokenless: the token store failed; run.waiting (approval)
//     has an empty resume_token_id ("schema_invalid"; a wait whose token
//     is missing: interrupted_waiting); the runtime still publishes
//     waiting ("status_disagrees:interrupted_waiting"), then the periodic
//     sweep publishes interrupted_waiting; the user gives up and a new run
//     completes. No snapshot, no token index.
//   - Session 4, waiting: a run that waits for CI and completes, then a
//     run waiting for an approval whose 4 h deadline has not passed; the
//     snapshot and token index describe the wait (token active): the
//     session ends waiting.
//   - Session 5, crashed runtime: a Claude session whose process dies
//     appending an output delta of its second response (partial tail;
//     the response's initial usage stays counted). Its attempt file has
//     no terminal reason and the document says running: running, not
//     over.
//   - Session 6, recovered: a completed attempt one of whose output deltas
//     was lost (the append failed after the writer numbered it:
//     "seq_gap:N"), then an attempt whose process died between two
//     appends; a new boot's startup recovery marks the attempt interrupted
//     ("startup recovery: interrupted while running") and appends its
//     notice, the line that ends it: interrupted_startup, over,
//     "interrupted". The session document was caught half-rewritten.
//   - Session 7, suspended: an ACP attempt suspended waiting for a tool
//     result (a resume token minted, the attempt ended interrupted),
//     resumed minutes later with its token (consumed), then an attempt
//     that completes.
//   - Session 8, cancelled: a Claude attempt cancelled by the user in the
//     middle of its first response (no message_delta): "cancelled".
//
// A corpus spans less than 75 minutes from Start, so the default start
// (two hours ago) keeps every record in the past, and session 4's
// deadline and every resume token's expiry (24 h) in the future.
package orbitmesh
