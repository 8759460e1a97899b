// Command journalship runs journalship's shipping pipeline outside Fluent
// Bit: `ship` backfills journal files into Loki, `demo` shows the whole
// path on a sample against a local Loki (make run).
package main

import (
	"fmt"
	"os"
)

const usage = `journalship ships AI-agent session journals to Grafana Loki.

Usage:
  journalship ship [settings] DIR|FILE...   ship journal files (resumable from the ledger)
  journalship finalize [settings] DIR|FILE... account for finished files: ship what is left, mark torn last lines
  journalship retention [settings] [flags]   delete journal files once fully in Loki and their job is over (--once, --dry-run)
  journalship demo [flags]                  start a local Loki, ship a sample, show what landed
  journalship verify [--json] PATH...       check journal files' integrity (exit 0 clean, 1 warnings, 2 corrupt)
  journalship simulate --dir DIR [flags]    keep writing realistic journals, with crashes (--crash-every, --once)
  journalship settings                      list every setting with its default
  journalship help

Settings are the plugin's, as flags: Loki_URL is --loki-url, Dead_Letter_Path
is --dead-letter-path, and so on (see 'journalship settings').
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "ship":
		err = runShip(os.Args[2:])
	case "finalize":
		err = runFinalize(os.Args[2:])
	case "retention":
		err = runRetention(os.Args[2:])
	case "demo":
		err = runDemo(os.Args[2:])
	case "simulate":
		err = runSimulate(os.Args[2:])
	case "verify":
		os.Exit(runVerify(os.Args[2:], os.Stdout, os.Stderr))
	case "settings":
		printSettings(os.Stdout)
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "journalship: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "journalship:", err)
		os.Exit(1)
	}
}
