package retention

import (
	"fmt"
	"io"
	"sort"
	"time"
)

// Rules that make a file a deletion candidate.
const (
	RuleJobTerminal  = "job_terminal"   // job over and finished_at + PostTerminal passed
	RuleMaxAge       = "max_age"        // mtime older than MaxAge
	RuleMaxAgeForced = "max_age_forced" // past MaxAge, deleted unaccounted (ForceMaxAge)
	RuleRunOver      = "run_over"       // a file-per-run journal whose run ended for good, mtime + PostTerminal passed
)

// Reasons a file is kept.
const (
	KeepJobActive         = "job_active"              // job not terminal (or one of its files still written), file younger than MaxAge
	KeepRunActive         = "run_active"              // a file-per-run journal whose run is not over for good, younger than MaxAge
	KeepRecentlyModified  = "recently_modified"       // modified within the quiet period: a writer may still append
	KeepPostTerminal      = "post_terminal_wait"      // job terminal, PostTerminal not over yet
	KeepUnshipped         = "unshipped"               // the ledger does not account for every byte
	KeepAppended          = "appended_since_finished" // finished in the ledger at another size
	KeepNotFinalized      = "not_finalized"           // dry run: a real sweep would finalize it first
	KeepFinalizeError     = "finalize_error"          // the finalizer failed (e.g. Loki down)
	KeepStatusUnavailable = "status_unavailable"      // the job's status could not be read
	KeepLedgerError       = "ledger_error"            // the ledger could not be read
	KeepChanged           = "changed"                 // size or mtime changed just before deletion
	KeepReplaced          = "replaced"                // the path names another file than the ledger's ranges are of
	KeepNotRegular        = "not_regular"             // a symlink, directory, device...
	KeepNotJournal        = "not_journal"             // a regular file not named *.jsonl
	KeepUnreadableDir     = "unreadable_dir"          // a job directory that cannot be listed
	KeepDeleteFailed      = "delete_failed"           // os.Remove failed (permissions...)
	KeepOutsideRoot       = "outside_root"            // a path that would leave the root
	KeepNotJobDir         = "not_a_job_dir"           // an entry of the root that is not a directory
	KeepStatError         = "stat_error"              // the file could not be stat'ed
)

// Decision is what a sweep decided for one file (or directory entry).
type Decision struct {
	Path   string
	Job    string // the job id (directory name), "" for the root's own entries
	Delete bool   // deleted (or, in a dry run, would be)
	Rule   string // the rule that made it a candidate, "" if none
	Reason string // why it was kept, "" when deleted
	Detail string // human explanation
	Bytes  int64
}

// String is one flat line: the path, then the rule or reason, then the
// detail (details themselves use commas and semicolons, never brackets,
// so a line reads left to right).
func (d Decision) String() string {
	if d.Delete {
		return fmt.Sprintf("%s — %s: %s; %d bytes", d.Path, d.Rule, d.Detail, d.Bytes)
	}
	return fmt.Sprintf("%s — %s: %s", d.Path, d.Reason, d.Detail)
}

// Report is the outcome of one sweep.
type Report struct {
	DryRun              bool
	Start, End          time.Time
	Duration            time.Duration
	Decisions           []Decision
	FilesDeleted        int
	BytesDeleted        int64
	DirsDeleted         []string
	Kept                map[string]int // files kept, by reason
	UnshippedPastMaxAge int
	RowsForgotten       int
	// StatusUnavailable is true when the status source could not be used
	// (nothing was deleted after that).
	StatusUnavailable bool
	// Errors counts failures that kept something (status, listing, ledger,
	// deletion).
	Errors int
	// Failed is true when the root could not be swept at all.
	Failed bool
}

// Outcome is "ok", "degraded" when something could not be judged, or
// "failed" when the root could not be swept at all.
func (r *Report) Outcome() string {
	switch {
	case r.Failed:
		return OutcomeFailed
	case r.StatusUnavailable || r.Errors > 0:
		return OutcomeDegraded
	}
	return OutcomeOK
}

// Sweep outcomes (label "outcome" of journalship_retention_sweeps_total).
const (
	OutcomeOK       = "ok"
	OutcomeDegraded = "degraded"
	OutcomeFailed   = "failed"
)

func (r *Report) add(d Decision) {
	r.Decisions = append(r.Decisions, d)
	if d.Delete {
		r.FilesDeleted++
		r.BytesDeleted += d.Bytes
		return
	}
	if r.Kept == nil {
		r.Kept = map[string]int{}
	}
	r.Kept[d.Reason]++
}

// Summary is one line: what was deleted and kept.
func (r *Report) Summary() string {
	verb := "deleted"
	if r.DryRun {
		verb = "would delete"
	}
	reasons := make([]string, 0, len(r.Kept))
	for k := range r.Kept {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	kept := ""
	for _, k := range reasons {
		kept += fmt.Sprintf(" %s=%d", k, r.Kept[k])
	}
	return fmt.Sprintf("sweep %s: %s %d files (%d bytes) and %d directories; kept:%s; unshipped past max age: %d; ledger rows forgotten: %d; in %s",
		r.Outcome(), verb, r.FilesDeleted, r.BytesDeleted, len(r.DirsDeleted), kept, r.UnshippedPastMaxAge, r.RowsForgotten, r.Duration.Round(time.Millisecond))
}

// Print writes one line per decision (deletions first) and the summary.
func (r *Report) Print(w io.Writer) {
	verb := "deleted"
	if r.DryRun {
		verb = "would delete"
	}
	for _, d := range r.Decisions {
		if d.Delete {
			fmt.Fprintf(w, "%s %s\n", verb, d)
		}
	}
	for _, dir := range r.DirsDeleted {
		fmt.Fprintf(w, "%s directory %s (empty)\n", verb, dir)
	}
	for _, d := range r.Decisions {
		if !d.Delete {
			fmt.Fprintf(w, "keep %s\n", d)
		}
	}
	fmt.Fprintln(w, r.Summary())
}
