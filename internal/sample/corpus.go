package sample

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Corpus is a generated set of session files with their truth.
type Corpus struct {
	Files []File // unit by unit (a job, a run, a session), each unit's files in the order written
	// Side are files a runtime keeps beside its journals (snapshots,
	// token indexes): read by a format, never tailed or shipped.
	Side []SideFile
}

// SideFile is a file beside the journals, with its exact content.
type SideFile struct {
	Rel  string
	Data []byte
}

// File is one session file.
type File struct {
	Rel         string // path under the root: <job_id>/session_<ts>_<pod>.jsonl for Cortex Plane
	Data        []byte // exact file content
	Format      string // the format label the file ships with ("cortex", "codelia", …)
	JobID       string
	SessionID   string
	RunID       string // the run_id every line ships with ("" when the format has none)
	Pod         string
	AgentID     string
	Lines       []Line // every complete line (terminated by \n), in file order
	PartialTail []byte // bytes after the last \n (a crash mid-append), nil if none
	EndReason   string // SESSION_END reason, "" if the session has none (crash)
}

// Line is the truth about one complete line of a file.
type Line struct {
	Offset           int64  // byte offset of the line's first byte in File.Data
	Text             string // the line without its "\n"
	Type             string // the type field, "" when corrupt
	Seq              int64  // the seq field, -1 when corrupt or absent
	Valid            bool   // conforms to the v1 schema (known type, required fields, types, enums, formats, lengths)
	Corrupt          bool   // not JSON, not an object, or no string type or timestamp
	Model            string // LLM_REQUEST and LLM_RESPONSE: the model of the step's request
	PromptTokens     int64  // LLM_RESPONSE only
	CompletionTokens int64  // LLM_RESPONSE only
	// CacheReadTokens and CacheWriteTokens are the prompt tokens a
	// response read from and wrote to the provider's cache (0 when none).
	CacheReadTokens, CacheWriteTokens int64
	// CacheWrite1hTokens is the part of CacheWriteTokens written to a
	// one-hour cache (priced apart; 0 when the format does not say).
	CacheWrite1hTokens int64
	// Counted: Loki must count this line's tokens (tokens_in, tokens_out,
	// tokens_cache_*) under Model: a valid response with usage.
	Counted bool
	// State is the derived state shipped with the line ("" when the
	// format derives none).
	State string
	// RunID is the run_id this line states when it is not File.RunID
	// (a record of another run); "" means the file's.
	RunID  string
	Expect []string
	// Bill names the response whose usage the line ships ("message.id:
	// requestId") when other journals of the corpus repeat it: one journal
	// of the node counts it, the first to ship it. The truth says the
	// original counts (its path sorts first) and a copy expects
	// counted_elsewhere and no tokens; Settled turns that round for the
	// responses a copy shipped first. A copy's token fields hold what it
	// ships when it counts.
	Bill string
}

// Lines counts the complete lines of every file: what a shipper sends.
func (c *Corpus) Lines() int {
	n := 0
	for _, f := range c.Files {
		n += len(f.Lines)
	}
	return n
}

// TokensByModel returns [prompt, completion] tokens summed over the
// Counted lines, by model.
func (c *Corpus) TokensByModel() map[string][2]int64 {
	out := map[string][2]int64{}
	if c == nil {
		return out
	}
	for _, f := range c.Files {
		for _, l := range f.Lines {
			if !l.Counted {
				continue
			}
			t := out[l.Model]
			t[0] += l.PromptTokens
			t[1] += l.CompletionTokens
			out[l.Model] = t
		}
	}
	return out
}

// CacheTokensByModel returns [cache read, cache write] tokens summed over
// the Counted lines, by model; models without cache tokens are left out.
func (c *Corpus) CacheTokensByModel() map[string][2]int64 {
	out := map[string][2]int64{}
	if c == nil {
		return out
	}
	for _, f := range c.Files {
		for _, l := range f.Lines {
			if !l.Counted || l.CacheReadTokens+l.CacheWriteTokens == 0 {
				continue
			}
			t := out[l.Model]
			t[0] += l.CacheReadTokens
			t[1] += l.CacheWriteTokens
			out[l.Model] = t
		}
	}
	return out
}

// Settled returns the corpus with the truth of each billed response
// (Line.Bill) turned to the journal that counted it: owner names, by
// bill, the file (Rel) whose lines count it; the lines of the bill
// elsewhere expect counted_elsewhere and no tokens. Bills owner does not
// name keep the truth's owner. c is not modified.
func (c *Corpus) Settled(owner map[string]string) *Corpus {
	out := *c
	out.Files = slices.Clone(c.Files)
	for i := range out.Files {
		f := &out.Files[i]
		if !slices.ContainsFunc(f.Lines, func(l Line) bool { return l.Bill != "" }) {
			continue
		}
		f.Lines = slices.Clone(f.Lines)
		for k := range f.Lines {
			l := &f.Lines[k]
			rel, ok := owner[l.Bill]
			if l.Bill == "" || !ok {
				continue
			}
			l.Counted = rel == f.Rel
			l.Expect = slices.DeleteFunc(slices.Clone(l.Expect), func(e string) bool { return e == AnnCountedElsewhere })
			if !l.Counted {
				l.Expect = append(l.Expect, AnnCountedElsewhere)
			}
		}
	}
	return &out
}

// LastTime returns the timestamp of the file's last complete line, or the
// zero time when it has none; WriteTo uses it as the file's mtime.
func (f File) LastTime() time.Time {
	for i := len(f.Lines) - 1; i >= 0; i-- {
		if t, ok := lineTime(f.Lines[i].Text); ok {
			return t
		}
	}
	return time.Time{}
}

// lineTime extracts the time a generator wrote under "timestamp" (Cortex
// Plane) or "ts" (the other formats), RFC 3339.
func lineTime(text string) (time.Time, bool) {
	for _, key := range []string{`"timestamp":"`, `"ts":"`} {
		i := strings.Index(text, key)
		if i < 0 {
			continue
		}
		v, _, ok := strings.Cut(text[i+len(key):], `"`)
		if t, err := time.Parse(time.RFC3339Nano, v); ok && err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// WriteTo writes every file under root with mode 0644 (directories 0755)
// and sets each file's mtime to its last event's time, as the agent left
// it. Existing files are overwritten.
func (c *Corpus) WriteTo(root string) error {
	if c == nil {
		return nil
	}
	for _, f := range c.Files {
		if err := writeFile(root, f); err != nil {
			return err
		}
	}
	for _, f := range c.Side {
		if err := writeFile(root, File{Rel: f.Rel, Data: f.Data}); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(root string, f File) error {
	clean := path.Clean(f.Rel)
	if f.Rel == "" || path.IsAbs(f.Rel) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || filepath.IsAbs(filepath.FromSlash(f.Rel)) {
		return &WriteError{Op: "path", Path: f.Rel, Err: ErrUnsafePath}
	}
	full := filepath.Join(root, filepath.FromSlash(clean))
	dir := filepath.Dir(full)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &WriteError{Op: "mkdir", Path: dir, Err: err}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return &WriteError{Op: "chmod", Path: dir, Err: err}
	}
	if err := os.WriteFile(full, f.Data, 0o644); err != nil {
		return &WriteError{Op: "write", Path: full, Err: err}
	}
	if err := os.Chmod(full, 0o644); err != nil {
		return &WriteError{Op: "chmod", Path: full, Err: err}
	}
	if t := f.LastTime(); !t.IsZero() {
		if err := os.Chtimes(full, t, t); err != nil {
			return &WriteError{Op: "chtimes", Path: full, Err: err}
		}
	}
	return nil
}
