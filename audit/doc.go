// Package audit is an fsck for Cortex Plane session journals: it reads a
// journal file (streaming, in bounded memory) and returns its integrity
// verdict as the agent's recovery would see it (docs/formats/cortex-plane.md,
// section 6; "the seed" below is the format's original specification) and
// as the shipper would see it (package integrity: schema and seq
// continuity).
//
// # The seed's counts
//
// TotalLines, ValidLines, CorruptLines, TailTruncated, Severity,
// CorruptionRatio and UsableForRecovery are ports of the seed's
// assessBufferIntegrity and shouldUseBufferForRecovery, applied to the file
// as Node.js would read it: the content is split on "\n" only, each line is
// trimmed with JavaScript's String.prototype.trim (which also strips a
// UTF-8 BOM, NBSP and the other Unicode spaces), blank lines are ignored,
// and a line is valid when JSON.parse accepts it and yields an object whose
// "type" and "timestamp" are strings (the last of duplicate keys wins, as in
// JavaScript; invalid UTF-8 inside a string is tolerated, as Node's decoder
// replaces it with U+FFFD). The last non-empty line, when invalid, is the
// truncated tail even when a newline follows it; it is not counted as
// corrupt. An empty file has severity "unreadable".
//
// Lines are judged by the integrity validator first; the seed's rules are
// re-checked only where the two can disagree (lines integrity calls
// corrupt, lines with duplicate keys), so the common path costs one
// validation per line. A line the seed accepts but the shipper calls corrupt
// (a BOM, invalid UTF-8, nesting deeper than the shipper's parser allows)
// is counted valid and reported as a problem.
//
// # The shipper's view
//
// SchemaInvalidLines counts valid lines that break the v1 schema. Seq
// continuity follows integrity.Judge with Prev.After: the first sequenced
// line should carry seq 0, and each line is compared with the highest seq
// before it (gaps, duplicates, regressions).
//
// # Recovery facts (Phase 2)
//
// LastCheckpoint is the last CHECKPOINT_WRITTEN; CompletedAfterCheckpoint
// lists the invocation_ids of the TOOL_RESULTs after it, the skip list of
// the seed's Phase 2; StartedNotFinished lists TOOL_STARTs that have no
// TOOL_RESULT anywhere in the file, with is_side_effect: side effects that
// may have happened.
//
// Tree walks files and directories (*.jsonl, recursively, without following
// symlinks) and sums sizes per job directory for the seed's size alerts
// ("Open Questions" item 5: a file over 10 MB, a job directory over 50 MB).
// TableWriter and JSONWriter render reports as `journalship verify` shows
// them.
package audit
