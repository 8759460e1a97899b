package main

import (
	"context"
	"errors"
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
// over them, so the CLI reads exactly the plugin's configuration.
func settingFlags(fs *flag.FlagSet, overrides map[string]string) output.Getter {
	vals := map[string]*string{}
	for _, s := range output.Settings {
		def := overrides[s.Name]
		vals[strings.ToLower(s.Name)] = fs.String(flagName(s.Name), def, s.Help+" (plugin default: "+s.Default+")")
	}
	return func(key string) string {
		if v, ok := vals[strings.ToLower(key)]; ok {
			return *v
		}
		return ""
	}
}

func flagName(setting string) string {
	return strings.ReplaceAll(strings.ToLower(setting), "_", "-")
}

func printSettings(w io.Writer) {
	for _, s := range output.Settings {
		fmt.Fprintf(w, "%-32s --%-32s default %-28q %s\n", s.Name, flagName(s.Name), s.Default, s.Help)
	}
}

func runShip(args []string) error {
	fs := flag.NewFlagSet("ship", flag.ContinueOnError)
	get := settingFlags(fs, map[string]string{"Metrics_Address": "off"})
	cfg := backfill.DefaultConfig()
	fs.IntVar(&cfg.BatchLines, "batch-lines", cfg.BatchLines, "lines per push")
	fs.DurationVar(&cfg.MaxElapsed, "max-retry", cfg.MaxElapsed, "how long one batch is retried while Loki fails")
	quiet := fs.Bool("quiet", false, "no progress lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("ship: name at least one directory or file")
	}
	if !*quiet {
		cfg.Progress = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err := shipPaths(ctx, get, cfg, fs.Args()...)
	return err
}

// shipPaths builds an instance from the settings and backfills paths.
func shipPaths(ctx context.Context, get output.Getter, cfg backfill.Config, paths ...string) (backfill.Stats, error) {
	inst, err := output.NewInstance(get)
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
