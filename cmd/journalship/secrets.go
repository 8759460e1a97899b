package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/journalship/journalship/redact"
)

// Exit codes of `journalship verify --secrets`.
const (
	exitNoSecret = 0 // nothing would be redacted
	exitSecrets  = 1 // a line would be redacted
	exitUnread   = 2 // a file could not be read
)

// secretFinding is one secret verify --secrets reports: where, and by
// which rule; never the secret itself.
type secretFinding struct {
	Line   int    `json:"line"`   // 1-based
	Offset int64  `json:"offset"` // byte offset of the secret in the file
	Rule   string `json:"rule"`
}

// secretReport is what verify --secrets says of one file.
type secretReport struct {
	File     string          `json:"file"`
	Lines    int             `json:"lines"`
	Findings []secretFinding `json:"findings"`
	Error    string          `json:"error,omitempty"`
}

// verifySecrets reports, file by file, what the plugin would redact in
// the journals under paths, without shipping anything.
func verifySecrets(paths []string, cfg redact.Config, asJSON bool, stdout, stderr io.Writer) int {
	r, err := redact.New(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "journalship verify:", err)
		return exitUsage
	}
	files, err := journalFiles(paths)
	if err != nil {
		fmt.Fprintln(stderr, "journalship verify:", err)
		return exitUnread
	}
	code, total, byRule := exitNoSecret, 0, map[string]int{}
	enc := json.NewEncoder(stdout)
	for _, f := range files {
		rep := scanSecrets(r, f)
		switch {
		case rep.Error != "":
			code = exitUnread
		case len(rep.Findings) > 0 && code == exitNoSecret:
			code = exitSecrets
		}
		total += len(rep.Findings)
		for _, x := range rep.Findings {
			byRule[x.Rule]++
		}
		if asJSON {
			if rep.Findings == nil {
				rep.Findings = []secretFinding{}
			}
			_ = enc.Encode(rep)
			continue
		}
		writeSecretReport(stdout, rep)
	}
	if asJSON {
		_ = enc.Encode(map[string]any{"files": len(files), "secrets": total, "by_rule": byRule})
	} else {
		fmt.Fprintf(stdout, "%d files, %d secrets would be redacted%s\n", len(files), total, ruleCounts(byRule))
	}
	return code
}

// scanSecrets runs the redactor over every complete line of the file.
func scanSecrets(r *redact.Redactor, path string) secretReport {
	rep := secretReport{File: path}
	f, err := os.Open(path)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var off int64
	var buf []byte
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			rep.Lines++
			text := bytes.TrimSuffix(line[:len(line)-1], []byte("\r")) // as tail hands it over
			_, found := r.Redact(path, text, buf[:0])
			for _, x := range found {
				rep.Findings = append(rep.Findings, secretFinding{Line: rep.Lines, Offset: off + int64(x.Start), Rule: x.Rule})
			}
		}
		off += int64(len(line))
		if err == io.EOF {
			return rep
		}
		if err != nil {
			rep.Error = err.Error()
			return rep
		}
	}
}

func writeSecretReport(w io.Writer, rep secretReport) {
	switch {
	case rep.Error != "":
		fmt.Fprintf(w, "%s: unreadable: %s\n", rep.File, rep.Error)
	case len(rep.Findings) == 0:
		fmt.Fprintf(w, "%s: %d lines, no secret\n", rep.File, rep.Lines)
	default:
		fmt.Fprintf(w, "%s: %d lines, %d secrets\n", rep.File, rep.Lines, len(rep.Findings))
		for _, x := range rep.Findings {
			fmt.Fprintf(w, "  line %d, byte %d: %s\n", x.Line, x.Offset, x.Rule)
		}
	}
}

// ruleCounts renders counts by rule: " (aws-access-token 2, jwt 1)".
func ruleCounts(byRule map[string]int) string {
	if len(byRule) == 0 {
		return ""
	}
	rules := slices.Sorted(func(yield func(string) bool) {
		for r := range byRule {
			if !yield(r) {
				return
			}
		}
	})
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("%s %d", r, byRule[r])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// journalFiles lists the files of paths, a directory's *.jsonl files
// recursively, in order.
func journalFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (path == p || strings.HasSuffix(path, ".jsonl")) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
