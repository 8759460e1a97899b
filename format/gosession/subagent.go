package gosession

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"time"
)

// subagentMarks are the texts Goat's Agent tool puts in the tool message
// answering a subagent's call, before the subagent's id (its session
// directory's name): a foreground subagent's result ends in
// "agentId: <id>", a background one's start says "Agent ID: <id>".
var subagentMarks = [...]string{"agentId: ", "Agent ID: "}

// scanChunk is the size of the reads ParentOf searches in.
const scanChunk = 64 << 10

// ParentOf returns the name of the session directory beside sessionDir
// (under the same base) whose messages.jsonl has a tool message naming
// sessionDir's session as a subagent it ran, or "" when none does (docs/
// formats/go-session.md, Tokens and cost). Goat's subagents write a
// session directory of their own and share their parent run's cost
// tracker. Only journals modified at or after since (the subagent's run's
// start; zero: any) are read, at most maxBytes in all (0: none).
func ParentOf(sessionDir string, since time.Time, maxBytes int64) string {
	id := filepath.Base(sessionDir)
	base := filepath.Dir(sessionDir)
	entries, err := os.ReadDir(base)
	if err != nil || maxBytes <= 0 || id == "" {
		return ""
	}
	var needles [len(subagentMarks)][]byte
	for i, m := range subagentMarks {
		needles[i] = []byte(m + id)
	}
	budget := maxBytes
	buf := make([]byte, scanChunk+len(needles[1])) // a chunk and the longer needle
	for _, e := range entries {
		if !e.IsDir() || e.Name() == id {
			continue
		}
		path := filepath.Join(base, e.Name(), MessagesFile)
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
			continue
		}
		found, read := contains(path, needles[:], buf, budget)
		if found {
			return e.Name()
		}
		if budget -= read; budget <= 0 {
			return ""
		}
	}
	return ""
}

// contains tells whether the file at path holds one of needles within
// its first limit bytes, searching chunk by chunk (buf: a chunk and the
// longest needle's overlap); read is the bytes read.
func contains(path string, needles [][]byte, buf []byte, limit int64) (found bool, read int64) {
	f, err := os.Open(path)
	if err != nil {
		return false, 0
	}
	defer f.Close()
	overlap := 0
	for _, n := range needles {
		overlap = max(overlap, len(n)-1)
	}
	keep := 0 // bytes carried over from the previous chunk
	for read < limit {
		want := min(int64(len(buf)-keep), limit-read)
		n, err := io.ReadFull(f, buf[keep:keep+int(want)])
		read += int64(n)
		window := buf[:keep+n]
		for _, nd := range needles {
			if bytes.Contains(window, nd) {
				return true, read
			}
		}
		if err != nil {
			return false, read // the end of the file, or a read error
		}
		keep = min(overlap, len(window))
		copy(buf, window[len(window)-keep:])
	}
	return false, read
}
