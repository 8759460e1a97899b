// Package orbitmesh generates deterministic, realistic OrbitMesh message
// logs (the resumable session recovery plan's
// sessions/<session_id>.messages.jsonl, docs/formats/orbitmesh.md) with
// the snapshots beside them and their ground truth, as a [sample.Corpus]
// shared with the Cortex Plane generator (package sample).
//
// The truth is computed by construction, from what the generator decided
// to write (which records it lost, tore, cut by a crash or made invalid,
// and what it put in the side files), never by parsing with the product's
// code. The tests compare it line by line with the product's verdicts.
//
// # Layout
//
// Each session is one log, sessions/<session_id>.messages.jsonl
// ([sample.File]; session ids are sess_ and 12 lower-case base-32
// characters), and up to two side files ([sample.Corpus.Side]) rewritten
// in place by the runtime and only read by the product:
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
// session never has a token index without a whole snapshot.
//
// # Records
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
// records): [sample.Line.Counted] is always false and the corpus has no
// tokens by model.
//
// # Truth
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
// With Faults, sessions 0 to 4 have fixed shapes; every other session is
// clean (also all of them without Faults):
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
//
// A corpus spans less than 75 minutes from Start, so the default start
// (two hours ago) keeps every record in the past, and session 4's
// deadline in the future.
package orbitmesh
