package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/journalship/journalship/output"
)

// exitUsage is the exit status of a command line that cannot be run as
// written: a bad flag, a missing or nonexistent path (sysexits' EX_USAGE).
const exitUsage = 64

// command is one subcommand's flag set with the text of its --help: a
// synopsis, what it does, then its own flags, and the plugin settings (the
// [OUTPUT] keys of fluent-bit.conf as flags) in a group of their own.
type command struct {
	name     string // "ship"
	synopsis string // "journalship ship [flags] DIR|FILE..."
	about    string // what it does, a paragraph or two
	fs       *flag.FlagSet
	out      io.Writer // where --help goes (os.Stdout)
}

// newCommand returns a command whose flag set prints nothing by itself:
// parse decides what is printed, and where.
func newCommand(name, synopsis, about string) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &command{name: name, synopsis: synopsis, about: about, fs: fs, out: os.Stdout}
}

// usageError is a command line that cannot be run as written; main prints
// it with the command's synopsis and exits 64.
type usageError struct {
	cmd      string
	synopsis string
	msg      string
}

func (e *usageError) Error() string { return e.cmd + ": " + e.msg }

// usage returns a *usageError for c.
func (c *command) usage(format string, a ...any) error {
	return &usageError{cmd: c.name, synopsis: c.synopsis, msg: fmt.Sprintf(format, a...)}
}

// parse parses args. --help (or -h) prints the help to c.out and returns
// flag.ErrHelp, which main turns into exit status 0; a bad flag is a
// *usageError.
func (c *command) parse(args []string) error {
	err := c.fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		c.help(c.out)
		return flag.ErrHelp
	}
	return c.usage("%v", err)
}

// set reports whether the flag name was given on the command line.
func (c *command) set(name string) bool {
	found := false
	c.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// existingPaths returns a *usageError naming the first path that does not
// exist: a typo in a path is a mistake in the command line, not a corrupt
// or empty journal.
func (c *command) existingPaths(paths []string) error {
	if len(paths) == 0 {
		return c.usage("name at least one directory or file")
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return c.usage("%s: no such file or directory", p)
		}
	}
	return nil
}

// help writes the synopsis, the description and the flags, the command's
// own first, then the plugin settings.
func (c *command) help(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", c.synopsis, strings.TrimSpace(c.about))
	var own, settings []*flag.Flag
	c.fs.VisitAll(func(f *flag.Flag) {
		if !isSettingFlag(f.Name) {
			own = append(own, f)
		}
	})
	for _, s := range output.Settings { // in docs/settings.md's order, not alphabetical
		if f := c.fs.Lookup(output.FlagName(s.Name)); f != nil {
			settings = append(settings, f)
		}
	}
	if len(own) > 0 {
		fmt.Fprintf(w, "\nFlags:\n")
		printFlags(w, own)
	}
	if len(settings) > 0 {
		fmt.Fprintf(w, "\nPlugin settings, as in fluent-bit.conf's [OUTPUT] section (Loki_URL is --loki-url;\n'journalship settings' lists them with their defaults):\n")
		printFlags(w, settings)
	}
}

// printFlags writes one flag a line pair, as flag.PrintDefaults does but
// with two dashes, which is how the docs spell them.
func printFlags(w io.Writer, flags []*flag.Flag) {
	for _, f := range flags {
		typ, help := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if typ != "" {
			line += " " + typ
		}
		if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "0s" {
			help += " (default " + d + ")"
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, help)
	}
}

// isSettingFlag reports whether name is the flag of a plugin setting.
func isSettingFlag(name string) bool {
	for _, s := range output.Settings {
		if output.FlagName(s.Name) == name {
			return true
		}
	}
	return false
}

// exitStatus prints err as a person needs it and returns the exit status:
// 0 for none or --help, 64 for a usage error, 1 for anything else.
func exitStatus(err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "journalship %s\nUsage: %s\nRun 'journalship %s --help' for every flag.\n", ue.Error(), ue.synopsis, ue.cmd)
		return exitUsage
	}
	fmt.Fprintln(stderr, "journalship:", err)
	return 1
}

// plural is "1 file", "2 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
