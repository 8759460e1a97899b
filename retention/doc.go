// Package retention deletes journal files once every byte of them is in
// Loki and their job is over (docs/formats/cortex-plane.md, section 5).
//
// A sweep walks the root's entries. A job directory, <Root>/<job_id>/*.jsonl
// (Cortex Plane), is judged as a job; a "run tree", a runtime's directory
// of one file per run (Codelia's sessions/YYYY/MM/DD/<run_id>.jsonl,
// OrbitMesh's sessions/<id>.messages.jsonl, recognised by its first
// journal's format, or by holding subdirectories only), is swept file by
// file, its top directory never removed (runs.go). A file becomes a
// candidate by one of three rules:
//
//   - job_terminal: the job is terminal (COMPLETED, FAILED or CANCELLED) and
//     its finished_at + PostTerminal (24h) has passed;
//   - run_over: the run in the file is over for good (its format's State)
//     and its last write is PostTerminal old;
//   - max_age: the file's mtime is older than MaxAge (7 days), the seed's
//     safety net for orphaned files.
//
// A [Fleet] sweeps several roots (one per format on a node) into one
// report, with one ledger, finalizer and set of metrics.
//
// A candidate is first handed to the finalizer (which ships what is left of
// it, marks a torn last line and marks it finished in the ledger), and is
// deleted only when the ledger then says it is fully accounted for:
// FileState.Finished and FileState.Size equal to the file's current size.
// An unaccounted file past MaxAge is kept, logged and counted as
// unshipped_past_max_age — a shipping outage an operator must see — unless
// ForceMaxAge is set.
//
// Whether a session, run or job is over is the verdict's (package
// verdict), the same the finalizer asks. A job, a directory of sessions
// that ends as one (Cortex Plane), is terminal by its format's journals
// (format.GroupEnder: its latest session's last line), or by a
// format.GroupStatus given to New: package format/cortex/jobdb queries
// its PostgreSQL database as the format's cleanup cron does.
//
// Safety: the root must be an absolute directory other than "/", and is
// opened with [os.OpenRoot], so no operation can leave it even through a
// symlink swapped in mid-sweep. Symlinks are never followed and anything
// that is not a regular file is left alone. A file is re-checked (size and
// mtime) just before it is removed; the ledger row is forgotten after the
// file is gone, and a sweep first forgets the rows of files that no longer
// exist (a crash between the two). A job directory is removed only when a
// fresh listing finds it empty, with os.Remove (rmdir), never RemoveAll.
package retention
