package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/output"
	"github.com/journalship/journalship/redact"
)

// Exit codes of `journalship verify`.
const (
	exitClean    = 0 // every file is clean
	exitWarnings = 1 // warnings only
	exitCorrupt  = 2 // a file is corrupt beyond the threshold, or unreadable
	// exitUsage (64): bad flags, no path, or a path that does not exist.
)

const verifyAbout = `Checks journal files (a directory is searched recursively for *.jsonl) of
every format, each by its own format's rules (found as the plugin finds it)
and the way the agent's recovery reads them: truncated tails, corrupt
lines, seq gaps, schema violations, a session or run that never ended,
requests never answered, size alerts. One row per file, then the details
of the bad ones. LINES counts every line, a torn last line (TAIL "cut")
included.

Exit status: 0 all clean, 1 warnings only, 2 a file corrupt beyond the
threshold or unreadable, 64 usage error (a bad flag, no path, or a path
that does not exist).

With --secrets it reports instead what the plugin would redact before the
lines leave the node: each secret's line, byte offset and rule, never the
secret (the --redact-* flags are the plugin's Redact_* settings). Exit
status: 0 none, 1 secrets found, 2 a file unreadable, 64 usage error.`

// runVerify runs `journalship verify` and returns its exit status.
func runVerify(args []string, stdout, stderr io.Writer) int {
	cfg := audit.DefaultConfig()
	c := newCommand("verify", "journalship verify [--json] [--threshold 0.1] PATH...", verifyAbout)
	c.out = stdout
	asJSON := c.fs.Bool("json", false, "one JSON object per file, then a summary object")
	c.fs.Float64Var(&cfg.CorruptionThreshold, "threshold", cfg.CorruptionThreshold,
		"corrupt-line ratio above which a file is unusable for recovery (corrupt)")
	c.fs.StringVar(&cfg.Formats.Format, "format", cfg.Formats.Format,
		"journal format of every file ("+strings.Join(registry.Names(), ", ")+"), or auto: from each file's path and first line (the plugin's Format)")
	roots := c.fs.String("format-roots", "", "directories each format is confined to, format=/dir[:/dir2],... (the plugin's Format_Roots)")
	secrets := c.fs.Bool("secrets", false, "report what the plugin would redact (line, byte offset and rule of each secret; never the secret), instead of the integrity check")
	// The plugin's Redact_* settings, as flags (--redact-rules, ...).
	redactGet := settingFlagsOf(c.fs, nil, func(name string) bool { return strings.HasPrefix(name, "Redact_") })
	err := c.parse(args)
	if err == nil && *roots != "" {
		if cfg.Formats.Roots, err = registry.ParseRoots(*roots); err != nil {
			err = c.usage("--format-roots: %v", err)
		}
	}
	if err == nil {
		err = c.existingPaths(c.fs.Args())
	}
	if err == nil {
		if verr := cfg.Validate(); verr != nil {
			err = c.usage("%v", verr)
		}
	}
	var rcfg redact.Config
	if err == nil && *secrets {
		if rcfg, err = output.RedactSettings(redactGet); err != nil {
			err = c.usage("%v", err)
		}
	}
	if err != nil {
		return exitStatus(err, stderr)
	}
	if *secrets {
		return verifySecrets(c.fs.Args(), rcfg, *asJSON, stdout, stderr)
	}
	return verify(c.fs.Args(), cfg, *asJSON, stdout, stderr)
}

// reportWriter is what the table and the JSON renderers have in common.
type reportWriter interface {
	Write(audit.Report) error
	Close([]audit.JobReport) (audit.Summary, error)
}

func verify(paths []string, cfg audit.Config, asJSON bool, stdout, stderr io.Writer) int {
	var out reportWriter = audit.NewTableWriter(stdout, cfg)
	if asJSON {
		out = audit.NewJSONWriter(stdout)
	}
	start := time.Now()
	var werr error
	jobs, err := audit.Tree(paths, cfg, func(r audit.Report) {
		if e := out.Write(r); e != nil && werr == nil {
			werr = e
		}
	})
	if err != nil {
		fmt.Fprintln(stderr, "journalship verify:", err)
		return exitUsage
	}
	sum, cerr := out.Close(jobs)
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		fmt.Fprintln(stderr, "journalship verify: writing the report:", werr)
		return exitCorrupt
	}
	reportSpeed(stderr, sum, time.Since(start))
	return exitCode(sum.Level)
}

func exitCode(l audit.Level) int {
	switch l {
	case audit.Clean:
		return exitClean
	case audit.Warning:
		return exitWarnings
	}
	return exitCorrupt
}

// reportSpeed prints files, MB and MB/s (MB = 10^6 bytes).
func reportSpeed(w io.Writer, s audit.Summary, d time.Duration) {
	mb := float64(s.Bytes) / 1e6
	rate := 0.0
	if d > 0 {
		rate = mb / d.Seconds()
	}
	fmt.Fprintf(w, "verified %d files, %.2f MB in %s (%.1f MB/s)\n", s.Files, mb, d.Round(time.Millisecond), rate)
}
