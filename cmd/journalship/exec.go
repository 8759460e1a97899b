package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

const execAbout = `Raises the open-file limit (RLIMIT_NOFILE) to at least --nofile, then
runs PROGRAM in its place (exec: the same process, so signals reach
PROGRAM directly). It is "ulimit -n N && exec PROGRAM" for the image,
which has no shell, and for Kubernetes, which has no ulimit setting: a
container's soft limit is often 1024, and Fluent Bit's tail holds a
descriptor per followed journal. The soft limit is raised up to the hard
one (no privilege needed); the hard one too where the container may
(CAP_SYS_RESOURCE). A limit still below --nofile is reported, and PROGRAM
runs all the same.`

// runExec raises the open-file limit and replaces the process with the
// program named after the flags. It returns only on error.
func runExec(args []string, stderr io.Writer) error {
	c := newCommand("exec", "journalship exec [--nofile N] -- PROGRAM [ARG...]", execAbout)
	nofile := c.fs.Uint64("nofile", 65536, "the open-file limit PROGRAM needs at least")
	if err := c.parse(args); err != nil {
		return err
	}
	argv := c.fs.Args()
	if len(argv) == 0 {
		return c.usage("name the program to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return c.usage("%v", err)
	}
	got, err := raiseNofile(*nofile)
	if err != nil {
		return fmt.Errorf("exec: raising the open-file limit: %w", err)
	}
	if got < *nofile {
		fmt.Fprintf(stderr, "journalship exec: the open-file limit is %d, below the %d asked: the hard limit is %d; raise it in the container runtime (LimitNOFILE of containerd or dockerd)\n", got, *nofile, got)
	}
	return fmt.Errorf("exec %s: %w", path, syscall.Exec(path, argv, os.Environ()))
}

// raiseNofile raises the soft open-file limit to at least want (never
// lowering it), raising the hard limit too when it is below want and the
// process may, and returns the soft limit now in force. The limit is set
// even when unchanged: Go raises its own soft limit at start and would
// otherwise give an exec'd program back the one it started with.
func raiseNofile(want uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Max < want {
		both := syscall.Rlimit{Cur: want, Max: want}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &both) == nil {
			return want, nil
		}
	}
	set := syscall.Rlimit{Cur: max(lim.Cur, min(want, lim.Max)), Max: lim.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &set); err != nil {
		return lim.Cur, err
	}
	return set.Cur, nil
}
