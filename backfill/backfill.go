// Package backfill runs the shipping pipeline over journal files on disk:
// the CLI's `journalship ship` for backfills and re-shipping after an
// outage. It is resumable: byte ranges the ledger already holds are
// skipped, so running it twice ships nothing twice.
package backfill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/pipeline"
)

// Config tunes a backfill.
type Config struct {
	// BatchLines and BatchBytes bound one pipeline call (one Loki flush).
	BatchLines int
	BatchBytes int
	// MaxLineBytes: a longer line is still shipped (the pipeline
	// dead-letters it with its reason); this bounds reading only. Default
	// 16 MiB.
	MaxLineBytes int
	// MaxElapsed is how long one batch is retried against a failing Loki
	// before the run stops with an error. Default 5m.
	MaxElapsed time.Duration
	// Progress receives a progress line every ProgressEvery (nil: none).
	Progress      io.Writer
	ProgressEvery time.Duration
	// Tag is passed to the pipeline as the Fluent Bit tag would be.
	Tag string
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{BatchLines: 2000, BatchBytes: 1 << 20, MaxLineBytes: 16 << 20,
		MaxElapsed: 5 * time.Minute, ProgressEvery: 2 * time.Second, Tag: "journalship.ship"}
}

// Validate checks the bounds.
func (c Config) Validate() error {
	if c.BatchLines < 1 || c.BatchBytes < 1024 || c.MaxLineBytes < 1024 || c.MaxElapsed <= 0 {
		return errors.New("backfill: batch lines >= 1, batch bytes >= 1024, max line bytes >= 1024 and max elapsed > 0 are required")
	}
	if c.Progress != nil && c.ProgressEvery <= 0 {
		return errors.New("backfill: progress interval must be positive")
	}
	return nil
}

// Shipper is the pipeline (or anything that ships records the same way).
type Shipper interface {
	Ship(ctx context.Context, recs []chunk.Record, tag string) (pipeline.Result, error)
}

// Ledger tells which ranges are already shipped.
type Ledger interface {
	File(ctx context.Context, path string) (ledger.FileState, error)
}

// Locker is a ledger that can lock a file for its shipper
// (*ledger.Ledger). Without it nothing is locked.
type Locker interface {
	LockFile(ctx context.Context, path string) (context.Context, func(), error)
}

// Stats sums up a run.
type Stats struct {
	Files, Lines, Shipped, DeadLettered, Skipped int
	Bytes                                        int64
	// PartialTails counts files ending in an unterminated line, left for
	// the finalizer (a writer may still be appending it).
	PartialTails int
	Elapsed      time.Duration
}

// Runner ships files.
type Runner struct {
	cfg    Config
	ship   Shipper
	ledger Ledger
	stats  Stats
	start  time.Time
	last   time.Time
	total  int
}

// New returns a Runner. ledger may be nil (nothing is skipped).
func New(cfg Config, ship Shipper, l Ledger) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if ship == nil {
		return nil, errors.New("backfill: no shipper")
	}
	return &Runner{cfg: cfg, ship: ship, ledger: l}, nil
}

// Run ships every *.jsonl file under paths (files or directories, walked
// recursively without following symlinks).
func (r *Runner) Run(ctx context.Context, paths ...string) (Stats, error) {
	r.start, r.last = time.Now(), time.Now()
	files, err := Discover(paths...)
	if err != nil {
		return r.stats, err
	}
	r.total = len(files)
	for _, f := range files {
		if err := r.shipFile(ctx, f); err != nil {
			r.finish()
			return r.stats, err
		}
		r.stats.Files++
		r.progress(false)
	}
	r.finish()
	return r.stats, nil
}

func (r *Runner) finish() {
	r.stats.Elapsed = time.Since(r.start)
	r.progress(true)
}

// Discover lists the journal files under paths, sorted, as absolute paths:
// Fluent Bit's tail reports absolute paths and the ledger is keyed by them,
// so `ship sessions` run from /data must name /data/sessions/... (symlinks
// are not resolved: give the spelling tail's Path uses). A path that is a
// file is taken whatever its name; in directories only regular *.jsonl
// files count. Symlinks are not followed.
func Discover(paths ...string) ([]string, error) {
	var out []string
	for _, p := range paths {
		p, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("backfill: %w", err)
		}
		info, err := os.Lstat(p)
		if err != nil {
			return nil, fmt.Errorf("backfill: %w", err)
		}
		if info.Mode().IsRegular() {
			out = append(out, p)
			continue
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("backfill: %s is neither a regular file nor a directory", p)
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("backfill: %w", err)
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".jsonl") {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func (r *Runner) progress(final bool) {
	if r.cfg.Progress == nil || (!final && time.Since(r.last) < r.cfg.ProgressEvery) {
		return
	}
	r.last = time.Now()
	el := time.Since(r.start).Seconds()
	mbps := 0.0
	if el > 0 {
		mbps = float64(r.stats.Bytes) / 1e6 / el
	}
	prefix := "shipping"
	if final {
		prefix = "done"
	}
	tails := "1 torn last line left for the finalizer"
	if r.stats.PartialTails != 1 {
		tails = fmt.Sprintf("%d torn last lines left for the finalizer", r.stats.PartialTails)
	}
	fmt.Fprintf(r.cfg.Progress, "%s: %d/%d files, %d lines (%d shipped, %d dead-lettered, %d already shipped), %.1f MB at %.1f MB/s, %s\n",
		prefix, r.stats.Files, r.total, r.stats.Lines, r.stats.Shipped, r.stats.DeadLettered, r.stats.Skipped,
		float64(r.stats.Bytes)/1e6, mbps, tails)
}

// send ships one batch, retrying with exponential backoff while the error
// is retryable.
func (r *Runner) send(ctx context.Context, recs []chunk.Record, where string) error {
	op := func() (pipeline.Result, error) {
		res, err := r.ship.Ship(ctx, recs, r.cfg.Tag)
		var re *pipeline.RetryError
		if err != nil && !errors.As(err, &re) {
			return res, backoff.Permanent(err)
		}
		return res, err
	}
	res, err := backoff.Retry(ctx, op, backoff.WithBackOff(backoff.NewExponentialBackOff()), backoff.WithMaxElapsedTime(r.cfg.MaxElapsed))
	if err != nil {
		return fmt.Errorf("backfill: %s: %w", where, err)
	}
	r.stats.Lines += res.Lines
	r.stats.Shipped += res.Shipped
	r.stats.DeadLettered += res.DeadLettered
	r.stats.Skipped += res.AlreadyShipped // found in the ledger under the file lock
	r.stats.Bytes += res.Bytes
	return nil
}
