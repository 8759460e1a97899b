package main

import (
	"fmt"
	"io"
	"os"

	"github.com/journalship/journalship/flbconf"
)

const checkConfigAbout = `Checks Fluent Bit configuration files (classic, or YAML when the name ends
in .yaml or .yml) for the journalship output: keys neither Fluent Bit nor
journalship takes (with the setting probably meant), keys set twice
(Fluent Bit hands the plugin the first value only), values the plugin
refuses at start (the same parser), and tail inputs routed to it whose
records lack the Path_Key, Offset_Key or Key the plugin reads. Fluent Bit
itself checks none of a Go plugin's keys: a misspelt Loki_URL would ship
to the default address.

Exit status: 0 no error (notes may be printed), 1 errors found, 64 usage.`

// runCheckConfig runs `journalship check-config` and returns its exit
// status.
func runCheckConfig(args []string, stdout, stderr io.Writer) int {
	c := newCommand("check-config", "journalship check-config FILE...", checkConfigAbout)
	c.out = stdout
	err := c.parse(args)
	if err == nil {
		err = c.existingPaths(c.fs.Args())
	}
	if err != nil {
		return exitStatus(err, stderr)
	}
	errors := 0
	for _, path := range c.fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "journalship check-config: %v\n", err)
			errors++
			continue
		}
		f, err := flbconf.Parse(path, data)
		if err != nil {
			fmt.Fprintf(stdout, "%v\n", err)
			errors++
			continue
		}
		for _, fd := range flbconf.Check(f) {
			fmt.Fprintln(stdout, fd)
			if fd.Severity == flbconf.Error {
				errors++
			}
		}
	}
	if errors > 0 {
		fmt.Fprintf(stderr, "journalship check-config: %d errors\n", errors)
		return 1
	}
	return 0
}
