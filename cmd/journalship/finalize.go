package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/output"
	"github.com/journalship/journalship/retention"
)

func runFinalize(args []string) error {
	fs := flag.NewFlagSet("finalize", flag.ContinueOnError)
	get := settingFlags(fs, map[string]string{"Metrics_Address": "off"})
	cfg := finalize.DefaultConfig()
	fs.DurationVar(&cfg.StaleAfter, "stale-after", cfg.StaleAfter, "a partial last line unchanged this long means its writer died")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("finalize: name at least one directory or file")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err := finalizePaths(ctx, get, cfg, os.Stdout, fs.Args()...)
	return err
}

// finalizePaths finalizes the journals under paths with the plugin's
// settings, printing one line per file that was finished now.
func finalizePaths(ctx context.Context, get output.Getter, cfg finalize.Config, w io.Writer, paths ...string) ([]finalize.Outcome, error) {
	inst, err := output.NewInstance(get)
	if err != nil {
		return nil, err
	}
	defer inst.Close()
	if inst.Ledger() == nil {
		return nil, errors.New("finalize: needs the ledger (Ledger_Path is none)")
	}
	f, err := finalize.New(cfg, inst, inst.Ledger(), retention.FinalizeStatus{Status: retention.JournalStatus{}})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	outs, err := f.Run(ctx, paths...)
	done := 0
	for _, o := range outs {
		if o.Finished && o.Why != "already finished" {
			done++
			fmt.Fprintf(w, "finished %s (%s): %d lines shipped, %d-byte partial tail marked\n", o.Path, o.Why, o.ShippedLines, o.TailBytes)
		}
	}
	fmt.Fprintf(w, "finalize: %d of %d files finished now, in %s\n", done, len(outs), time.Since(start).Round(time.Millisecond))
	return outs, err
}
