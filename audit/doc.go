// Package audit is an fsck for agent session journals of every registered
// format: it reads a journal file (streaming, in bounded memory), picks its
// format as the shipper does (format/registry: the Format setting, else
// the path confirmed by the first line, else the first line, else the
// fallback that checks each line as JSON), and returns its integrity
// verdict by that format's rules: schema, continuity, whether the session
// or run is over, what it leaves unfinished, its derived state.
//
// # Counts and severity
//
// TotalLines, ValidLines, CorruptLines, TailTruncated, Severity,
// CorruptionRatio and UsableForRecovery follow the Cortex Plane runtime's
// own assessment (docs/formats/cortex-plane.md, section 6), applied to every
// format: the content is split on "\n" only, each line is trimmed with
// JavaScript's String.prototype.trim (which also strips a UTF-8 BOM, NBSP
// and the other Unicode spaces), blank lines are ignored. The last
// non-empty line, when invalid, is the truncated tail even when a newline
// follows it; it is not counted as corrupt. An empty file has severity
// "unreadable".
//
// Lines are judged by the format's judge. A format whose runtime reads its
// journal back (format.Rereader: Cortex Plane's parseLine) is re-read that
// way only where the two can disagree (lines the judge calls corrupt, lines
// with duplicate keys or raw control characters), so the common path costs
// one judgement per line. A line the runtime accepts but the shipper calls
// corrupt (a BOM, invalid UTF-8, nesting deeper than the shipper's parser
// allows) is counted valid and reported as a problem.
//
// # The shipper's view
//
// SchemaInvalidLines counts valid lines that break the format's schema.
// Seq continuity follows the format's format.SeqRule with Prev.After, for
// formats that number their lines: each line is compared with the highest
// seq before it (gaps, duplicates, regressions).
//
// # End, unfinished work, recovery facts
//
// SessionEnded and Terminal are the format's State.Over after the last
// line; Unfinished is its State.Open (a Codelia request never answered);
// State its derived state (OrbitMesh's status, with the snapshot beside
// the log). From the format-neutral roles: LastCheckpoint is the last line
// that saves a checkpoint; CompletedAfterCheckpoint lists the tool call ids
// of the results after it (what a resume skips); StartedNotFinished lists
// tool calls with no result anywhere in the file, with their side-effect
// flag: side effects that may have happened.
//
// Tree walks files and directories (*.jsonl, recursively, without following
// symlinks) and sums sizes per directory for the size alerts (a file over
// 10 MiB, a directory over 50 MiB, as docs/formats/cortex-plane.md sets
// them).
// TableWriter and JSONWriter render reports as `journalship verify` shows
// them.
package audit
