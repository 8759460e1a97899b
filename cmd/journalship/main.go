// Command journalship runs journalship's shipping pipeline outside Fluent
// Bit: `ship` backfills journal files into Loki, `demo` shows the whole
// path on a sample against a local Loki (make run).
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `journalship ships AI-agent session journals to Grafana Loki.

Usage:
  journalship ship [settings] DIR|FILE...   ship journal files (resumable from the ledger)
  journalship finalize [settings] DIR|FILE... account for finished files: ship what is left, mark torn last lines
  journalship retention [settings] [flags]   delete journal files once fully in Loki and their job is over (--once, --dry-run)
  journalship demo [flags]                  start a local Loki, ship a sample, show what landed
  journalship verify [--json] PATH...       check journal files' integrity (exit 0 clean, 1 warnings, 2 corrupt)
  journalship simulate --format-roots F=DIR,... | --dir DIR [flags]
                                            keep writing realistic journals of every format, with crashes (--crash-every, --once)
  journalship check-config FILE...          check a Fluent Bit configuration's journalship keys (misspelt, repeated, refused)
  journalship settings                      list every setting with its default
  journalship exec [--nofile N] -- PROGRAM [ARG...]
                                            raise the open-file limit, then run PROGRAM in place (no shell needed)
  journalship help

Every command takes --help. Exit status: 0 done, 1 failed, 64 usage error
(verify: 0 clean, 1 warnings, 2 corrupt, 64 usage).

Settings are the plugin's, as flags: Loki_URL is --loki-url, Dead_Letter_Path
is --dead-letter-path, and so on (see 'journalship settings').
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "ship":
		err = runShip(args[1:], stdout)
	case "finalize":
		err = runFinalize(args[1:], stdout)
	case "retention":
		err = runRetention(args[1:], stdout)
	case "demo":
		err = runDemo(args[1:], stdout)
	case "simulate":
		err = runSimulate(args[1:], stdout)
	case "verify":
		return runVerify(args[1:], stdout, stderr)
	case "check-config":
		return runCheckConfig(args[1:], stdout, stderr)
	case "exec":
		err = runExec(args[1:], stderr)
	case "settings":
		printSettings(stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "journalship: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	return exitStatus(err, stderr)
}
