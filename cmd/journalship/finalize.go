package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/journalship/journalship/finalize"
	"github.com/journalship/journalship/output"
)

const finalizeAbout = `Accounts for finished journal files: a file whose session ended, whose job
is over, beside which a newer session file stands, or whose partial last
line has not grown for --stale-after. For each it ships the complete lines
not yet in Loki, one truncated_tail entry for a torn last line and one
file_summary entry, then records in the ledger that every byte is
accounted for. Any file, finished or not, also gets the lines in the holes
between its shipped ranges (lines Fluent Bit lost) shipped. Idempotent; a
file that changes meanwhile is left for the next run.`

func runFinalize(args []string, stdout io.Writer) error {
	c := newCommand("finalize", "journalship finalize [flags] DIR|FILE...", finalizeAbout)
	c.out = stdout
	get := settingFlags(c.fs, map[string]string{"Metrics_Address": "off"})
	cfg := finalize.DefaultConfig()
	c.fs.DurationVar(&cfg.StaleAfter, "stale-after", cfg.StaleAfter, "a partial last line unchanged this long means its writer died")
	if err := c.parse(args); err != nil {
		return err
	}
	if err := c.existingPaths(c.fs.Args()); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err := finalizePaths(ctx, get, cfg, stdout, c.fs.Args()...)
	return err
}

// finalizePaths finalizes the journals under paths with the plugin's
// settings, printing one line per file that was finished now.
func finalizePaths(ctx context.Context, get output.Getter, cfg finalize.Config, w io.Writer, paths ...string) ([]finalize.Outcome, error) {
	inst, err := output.NewInstance(get, output.WithLogName("journalship finalize"))
	if err != nil {
		return nil, err
	}
	defer inst.Close()
	if inst.Ledger() == nil {
		return nil, errors.New("finalize: needs the ledger (Ledger_Path is none)")
	}
	f, err := finalize.New(cfg, inst, inst.Ledger(), nil)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	outs, err := f.Run(ctx, paths...)
	done := 0
	for _, o := range outs {
		if o.HoleLines > 0 {
			fmt.Fprintf(w, "shipped %s from holes of %s (gaps between its shipped ranges)\n", plural(o.HoleLines, "line", "lines"), o.Path)
		}
		if o.Finished && o.Why != "already finished" {
			done++
			tail := ""
			if o.TailBytes > 0 {
				tail = fmt.Sprintf(", its %d-byte torn last line marked", o.TailBytes)
			}
			fmt.Fprintf(w, "finished %s — %s: %s shipped%s\n", o.Path, o.Why, plural(o.ShippedLines, "line", "lines"), tail)
		}
	}
	fmt.Fprintf(w, "finalize: %d of %s finished now, in %s\n", done, plural(len(outs), "file", "files"), time.Since(start).Round(time.Millisecond))
	return outs, err
}
