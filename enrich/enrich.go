// Package enrich derives the context a journal line does not carry itself:
// what its file path says (job, session start, pod), the node it was read
// on, and static labels from configuration and the environment.
package enrich

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Config holds the static context of one process.
type Config struct {
	// Node is the node name shipped with every line. Default: $NODE_NAME,
	// else the host name.
	Node string
	// Static are extra key/values attached to every line (as stream labels
	// or structured metadata, as the pipeline's layout decides).
	Static map[string]string
}

// DefaultConfig reads the node name from the environment.
func DefaultConfig() Config {
	return Config{Node: DefaultNode(), Static: map[string]string{}}
}

// DefaultNode returns $NODE_NAME (set from the downward API in the
// DaemonSet), else the host name, else "unknown".
func DefaultNode() string {
	if n := os.Getenv("NODE_NAME"); n != "" {
		return n
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "unknown"
}

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// Validate checks that static keys are valid Loki label names.
func (c Config) Validate() error {
	if c.Node == "" {
		return errors.New("enrich: node name is empty")
	}
	for k := range c.Static {
		if !labelName.MatchString(k) {
			return fmt.Errorf("enrich: static key %q is not a valid label name ([a-zA-Z_][a-zA-Z0-9_]*)", k)
		}
	}
	return nil
}

// ParseStatic parses "k1=v1,k2=v2" (the plugin's Labels setting).
func ParseStatic(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("enrich: %q is not key=value", part)
		}
		if !labelName.MatchString(k) {
			return nil, fmt.Errorf("enrich: %q is not a valid label name", k)
		}
		out[k] = v
	}
	return out, nil
}

// PathInfo is what a journal's path says about it.
type PathInfo struct {
	// OK is true when the path follows
	// <root>/<job_id>/session_<YYYYMMDDTHHMMSSZ>_<pod>.jsonl.
	OK bool
	// Problem says why the path does not match, when !OK.
	Problem      string
	JobID        string
	SessionStart time.Time
	Pod          string
}

const sessionTimeLayout = "20060102T150405Z"

// ParsePath reads the job id, session start time and pod from a journal
// path. Whatever parts it can read are filled in even when the path does
// not match as a whole.
func ParsePath(path string) PathInfo {
	var pi PathInfo
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	if uuid.Validate(dir) == nil && len(dir) == 36 {
		pi.JobID = dir
	}
	name, ok := strings.CutSuffix(base, ".jsonl")
	if !ok {
		pi.Problem = "file name does not end in .jsonl"
		return pi
	}
	rest, ok := strings.CutPrefix(name, "session_")
	if !ok {
		pi.Problem = "file name does not start with session_"
		return pi
	}
	ts, pod, ok := strings.Cut(rest, "_")
	if !ok || pod == "" {
		pi.Problem = "file name has no _<pod> part"
		return pi
	}
	// time.Parse would also take fractional seconds after the seconds
	// field; the seed's compact form has exactly 16 characters.
	t, err := time.Parse(sessionTimeLayout, ts)
	if err != nil || len(ts) != len(sessionTimeLayout) {
		pi.Problem = "session time is not YYYYMMDDTHHMMSSZ"
		return pi
	}
	pi.SessionStart, pi.Pod = t, pod
	if pi.JobID == "" {
		pi.Problem = "parent directory is not a job uuid"
		return pi
	}
	pi.OK = true
	return pi
}
