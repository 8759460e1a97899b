// Command flbmeasure measures what each Loki output costs inside a real
// Fluent Bit: Fluent Bit's CPU seconds (user + system) and peak RSS while
// it tails a generated corpus of agent journals from the head and ships
// every line to a counting Loki stand-in.
//
// It writes the corpus once (Cortex Plane journals from
// internal/sample/cortex, or Claude Code transcripts from
// internal/sample/claudecode) under a temp data directory, then for each
// round and each output starts the given fluent-bit with a fresh state
// directory, one tail input and that one output: null, Fluent Bit's C
// loki output, journalship's plugin, and grafana-loki's Go plugin when
// its .so is given. A run ends when the stand-in has received every line
// of the corpus (null: when Fluent Bit's metrics say tail has read them
// all); every run starts with the corpus on the disk and out of the page
// cache; Fluent Bit's CPU (utime + stime of /proc/<pid>/stat) and VmHWM
// are read at that moment, then it is stopped with SIGTERM. The outputs
// take turns in a different order each round; the tables give each
// output's medians and every run.
//
// Tail's Tag decides what one flush holds: with -tag journals (the
// default, like the project's fluent-bit.conf) the records of many files
// share a chunk (up to ~2 MB); with -tag journals.* each file gets a tag
// of its own and so chunks and flushes of its own.
//
//	go run ./tools/flbmeasure -fluent-bit /path/to/fluent-bit
//
// The stand-in answers 204 before it decodes a push, so what is measured
// is the shipping, never Loki. It is not part of make test: it needs a
// Fluent Bit binary, and a quiet machine.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/pagecache"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/claudecode"
	"github.com/journalship/journalship/internal/sample/cortex"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "flbmeasure:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("flbmeasure", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fluentBit := fs.String("fluent-bit", "", "the fluent-bit binary to measure (required unless -rounds 0)")
	plugin := fs.String("plugin", "bin/out_journalship.so", "journalship's plugin (make build)")
	grafana := fs.String("grafana-loki", "", "grafana-loki's Go plugin (.so); measured as output grafana-loki when given")
	outputs := fs.String("outputs", "null,loki,journalship", "outputs to measure, in the first round's order: null, loki (Fluent Bit's C output), journalship, grafana-loki (added when -grafana-loki is given)")
	rounds := fs.Int("rounds", 3, "rounds; each runs every output once (0: only write the corpus and print its size)")
	corpusName := fs.String("corpus", "cortex", "corpus: cortex (Cortex Plane journals, ~430 B lines) or claude-code (Claude Code transcripts, 0.3–10 KB lines)")
	jobs := fs.Int("jobs", 5200, "Cortex Plane jobs to generate (5200: ~6,000 journals, ~180,000 lines, ~81 MB); fewer for a quick run")
	sessions := fs.Int("sessions", claudecode.MaxSessions, "Claude Code sessions to generate (-corpus claude-code)")
	seed := fs.Int64("seed", 1, "the generator's seed")
	dataDir := fs.String("data", "", "directory for the corpus and the runs' state (default: a new temp directory, removed at the end)")
	keep := fs.Bool("keep", false, "keep the data directory and every run's state and Fluent Bit log")
	timeout := fs.Duration("timeout", 15*time.Minute, "longest a run may take")
	tag := fs.String("tag", "journals", "tail's Tag: without a *, as in the project's fluent-bit.conf, records of many files share a chunk; with one, each file gets its own tag and so its own chunks and flushes")
	stall := fs.Duration("stall", time.Minute, "end a run as incomplete when no line arrives for this long")
	tailExtra := fs.String("tail", "", "more settings of the tail input, the same for every output: \"Key Value\" pairs separated by commas (\"File_Cache_Advise Off\")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	outs := strings.Split(*outputs, ",")
	if *grafana != "" && !slices.Contains(outs, outGrafanaLoki) {
		outs = append(outs, outGrafanaLoki)
	}
	for _, o := range outs {
		switch o {
		case outNull, outLoki, outJournalship:
		case outGrafanaLoki:
			if *grafana == "" {
				return errors.New("output grafana-loki needs -grafana-loki PATH")
			}
		default:
			return fmt.Errorf("unknown output %q", o)
		}
	}
	su := &setup{tag: *tag, timeout: *timeout, stall: *stall, keepLogs: *keep}
	for _, e := range strings.Split(*tailExtra, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(e), " "); ok && strings.TrimSpace(v) != "" {
			su.tailExtra = append(su.tailExtra, k+" "+strings.TrimSpace(v))
		} else if strings.TrimSpace(e) != "" {
			return fmt.Errorf("-tail: %q is not \"Key Value\"", e)
		}
	}
	var err error
	if *rounds > 0 {
		if *fluentBit == "" {
			return errors.New("-fluent-bit PATH is required")
		}
		if su.fluentBit, err = absFile(*fluentBit); err != nil {
			return err
		}
		if slices.Contains(outs, outJournalship) {
			if su.journalship, err = absFile(*plugin); err != nil {
				return err
			}
		}
		if *grafana != "" {
			if su.grafanaLoki, err = absFile(*grafana); err != nil {
				return err
			}
		}
	}

	dir := *dataDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "flbmeasure-"); err != nil {
			return err
		}
		if !*keep {
			defer os.RemoveAll(dir)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	su.workDir = dir
	files, bytes, err := writeCorpus(su, *corpusName, filepath.Join(dir, "data"), *seed, *jobs, *sessions)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "corpus %s: %d journals, %d lines, %.1f MB under %s\n",
		*corpusName, files, su.lines, float64(bytes)/1e6, filepath.Join(dir, "data"))
	if *rounds == 0 {
		return nil
	}

	var all []result
	for r := range *rounds {
		for i := range outs {
			out := outs[(i+r)%len(outs)]
			fmt.Fprintf(stderr, "round %d: %s ...", r+1, out)
			if err := pagecache.Drop(filepath.Join(dir, "data")); err != nil {
				return err
			}
			res, err := su.run(out, r+1)
			if err != nil {
				fmt.Fprintln(stderr)
				return err
			}
			fmt.Fprintf(stderr, " %.2f s CPU, %.1f s wall, %d requests, %d entries%s\n",
				res.CPU, res.Wall, res.Counts.Requests, res.Counts.Entries, incomplete(res))
			all = append(all, res)
		}
	}
	printTables(stdout, outs, all)
	if *keep {
		fmt.Fprintf(stdout, "\nkept: %s\n", dir)
	}
	return nil
}

