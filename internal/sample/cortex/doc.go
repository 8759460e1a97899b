// Package cortex generates deterministic, realistic Cortex Plane session
// journals (spike #31 JSONL session buffers) together with their ground
// truth, as a [sample.Corpus] shared with the other generators, for
// end-to-end tests, benchmarks and the `make run` demo.
//
// The truth is computed by construction, from what the generator decided to
// write (which events it dropped, tore or made invalid), never by parsing
// with the product's code. Tests elsewhere compare what landed in Loki with
// the [sample.Corpus] and [sample.Corpus.TokensByModel].
//
// # Layout
//
// Each session is one file, `<job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl`,
// named after the session's SESSION_START time. Events follow the write
// protocol: SESSION_START (seq 0), CHECKPOINT_LOADED (seq 1), then per step
// LLM_REQUEST, LLM_RESPONSE, TOOL_START/TOOL_RESULT pairs and
// CHECKPOINT_WRITTEN, with APPROVAL_REQUESTED, STATE_TRANSITION and ERROR
// where they happen, and SESSION_END last. JSON keys come in the order type,
// timestamp, job_id, session_id, seq, then the event's own fields in the
// order of the schema. Timestamps are RFC 3339 UTC with milliseconds and
// never decrease within a file.
//
// # Annotations
//
// [sample.Line.Expect] lists what the product must attach to a line, in
// this order:
//
//   - "corrupt": the line is not JSON, not an object, or lacks a string
//     type or timestamp (e.g. an interleaved torn write).
//   - "unknown_type": a well-formed line whose type is not one of the eleven
//     v1 types (forward compatibility: it must still be shipped). Such a line
//     has Valid false but is not schema_invalid.
//   - "schema_invalid": a known type that breaks the v1 schema (a missing
//     required field, a wrong type, a value outside an enum, a bad format or
//     a string over its maxLength, counted in characters).
//   - "seq_gap:A-B": seq numbers A to B (inclusive, A may equal B) are
//     missing before this line.
//   - "seq_regression": this line's seq is not above the highest seq seen
//     earlier in the file.
//
// Sequence tracking is per file and uses every line that is not corrupt and
// has an integer seq >= 0, whatever its type or validity. It starts with the
// highest seen seq at -1; a line with seq > highest+1 gets
// "seq_gap:<highest+1>-<seq-1>", a line with seq <= highest gets
// "seq_regression" and does not change highest. A torn line therefore
// hides the seqs of the events it swallowed, and the next line reports them
// as a gap.
//
// A crash leaves bytes after the last newline: they are
// [sample.File.PartialTail], not a [sample.Line], and the file has no
// SESSION_END.
//
// # Scenarios
//
// Jobs 0 to 3 have fixed shapes; with Faults they carry the faults:
//
//   - Job 0, three files: a session whose pod dies while appending a
//     TOOL_RESULT (partial last line, no SESSION_END); the resumed session on
//     a replacement pod, which loads the last checkpoint and ends in
//     approval_pause after APPROVAL_REQUESTED; the session after the
//     approval, which runs the approved deploy_service, reads a file whose
//     result_summary is cut at exactly 4096 characters, and completes.
//     Without Faults the crashed session is left out.
//   - Job 1, completed: a lost TOOL_START/TOOL_RESULT pair (the next line
//     gets "seq_gap:A-B" over two seqs) and an LLM_RESPONSE with
//     finish_reason "content_filter" (schema_invalid).
//   - Job 2, failed: an LLM_RESPONSE torn by the next TOOL_START
//     (`{"type":"LLM_RESPONSE","ti{"type":"TOOL_START",...}`: corrupt, and
//     the TOOL_RESULT after it gets a two-seq gap), then MEMORY_COMPACTED
//     (unknown_type); a tool fails for good, ERROR, STATE_TRANSITION to
//     FAILED.
//   - Job 3, cancelled: an ERROR appended by a late watchdog with a seq
//     three below the previous line (seq_regression), a TOOL_START whose
//     input_summary is over 1024 characters and one whose input_hash is
//     "sha256:<hex>" (both schema_invalid).
//
// Jobs from 4 on are clean and complete (60%), fail, are cancelled, or
// pause for an approval and complete in a second session. A corpus spans
// less than 75 minutes from Start, so the default start (two hours ago)
// keeps every event in the past.
package cortex
