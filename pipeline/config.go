// Package pipeline is journalship's shipping path, shared by the Fluent Bit
// plugin and the CLI: decode → integrity → enrich → encode → deliver. It
// takes records (a journal line with its file and byte offset), validates
// and annotates every line, pushes them to Loki synchronously and records
// what Loki accepted in the ledger. Ship returns only when every line is in
// Loki or in the dead-letter file, or with a retryable error.
package pipeline

import (
	"errors"
	"fmt"
	"github.com/journalship/journalship/redact"
	"github.com/journalship/journalship/tenant"
	"slices"
	"strings"
	"time"

	"github.com/journalship/journalship/enrich"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/journalfile"
)

// OldEntryPolicy says what happens to an entry whose timestamp Loki would
// refuse (older than MaxEntryAge, newer than MaxFutureSkew, or refused by
// Loki as too old / too far behind).
type OldEntryPolicy string

// Policies for entries outside Loki's window.
const (
	// Rewrite ships the entry stamped with the time of shipping and keeps
	// the event's own time in the original_timestamp metadata.
	Rewrite OldEntryPolicy = "rewrite"
	// DeadLetter writes the entry to the dead-letter file.
	DeadLetter OldEntryPolicy = "dead_letter"
)

// Config is the pipeline's configuration.
type Config struct {
	// Formats selects how each file's journal format is detected.
	Formats    registry.Config
	Enrich     enrich.Config
	Lookbehind journalfile.Config
	Layout     Layout
	// MaxLineBytes: longer lines are dead-lettered instead of being sent
	// (Loki's max_line_size, default 256 KiB, would refuse them).
	MaxLineBytes int
	// OldEntries is the policy for entries outside Loki's window.
	OldEntries OldEntryPolicy
	// MaxEntryAge mirrors Loki's reject_old_samples_max_age (default 168h).
	MaxEntryAge time.Duration
	// MaxFutureSkew mirrors Loki's creation_grace_period (default 10m).
	MaxFutureSkew time.Duration
	// MaxBehind mirrors the window of Loki's ingester for entries behind
	// their stream's newest one (half its max_chunk_age, default 1h):
	// older entries take OldEntries before they are sent. 0 turns the
	// check off (Loki's refusals are then handled as they come).
	MaxBehind time.Duration
	// Tenants says which Loki tenant each journal goes to (Tenant_ID,
	// Tenant_Roots, Tenant_Path_Pattern, Tenant_Fallback). A journal's
	// tenant also selects the price table's tenant overrides and is the
	// tenant label of its token and cost metrics.
	Tenants tenant.Config
	// Redact says which secrets are replaced in lines before they leave
	// the node (Redact_* settings).
	Redact redact.Config
	// FileCacheSize bounds the per-file state kept in memory.
	FileCacheSize int
	// Now is the clock (tests set it).
	Now func() time.Time
}

// DefaultConfig returns the defaults documented in docs/settings.md.
func DefaultConfig() Config {
	return Config{
		Formats:       registry.DefaultConfig(),
		Enrich:        enrich.DefaultConfig(),
		Lookbehind:    journalfile.DefaultConfig(),
		Layout:        DefaultLayout(),
		MaxLineBytes:  256 << 10,
		OldEntries:    Rewrite,
		MaxEntryAge:   168 * time.Hour,
		MaxFutureSkew: 10 * time.Minute,
		MaxBehind:     time.Hour,
		FileCacheSize: 8192,
		Redact:        redact.DefaultConfig(),
		Now:           time.Now,
	}
}

// Validate checks every part.
func (c Config) Validate() error {
	errs := []error{c.Formats.Validate(), c.Enrich.Validate(), c.Lookbehind.Validate(), c.Layout.Validate(), c.Tenants.Validate(), c.Redact.Validate()}
	if c.MaxLineBytes < 1024 {
		errs = append(errs, fmt.Errorf("pipeline: max line bytes %d is below 1024", c.MaxLineBytes))
	}
	if c.OldEntries != Rewrite && c.OldEntries != DeadLetter {
		errs = append(errs, fmt.Errorf("pipeline: old entry policy %q is not %q or %q", c.OldEntries, Rewrite, DeadLetter))
	}
	if c.MaxEntryAge <= 0 || c.MaxFutureSkew <= 0 {
		errs = append(errs, errors.New("pipeline: max entry age and max future skew must be positive"))
	}
	if c.MaxBehind < 0 {
		errs = append(errs, fmt.Errorf("pipeline: max behind %s is negative", c.MaxBehind))
	}
	if c.FileCacheSize < 16 {
		errs = append(errs, fmt.Errorf("pipeline: file cache size %d is below 16", c.FileCacheSize))
	}
	if c.Now == nil {
		errs = append(errs, errors.New("pipeline: no clock"))
	}
	errs = append(errs, c.labelClash())
	return errors.Join(errs...)
}

// labelClash refuses a static label that is also a per-line label
// (Label_Keys): every stream would carry the name
// twice, Loki refuses each request ("duplicate label name") and not one
// line would ever be stored.
func (c Config) labelClash() error {
	perLine := map[string]bool{}
	for _, k := range c.Layout.Labels {
		perLine[string(k)] = true
	}
	var clash []string
	for name := range c.Enrich.Static {
		if perLine[name] {
			clash = append(clash, name)
		}
	}
	if len(clash) == 0 {
		return nil
	}
	slices.Sort(clash)
	return fmt.Errorf("pipeline: static label %s is also a per-line label (Label_Keys): Loki would refuse every stream for a duplicate label name; drop it from Labels or from Label_Keys",
		strings.Join(clash, ", "))
}
