// Package finalize accounts for the end of journal files. Fluent Bit's tail
// input never emits a last line without its newline, so the line a crashed
// writer left half-written would never reach Loki. Once a file is finished
// — its session ended, its job is terminal, a newer session file stands
// beside it, or its partial last line has not grown for StaleAfter (writers
// append whole lines, so a tail that stays partial means the writer died
// mid-append) — the finalizer ships its unshipped complete lines, ships one
// truncated_tail entry for the partial line so Grafana shows where the
// session was cut off, and records in the ledger that the whole file is
// accounted for. At every pass, finished or not, it also ships the lines
// in the holes the ledger shows between a file's shipped ranges (chunks
// Fluent Bit discarded), never those past the last shipped range, which
// tail may still be about to send. It is idempotent and never touches a
// file that changes while it works. The CLI and the retention agent share
// it.
package finalize

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/pipeline"
	"github.com/journalship/journalship/verdict"
)

// Config tunes the finalizer.
type Config struct {
	// StaleAfter is how long a partial last line must stay unchanged before
	// the writer is taken for dead. Default 10m.
	StaleAfter time.Duration
	// IdleAfter, when positive, takes a file unchanged this long for
	// finished even without a partial tail: a writer that stopped exactly
	// at a line's end and never came back. The retention agent sets it to
	// its max age (0, the default, turns the rule off).
	IdleAfter time.Duration
	// PreviewChars bounds the escaped preview of a partial tail, in
	// characters, "…" included (audit.PreviewN). Default 200 (the seed's
	// rawPreview).
	PreviewChars int
	// Backfill ships the unshipped complete lines.
	Backfill backfill.Config
	// Audit judges the finished file for its summary entry.
	Audit audit.Config
	// Metrics, when set, counts finished files and truncated tails.
	Metrics *metrics.Set
	// Now is the clock.
	Now func() time.Time
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{StaleAfter: 10 * time.Minute, PreviewChars: audit.PreviewChars, Backfill: backfill.DefaultConfig(), Audit: audit.DefaultConfig(), Now: time.Now}
}

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.StaleAfter < 0 || c.IdleAfter < 0 || c.PreviewChars < 16 || c.Now == nil {
		return errors.New("finalize: stale-after >= 0, idle-after >= 0, preview bytes >= 16 and a clock are required")
	}
	if err := c.Audit.Validate(); err != nil {
		return err
	}
	return c.Backfill.Validate()
}

// Shipper is what the finalizer ships through (*pipeline.Pipeline, or an
// output.Instance).
type Shipper interface {
	backfill.Shipper
	ShipSynthetic(ctx context.Context, entries []pipeline.Synthetic) error
	// Format is the journal format of the file at path.
	Format(path string) format.Format
	// RedactLine returns line, of the file at path, with its secrets
	// replaced (line itself when it holds none).
	RedactLine(path string, line []byte) []byte
}

// Ledger is the part of the ledger the finalizer uses.
type Ledger interface {
	File(ctx context.Context, path string) (ledger.FileState, error)
	Record(ctx context.Context, segs []ledger.Segment) error
	MarkFinished(ctx context.Context, path string, identity journalfile.Identity, size, tailFrom int64) error
	Forget(ctx context.Context, path string) error
	FilesOfIdentity(ctx context.Context, id journalfile.Identity) ([]ledger.FileState, error)
	// Marks and SetMarks keep a session's facts between passes
	// (format.SideRecords).
	Marks(ctx context.Context, session string) (map[string]string, error)
	SetMarks(ctx context.Context, session string, marks map[string]string) error
}

// Outcome is what the finalizer did with one file.
type Outcome struct {
	Path string
	// Finished is true when the file is (now or already) fully accounted for.
	Finished bool
	// Why names the rule that made the file finished, or why it is not.
	Why          string
	ShippedLines int
	// Holes are the gaps between the file's shipped ranges that this pass
	// shipped the lines of (Holes), HoleLines those lines. A finished
	// file's remaining lines are in ShippedLines besides.
	Holes     []ledger.Range
	HoleLines int
	// Adopted are the paths the file had before (renamed: same device,
	// inode and first line) whose shipped ranges it took.
	Adopted []string
	// TailBytes is the size of the partial last line marked, 0 if none.
	TailBytes int
	// Level is the audit's verdict on the finished file.
	Level       audit.Level
	severity    string
	sizeAlert   bool
	jobDirAlert bool
}

