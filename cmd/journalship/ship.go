package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/journalship/journalship/backfill"
	"github.com/journalship/journalship/output"
)

// settingFlags registers one flag per plugin setting and returns a getter
// over them, so the CLI reads exactly the plugin's configuration. overrides
// are the command's own defaults where they differ from the plugin's.
func settingFlags(fs *flag.FlagSet, overrides map[string]string) output.Getter {
	return settingFlagsOf(fs, overrides, func(string) bool { return true })
}

// settingFlagsOf is settingFlags for the settings keep takes.
func settingFlagsOf(fs *flag.FlagSet, overrides map[string]string, keep func(name string) bool) output.Getter {
	vals := map[string]*string{}
	for _, s := range output.Settings {
		if !keep(s.Name) {
			continue
		}
		def, help := overrides[s.Name], s.Help
		if def == "" && s.Default != "" {
			help += " (default " + s.Default + ")"
		}
		vals[strings.ToLower(s.Name)] = fs.String(output.FlagName(s.Name), def, help)
	}
	return func(key string) string {
		if v, ok := vals[strings.ToLower(key)]; ok {
			return *v
		}
		return ""
	}
}

// printSettings lists every setting as a block: its name and flag, what it
// does, its default (some defaults are longer than a table column).
func printSettings(w io.Writer) {
	fmt.Fprintln(w, "Every setting of [OUTPUT] Name journalship; the CLI takes each as a flag.")
	for _, s := range output.Settings {
		def := s.Default
		if def == "" {
			def = "(none)"
		}
		fmt.Fprintf(w, "\n%s  --%s\n    %s\n    default: %s\n", s.Name, output.FlagName(s.Name), s.Help, def)
	}
}

const shipAbout = `Ships journal files into Loki through the plugin's pipeline: a backfill,
or a re-ship after an outage. Files are read as Fluent Bit's tail reads them
(complete lines only: a last line without its newline is left for
'journalship finalize'); byte ranges the ledger already holds are skipped,
so running it twice ships nothing twice. A failing Loki is retried with
exponential backoff for --max-retry. Directories are searched recursively
for *.jsonl files.

Runs as a normal user when --ledger-path and --dead-letter-path name
writable files (the defaults are under /var/lib/journalship).`

func runShip(args []string, stdout io.Writer) error {
	c := newCommand("ship", "journalship ship [flags] DIR|FILE...", shipAbout)
	c.out = stdout
	get := settingFlags(c.fs, map[string]string{"Metrics_Address": "off"})
	cfg := backfill.DefaultConfig()
	c.fs.IntVar(&cfg.BatchLines, "batch-lines", cfg.BatchLines, "lines per push")
	c.fs.DurationVar(&cfg.MaxElapsed, "max-retry", cfg.MaxElapsed, "how long one batch is retried while Loki fails")
	quiet := c.fs.Bool("quiet", false, "no progress lines")
	if err := c.parse(args); err != nil {
		return err
	}
	if err := c.existingPaths(c.fs.Args()); err != nil {
		return err
	}
	if !*quiet {
		cfg.Progress = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err := shipPaths(ctx, get, cfg, c.fs.Args()...)
	return err
}

// shipPaths builds an instance from the settings and backfills paths.
func shipPaths(ctx context.Context, get output.Getter, cfg backfill.Config, paths ...string) (backfill.Stats, error) {
	inst, err := output.NewInstance(get, output.WithLogName("journalship ship"))
	if err != nil {
		return backfill.Stats{}, err
	}
	defer inst.Close()
	var l backfill.Ledger
	if inst.Ledger() != nil {
		l = inst.Ledger()
	}
	r, err := backfill.New(cfg, inst, l)
	if err != nil {
		return backfill.Stats{}, err
	}
	return r.Run(ctx, paths...)
}