// writeCorpus generates the corpus named name under root, points su's
// tail paths, Format_Roots and line count at it, and returns the number of
// journals tail reads and their bytes.
func writeCorpus(su *setup, name, root string, seed int64, jobs, sessions int) (files int, size int64, err error) {
	start := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	var c *sample.Corpus
	switch name {
	case "cortex":
		root = filepath.Join(root, "sessions")
		c, err = cortex.Generate(cortex.Config{Seed: seed, Jobs: jobs, Start: start, Faults: true,
			Models: slices.Clone(cortex.DefaultModels)})
		su.paths = []string{filepath.Join(root, "*", "*.jsonl")}
		su.formatRoots = "cortex=" + root
	case "claude-code":
		root = filepath.Join(root, "claude", "projects")
		c, err = claudecode.Generate(claudecode.Config{Seed: seed, Sessions: sessions, Start: start, Faults: true,
			Models: slices.Clone(claudecode.DefaultModels)})
		su.paths = []string{filepath.Join(root, "*", "*.jsonl"), filepath.Join(root, "*", "*", "subagents", "agent-*.jsonl")}
		su.formatRoots = "claude-code=" + root
	default:
		return 0, 0, fmt.Errorf("unknown corpus %q (cortex, claude-code)", name)
	}
	if err != nil {
		return 0, 0, err
	}
	if err := os.RemoveAll(root); err != nil {
		return 0, 0, err
	}
	if err := c.WriteTo(root); err != nil {
		return 0, 0, err
	}
	// Count what tail reads: the complete lines of the files its paths
	// match (a crashed session's torn last line has no newline and is
	// never read).
	su.lines = 0
	for _, f := range c.Files {
		full := filepath.Join(root, filepath.FromSlash(f.Rel))
		if !slices.ContainsFunc(su.paths, func(p string) bool { ok, _ := filepath.Match(p, full); return ok }) {
			continue
		}
		files++
		size += int64(len(f.Data))
		su.lines += int64(len(f.Lines))
	}
	return files, size, nil
}

// absFile returns path made absolute, or an error when no file is there.
func absFile(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a directory", abs)
	}
	return abs, nil
}

func incomplete(r result) string {
	if r.Complete {
		return ""
	}
	return " (incomplete: " + r.Note + ")"
}