// Finalizer finishes files.
type Finalizer struct {
	cfg    Config
	ship   Shipper
	ledger Ledger
	// verdict says when a file is finished.
	verdict *verdict.Judge
	reader  *journalfile.Reader
}

// New returns a Finalizer. groups, when not nil, says whether a group of
// journals (a Cortex Plane job) is terminal instead of its format's
// journals (verdict.New).
func New(cfg Config, ship Shipper, l Ledger, groups format.GroupStatus) (*Finalizer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if ship == nil || l == nil {
		return nil, errors.New("finalize: a shipper and a ledger are required")
	}
	r, err := journalfile.New(journalfile.DefaultConfig())
	if err != nil {
		return nil, err
	}
	if m := cfg.Metrics; m != nil {
		// Every level × severity at 0, so increase() counts the first file.
		for l := audit.Clean; l <= audit.Corrupt; l++ {
			for _, s := range audit.Severities {
				m.FilesFinished.WithLabelValues(l.String(), s)
			}
		}
	}
	v, err := verdict.New(verdict.Config{Quiet: cfg.StaleAfter, Idle: cfg.IdleAfter, Audit: cfg.Audit, Now: cfg.Now}, groups, ship.Format)
	if err != nil {
		return nil, err
	}
	return &Finalizer{cfg: cfg, ship: ship, ledger: l, verdict: v, reader: r}, nil
}

// Run finalizes every journal file under paths (see backfill.Discover).
func (f *Finalizer) Run(ctx context.Context, paths ...string) ([]Outcome, error) {
	files, err := backfill.Discover(paths...)
	if err != nil {
		return nil, err
	}
	var out []Outcome
	for _, p := range files {
		o, err := f.File(ctx, p)
		if err != nil {
			return out, err
		}
		out = append(out, o)
	}
	return out, nil
}

// ErrChanged means the file changed while it was being finalized: a writer
// is still appending. Nothing was marked; the next run tries again.
var ErrChanged = errors.New("finalize: file changed while being finalized")

// File finalizes one file if it is finished.
func (f *Finalizer) File(ctx context.Context, path string) (Outcome, error) {
	o := Outcome{Path: path}
	before, err := snapshotOf(path)
	if err != nil {
		return o, fmt.Errorf("finalize: %w", err)
	}
	st, err := f.ledger.File(ctx, path)
	if err != nil {
		return o, fmt.Errorf("finalize: ledger for %s: %w", path, err)
	}
	if !journalfile.Same(st.Identity, before.id) || ledger.End(st.Ranges) > before.size {
		// The path names another file than the ledger's ranges are of
		// (replaced, rotated, or truncated in place: ranges past its end):
		// those rows are retired, and this file is shipped from its first
		// byte.
		if err := f.ledger.Forget(ctx, path); err != nil {
			return o, fmt.Errorf("finalize: retiring the ledger rows of replaced %s: %w", path, err)
		}
		st = ledger.FileState{Path: path, Size: -1}
	}
	if st, err = f.adopt(ctx, path, before, st, &o); err != nil {
		return o, err
	}
	if st.Finished && st.Size == before.size {
		o.Finished, o.Why = true, "already finished"
		return o, f.side(ctx, path, nil) // a run may end with no new line
	}
	// Lines Fluent Bit lost between shipped ranges ship now, whether or
	// not the file is finished.
	if err := f.shipHoles(ctx, path, st, before, &o, false); err != nil {
		return o, err
	}
	why, err := f.finished(ctx, path, before)
	if err != nil || why == "" {
		o.Why = "still being written"
		if err == nil {
			// Lines Fluent Bit lost at the end of a quiet file that never
			// finishes (a run never over) ship all the same.
			err = f.shipQuiet(ctx, path, before, &o)
		}
		if err == nil {
			// Records written beside a live session (a checkpoint) ship
			// while it runs.
			err = f.side(ctx, path, nil)
		}
		return o, err
	}
	o.Why = why
	if err := f.account(ctx, path, before, &o); err != nil {
		if errors.Is(err, ErrChanged) {
			o.Why = "changed while being finalized"
			return o, nil
		}
		return o, err
	}
	o.Finished = true
	return o, nil
}
